"""Levels."""
