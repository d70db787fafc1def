"""Keyed."""
