"""Variants."""
