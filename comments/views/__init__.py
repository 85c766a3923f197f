"""The comments app's pages, one module per job: reading (pages of comments,
permalinks), posting (new comments and replies), changing (edits, deletes, flags) and
votes (a reader's vote and their votes on a discussion); common holds what they share.
comments/urls.py names each view. The top room: it may import every room below it and
the core modules; nothing in the app but the URLconfs imports it."""
