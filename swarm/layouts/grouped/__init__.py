"""Grouped."""
