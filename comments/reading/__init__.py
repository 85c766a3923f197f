"""Reading a discussion: slugs, cursors, listings, page windows, ranked views, rendered fragments, polling."""
