from django.apps import AppConfig


class CommentsConfig(AppConfig):
    """Threaded comments on discussions known by id, in one of three MongoDB stores."""

    name = "comments"
    verbose_name = "Comments"

    def ready(self):
        from comments import (  # noqa: F401
            blocklist,
            changes,
            checks,
            discussion_state,
            flags,
            limits,
            outbox,
            ranked,
            recent_texts,
            stores,
            subscriptions,
            votes,
        )
        from infra import mongo, sharding

        for owner in (stores, flags, blocklist, limits, changes, recent_texts, subscriptions, outbox, votes,
                      ranked, discussion_state):
            mongo.register_indexes(owner.ensure_indexes)
        sharding.register_shard_keys(stores.shard_keys)
        sharding.register_shard_keys(discussion_state.shard_keys)
