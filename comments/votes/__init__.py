"""Readers' votes, as data and rules: the comment_votes collection and the tallies it
moves (collection), who a vote is from (voters) and what a vote may do (rules). A room
below reading, which draws a reader's own votes: it may import the app's core modules,
stores and posting, nothing above. The vote views are comments/views/votes.py."""
