"""Token tables."""
