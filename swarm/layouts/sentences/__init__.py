"""Sentences."""
