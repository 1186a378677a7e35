"""The HTTP service (`arena serve`)."""
