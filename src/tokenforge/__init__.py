"""tokenforge."""
