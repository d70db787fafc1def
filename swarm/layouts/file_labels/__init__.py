"""File labels."""
