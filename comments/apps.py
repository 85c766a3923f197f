from django.apps import AppConfig


def _store_indexes(db):
    """The indexes of the comment store in use (asked when indexes are made, never at
    start-up: which store is in use is read from the database)."""
    from comments import store

    return store.ensure_indexes(db)


class CommentsConfig(AppConfig):
    """Threaded comments on discussions known by id, in one of three MongoDB stores."""

    name = "comments"
    verbose_name = "Comments"

    def ready(self):
        from comments import blocklist, changes, checks, flags, limits, outbox, recent_texts, subscriptions  # noqa: F401
        from infra import mongo

        mongo.register_indexes(_store_indexes)
        for owner in (flags, blocklist, limits, changes, recent_texts, subscriptions, outbox):
            mongo.register_indexes(owner.ensure_indexes)
