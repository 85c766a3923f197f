from django.apps import AppConfig


class CommentsConfig(AppConfig):
    """Threaded comments on discussions known by id, in one of three MongoDB stores."""

    name = "comments"
    verbose_name = "Comments"

    def ready(self) -> None:
        from comments.moderation import bans, blocklist, branches, changes, flags, undo
        from comments import checks, stores
        from comments.stores import discussion_state
        from comments.posting import limits, recent_texts
        from comments.notifications import mail_moderation, outbox, subscriptions
        from comments.reading import ranked
        from comments.erasure import jobs as erasures
        from comments.transfer import shard_moves
        from comments.votes import collection as votes
        from comments.notifications import notify
        from comments import signals
        from infra import mongo, sharding

        for owner in (stores, flags, blocklist, bans, limits, changes, recent_texts, subscriptions, outbox, votes,
                      ranked, discussion_state, mail_moderation, erasures, branches, undo):
            mongo.register_indexes(owner.ensure_indexes)
        sharding.register_shard_keys(stores.shard_keys)
        mongo.register_indexes(stores.ensure_states)  # after every owner's indexes
        # The notifications hear of comments through the app's signals (comments/signals.py).
        signals.comment_posted.connect(notify.on_comment_posted, dispatch_uid="comments.notifications.notify.posted")
        signals.comment_status_changed.connect(notify.on_status_changed,
                                               dispatch_uid="comments.notifications.notify.status")
        sharding.register_shard_keys(discussion_state.shard_keys)
        sharding.register_shard_keys(branches.shard_keys)
        sharding.register_moves(before=shard_moves.hold_writes, after=shard_moves.release_and_repair)
