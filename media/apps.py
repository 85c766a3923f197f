from django.apps import AppConfig


class MediaConfig(AppConfig):
    """The media library: `media_images`, the GridFS bucket `media`, `media_pending` (uploads and deletions under way) and uploads kept
    while their form is put right (`media_kept`)."""

    name = "media"
    verbose_name = "Slugline media library"

    def ready(self):
        from infra import markup, mongo, sharding
        from media import library, pending
        from media.markup import responsive_images

        mongo.register_indexes(library.ensure_indexes)
        mongo.register_indexes(pending.ensure_indexes)
        sharding.register_shard_keys(library.shard_keys)
        markup.register_post_html_hook(responsive_images)
