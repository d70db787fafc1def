"""Masks."""
