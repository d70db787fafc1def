"""Twins."""
