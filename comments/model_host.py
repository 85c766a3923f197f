"""The built-in host: every instance of COMMENTS_DISCUSSION_MODEL is a discussion.

A project without a host class of its own (COMMENTS_HOST unset) names a model
(`COMMENTS_DISCUSSION_MODEL = "recipes.Recipe"`) and each of its instances has comments.
A discussion's id stays an ObjectId, so the stores, their indexes and the shard key
(`discussion_id`) are those of any host: the first 12 bytes of the SHA-256 of
"<model label>:<pk>" (`discussion_key`), as contrib-comments keys a comment by its
object's type and `object_pk`. The app records the model and pk in the discussion's
`discussion_state` document (comments/stores/discussion_state.py, `name`) the first time
a process reads it (later reads only read), so `get` and `get_many` map ids back to instances.

What a discussion is read from the instance (each optional, docs/use-in-your-project.md):
- its URL's `discussion`: the field COMMENTS_DISCUSSION_SLUG_FIELD names (`slug`);
- `title`: its `title`, else `str(instance)`;
- `get_absolute_url()`: its page, else the comments app's page of it;
- `comments_open`: an attribute or method; false closes it to new comments (open by default);
- `published`: a datetime, None for a draft readers may not see (no field: always
  published; COMMENTS_CLOSE_AFTER_DAYS counts from it);
- `comments_author_id`: the user to notify of its comments (none by default).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bson import ObjectId
from django.apps import apps
from django.db import models
from django.http import Http404
from django.urls import reverse
from django.utils.translation import gettext

from comments import conf
from comments.host import NO_SUCH_DISCUSSION, BaseHost, LatestComment
from comments.stores import discussion_state


# The discussions this process has recorded the model and pk of (at most NAMED_KEPT).
NAMED_KEPT = 10_000
_NAMED: set[ObjectId] = set()


def discussion_key(label: str, pk: object) -> ObjectId:
    """The discussion id of the instance `pk` of the model `label` ("recipes.recipe")."""
    return ObjectId(hashlib.sha256(f"{label.lower()}:{pk}".encode()).digest()[:12])


@dataclass(frozen=True)
class Author:
    id: int | None


@dataclass(frozen=True)
class ModelDiscussion:
    """A model instance as the comments app reads a discussion."""

    instance: models.Model
    slug: str
    comment_count: int = 0
    latest_comments: Sequence[LatestComment] = field(default=())

    @property
    def id(self) -> ObjectId:
        return discussion_key(self.instance._meta.label_lower, self.instance.pk)

    @property
    def title(self) -> str:
        return str(getattr(self.instance, "title", None) or self.instance)

    @property
    def author(self) -> Author:
        found = getattr(self.instance, "comments_author_id", None)
        return Author(int(found) if found is not None else None)

    @property
    def published(self) -> datetime | None:
        found = getattr(self.instance, "published", None)
        return found if isinstance(found, datetime) else None

    @property
    def is_published(self) -> bool:
        return not hasattr(self.instance, "published") or self.instance.published is not None

    @property
    def comments_closed(self) -> bool:
        found = getattr(self.instance, "comments_open", True)
        return not (found() if callable(found) else found)

    def get_absolute_url(self) -> str:
        own = getattr(self.instance, "get_absolute_url", None)
        return str(own()) if callable(own) else reverse("comments:discussion", args=[self.slug])


class ModelHost(BaseHost):
    """Discussions are the instances of COMMENTS_DISCUSSION_MODEL."""

    def model(self) -> type[models.Model]:
        return apps.get_model(conf.get().discussion_model)

    def discussion_of(self, instance: Any) -> Any:
        if isinstance(instance, ModelDiscussion) or not isinstance(instance, models.Model):
            return instance
        label, pk = instance._meta.label_lower, str(instance.pk)
        key = discussion_key(label, pk)
        # Recorded once per process (a write), read after that: a page view writes nothing.
        state = discussion_state.get(key) if key in _NAMED else None
        if state is None:
            state = discussion_state.name(key, model=label, pk=pk)
            if len(_NAMED) >= NAMED_KEPT:
                _NAMED.clear()
            _NAMED.add(key)
        slug = str(getattr(instance, conf.get().discussion_slug_field))
        return ModelDiscussion(instance, slug, comment_count=state.counts.approved)

    def get_many(self, ids: Iterable[ObjectId]) -> list[Any]:
        model = self.model()
        label = model._meta.label_lower
        pks = [pk for found, pk in discussion_state.names(ids).values() if found == label]
        return [self.discussion_of(instance) for instance in model._default_manager.filter(pk__in=pks)]

    def get_by_slug(self, slug: str) -> Any:
        field_name = conf.get().discussion_slug_field
        instance = self.model()._default_manager.filter(**{field_name: slug}).first()
        return None if instance is None else self.discussion_of(instance)

    def published_or_404(self, slug: str) -> Any:
        found = self.get_by_slug(slug)
        if found is None or not found.is_published:
            raise Http404(gettext(NO_SUCH_DISCUSSION))
        return found
