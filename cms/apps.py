from django.apps import AppConfig
from django.apps import apps as global_apps
from django.db import DEFAULT_DB_ALIAS
from django.db.models.signals import post_migrate


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
        # After every migrate (and every flush that emits it, as a transactional test's
        # does), as Django's own apps keep their permissions: migration 0002 made the
        # group once, and a flushed or hand-emptied table would otherwise lose it.
        post_migrate.connect(_editors_group, sender=self)


def _editors_group(sender, apps=global_apps, using=DEFAULT_DB_ALIAS, **kwargs):
    """The Editors group (cms/roles.py), made when it is missing (a flush's signal
    names no `apps`: the models as they are)."""
    from cms.roles import EDITORS_GROUP

    try:
        group = apps.get_model("auth", "Group")
    except LookupError:  # auth not migrated in this database
        return
    group.objects.using(using).get_or_create(name=EDITORS_GROUP)
