"""Imported commenters cleaned once each (comments/posting/commenters.py): the
importer (comments/transfer/importing.py) meets the same author on many comments."""

from __future__ import annotations

from comments.posting import commenters

AUTHORS_HELD = 20_000  # cleaned authors kept; past it, the cache starts again


class Authors:
    """The cleaned name and address of each author met, up to AUTHORS_HELD."""

    def __init__(self, *, trust_names: bool = False):
        # Authors' names are taken from the file only when the operator trusts it.
        self.trust_names = trust_names
        self._held: dict[tuple[str, str, bool], commenters.Commenter | commenters.Refused] = {}

    def clean(self, name: str, email: str, *, by_source_author: bool = False,
              ) -> commenters.Commenter | commenters.Refused:
        """The name and address cleaned as the comment form's are, once for each author
        (the names of the site's own authors as they were when the author was first met)."""
        key = (name, email, self.trust_names or by_source_author)
        if key not in self._held:
            if len(self._held) >= AUTHORS_HELD:
                self._held.clear()
            try:
                self._held[key] = commenters.clean_imported(name=key[0], email=key[1], trust_names=key[2])
            except commenters.Refused as exc:
                self._held[key] = exc
        return self._held[key]
