"""Editors' moderation: the queue and its actions, flags, the blocklist, picks, changes that converge."""
