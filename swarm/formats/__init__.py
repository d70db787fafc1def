"""Formats."""
