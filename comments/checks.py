"""The comments app's system checks, registered in `CommentsConfig.ready()`."""

from django.conf import settings
from django.core import checks

UNKNOWN_STORE = "COMMENTS_STORE is {name!r}; the comment stores are: {known}."


@checks.register()
def known_comment_store(app_configs, **kwargs):
    """COMMENTS_STORE names one of the comment stores (comments/store.py), so a typo
    stops the site at start-up instead of failing every page of comments."""
    from comments.store import STORES

    if settings.COMMENTS_STORE not in STORES:
        known = ", ".join(STORES)
        return [checks.Error(UNKNOWN_STORE.format(name=settings.COMMENTS_STORE, known=known),
                             hint=f"Set COMMENTS_STORE to one of: {known}.", id="cms.E001")]
    return []
