from django.apps import AppConfig


class CmsConfig(AppConfig):
    """The blog: posts, authors, their pages and feeds; the comments app's host."""

    name = "cms"
    verbose_name = "Slugline blog"

    def ready(self):
        from cms import posts, versions
        from comments import api as comments_api
        from infra import mongo

        mongo.register_indexes(posts.ensure_indexes)
        mongo.register_indexes(versions.ensure_indexes)
        comments_api.register_import_format("wordpress", "cms.wxr.importer.run", options=("comments_only",))
