"""Posting and changing comments: the rules (services), forms, antispam, names, addresses, previews."""
