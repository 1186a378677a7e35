"""arena: a tournament and bot-competition platform for card games."""

__version__ = "0.1.0"
