"""Layouts."""
