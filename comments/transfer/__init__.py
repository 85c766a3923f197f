"""Comments in and out: the import engine and its sources, JSON Lines export and import, store migration."""
