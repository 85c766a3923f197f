from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    """Signed webhooks for comment events, managed in the dashboard (docs/webhooks.md)."""

    name = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        from comments import api as comments_api
        from infra import mongo
        from webhooks import deliveries, events, hooks

        mongo.register_indexes(hooks.ensure_indexes)
        mongo.register_indexes(deliveries.ensure_indexes)
        for signal, receiver in ((comments_api.comment_posted, events.on_comment_posted),
                                 (comments_api.comment_status_changed, events.on_status_changed),
                                 (comments_api.comment_flagged, events.on_comment_flagged),
                                 (comments_api.comment_voted, events.on_comment_voted)):
            signal.connect(receiver, dispatch_uid=f"webhooks.events.{receiver.__name__}")
