"""Label lines."""
