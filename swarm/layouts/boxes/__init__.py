"""Boxes."""
