from django.apps import AppConfig


class MediaConfig(AppConfig):
    """The media library: `media_images` and the GridFS bucket `media`."""

    name = "media"
    verbose_name = "Slugline media library"

    def ready(self):
        from infra import markup, mongo, sharding
        from media import library
        from media.markup import responsive_images

        mongo.register_indexes(library.ensure_indexes)
        sharding.register_shard_keys(library.shard_keys)
        markup.register_post_html_hook(responsive_images)
