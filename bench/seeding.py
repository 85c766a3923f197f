"""Seeding large demo discussions quickly on FerretDB v1, for the benchmarks."""

from contextlib import contextmanager

from django.conf import settings

from comments import store


@contextmanager
def fast_seeding():
    """seed_comments as it is, minus two collection scans per comment that FerretDB v1
    makes quadratic (10,000 comments would take hours): the reply's parent is looked up
    among the comments this process has just inserted (the same Comment the database
    would return; other look-ups still go to it), and the duplicate check is off
    (COMMENTS_DUPLICATE_WINDOW=0; demo texts have no duplicates to catch). The stored
    documents are the ones a plain run stores."""
    inserted: dict[tuple, store.Comment] = {}
    module = store.active()  # patched in the store module itself, so the facade finds the patches
    find_by_slug, insert_comment = module.find_by_slug, module.insert_comment
    window = settings.COMMENTS_DUPLICATE_WINDOW

    def insert_and_remember(**fields):
        comment = insert_comment(**fields)
        inserted[comment.discussion_id, comment.slug] = comment
        return comment

    def find_remembered(*, discussion_id, slug):
        return inserted.get((discussion_id, slug)) or find_by_slug(discussion_id=discussion_id, slug=slug)

    module.find_by_slug, module.insert_comment = find_remembered, insert_and_remember
    settings.COMMENTS_DUPLICATE_WINDOW = 0
    try:
        yield
    finally:
        module.find_by_slug, module.insert_comment = find_by_slug, insert_comment
        settings.COMMENTS_DUPLICATE_WINDOW = window
