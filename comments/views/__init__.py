"""The comments app's pages, one module per job: reading (pages of comments,
permalinks), posting (new comments and replies) and changing (edits, deletes, flags);
common holds what they share. comments/urls.py names each view."""
