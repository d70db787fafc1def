"""Later events."""
