"""Pixels."""
