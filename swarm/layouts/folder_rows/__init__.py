"""Folder rows."""
