"""Positions."""
