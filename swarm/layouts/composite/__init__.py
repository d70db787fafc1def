"""Composite."""
