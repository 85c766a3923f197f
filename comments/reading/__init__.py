"""Reading a discussion: cursors, listings (the views ordered by a sort key), ranked
views (best, top), listers (the one table of views and what lists each one's pages),
placing a comment in a view, thread cuts, rendered fragments, the comment section and
polling. It may import the app's core modules and the rooms below it (stores,
moderation, posting, votes, notifications), nothing above (transfer, views)."""
