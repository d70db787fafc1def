"""Bson."""
