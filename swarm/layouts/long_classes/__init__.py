"""Long classes."""
