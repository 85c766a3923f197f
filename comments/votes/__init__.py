"""Readers' votes: the comment_votes collection, who a vote is from, the rules, scores, the vote views."""
