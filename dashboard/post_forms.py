"""The dashboard's forms for posts: writing one, and the list's filter. They own
validation; every error has a code, and the messages tests check are the constants
below. People's forms are in dashboard/author_forms.py, the moderation queue's in
dashboard/moderation_forms.py."""

import unicodedata
from collections.abc import Sequence
from datetime import datetime

from django import forms
from django.conf import settings
from django.utils import timezone
from django.utils.translation import pgettext_lazy
from django.utils.translation import gettext_lazy as _

from cms import posts, slugs
from cms.posts import EXCERPT_MAX_LENGTH, MAX_TAGS, SLUG_MAX_LENGTH, TAG_MAX_LENGTH, is_tag  # noqa: F401
from dashboard.form_limits import SEARCH_MAX_LENGTH, too_long
from media import library, references

TITLE_MAX_LENGTH = 200
CONTENT_MAX_LENGTH = 100_000
TAGS_MAX_LENGTH = 500

EMPTY_TITLE = _("Give the post a title.")
BAD_SLUG = _("A slug is made of letters, digits, hyphens and underscores only.")
BAD_TAG = _(
    "“%(tag)s” is not a tag: a tag is at most 40 letters, digits, spaces, hyphens, dots, "
    "“+” or “#”, starting with a letter or digit."
)
TOO_MANY_TAGS = _("A post can have at most %(limit)d tags.")
BAD_PUBLISH_TIME = _(
    "Give the publish time as year-month-day and hour:minute on a 24-hour clock, "
    "such as 2026-05-01 09:30, or leave it empty."
)
PUBLISH_TIME_HELP = _(
    "Year-month-day and hour:minute on a 24-hour clock, such as 2026-05-01 09:30, "
    "in the site's time zone ({zone}). Empty: now, when published."
)
EXCERPT_HELP = _("Shown on lists of posts. Empty: the first paragraph of the content is used.")
BAD_STATUS = _("Choose draft, scheduled or published.")
BAD_POST_STATUS = _("Choose Draft or Publish.")

BAD_LANGUAGE = _("Choose one of the site's languages.")
NO_SUCH_COVER = _("Choose a picture from the media library.")
COVER_HELP = _("Shown at the top of the post, on lists of posts, in feeds and when the post is shared.")
UNKNOWN_IMAGE = _("The picture /media/%(key)s/ is not in the media library.")
IMAGE_ALT_REQUIRED = _(
    "Give the picture /media/%(key)s/ alt text between the square brackets, ![like this](…), "
    "unless it is marked decorative in the media library."
)
# The cover field lists this many of the library's newest pictures.
COVER_CHOICES = 200
LANGUAGE_HELP = _("The language the post is written in: readers' browsers and feeds are told.")
# The publish time is typed and shown as PUBLISH_FORMAT (with seconds when a stored
# time has them); the "T" forms are what browsers' datetime-local fields send.
PUBLISH_FORMAT = "%Y-%m-%d %H:%M"
PUBLISH_FORMAT_SECONDS = "%Y-%m-%d %H:%M:%S"
PUBLISH_INPUT_FORMATS = [PUBLISH_FORMAT, PUBLISH_FORMAT_SECONDS, "%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S"]
PUBLISH_PLACEHOLDER = "2026-05-01 09:30"
# The post states as the dashboard's filter names them.
STATE_LABELS = {
    posts.DRAFT: pgettext_lazy("post state", "Draft"),
    posts.SCHEDULED: pgettext_lazy("post state", "Scheduled"),
    posts.PUBLISHED: pgettext_lazy("post state", "Published"),
}

STATUS_CHOICES = [
    (posts.DRAFT, _("Draft: only the dashboard shows it")),
    (posts.PUBLISHED, _("Publish: at the publish time if it is in the future, otherwise now")),
]


class PublishTimeInput(forms.TextInput):
    """A text field for a time as PUBLISH_FORMAT, in the site's time zone: the same
    format its help text and placeholder state, whatever the browser's language."""

    def format_value(self, value):
        if isinstance(value, datetime):
            value = timezone.localtime(value) if timezone.is_aware(value) else value
            return value.strftime(PUBLISH_FORMAT_SECONDS if value.second else PUBLISH_FORMAT)
        return super().format_value(value)


class PostForm(forms.Form):
    """A post as an editor writes it. `revision` is the version of the post the form
    was opened on, so a save cannot silently overwrite someone else's."""

    title = forms.CharField(
        label=pgettext_lazy("post field", "Title"),
        max_length=TITLE_MAX_LENGTH, error_messages={"required": EMPTY_TITLE, **too_long()}
    )
    slug = forms.CharField(
        label=pgettext_lazy("post field", "Slug"),
        required=False,
        max_length=SLUG_MAX_LENGTH,
        error_messages=too_long(),
        help_text=_("The post's address, /posts/<slug>/. Left empty, it is made from the title."),
    )
    content = forms.CharField(
        label=pgettext_lazy("post field", "Content"),
        required=False,
        max_length=CONTENT_MAX_LENGTH,
        error_messages=too_long(),
        widget=forms.Textarea(attrs={"rows": 18}),
        help_text=_("Markdown."),
    )
    excerpt = forms.CharField(
        label=pgettext_lazy("post field", "Excerpt"),
        required=False,
        max_length=EXCERPT_MAX_LENGTH,
        error_messages=too_long(),
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=EXCERPT_HELP,
    )
    tags = forms.CharField(
        label=pgettext_lazy("post field", "Tags"),
        required=False,
        max_length=TAGS_MAX_LENGTH,
        error_messages=too_long(),
        help_text=_("Separated by commas."),
    )
    status = forms.ChoiceField(
        label=pgettext_lazy("post field", "Status"),
        choices=STATUS_CHOICES,
        initial=posts.DRAFT,
        widget=forms.RadioSelect,
        error_messages={"invalid_choice": BAD_POST_STATUS},
    )
    published = forms.DateTimeField(
        required=False,
        label=_("Publish time"),
        input_formats=PUBLISH_INPUT_FORMATS,
        error_messages={"invalid": BAD_PUBLISH_TIME},
        widget=PublishTimeInput(attrs={"placeholder": PUBLISH_PLACEHOLDER, "autocomplete": "off"}),
    )
    # Choices and the default are the site's languages, set per form (settings).
    language = forms.ChoiceField(
        label=_("Language"),
        required=False,
        help_text=LANGUAGE_HELP,
        error_messages={"invalid_choice": BAD_LANGUAGE},
    )
    cover = forms.CharField(
        label=_("Cover image"), required=False, help_text=COVER_HELP,
        widget=forms.Select, error_messages={"invalid_choice": NO_SUCH_COVER},
    )
    revision = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)

    def __init__(self, *args, stored: datetime | None = None, covers: Sequence[library.Image] = (), **kwargs):
        """`stored`: the publish time of the post being edited, kept as it is when
        the form sends it back unchanged (the field shows it to the second).
        `covers`: the library pictures the cover field offers (`cover_choices`)."""
        super().__init__(*args, **kwargs)
        self.stored = stored
        # Settings are read per form, not at import: the zone is the site's now.
        self.fields["published"].help_text = PUBLISH_TIME_HELP.format(
            zone=timezone.get_current_timezone_name()
        )
        self.fields["language"].choices = settings.LANGUAGES
        self.fields["language"].initial = settings.LANGUAGE_CODE
        self.fields["cover"].widget.choices = [("", _("None"))] + [
            (image.key, image.name + (f" ({image.alt})" if image.alt else "")) for image in covers
        ]

    def clean_cover(self) -> str:
        key = self.cleaned_data["cover"].strip()
        if key and library.get_by_key(key) is None:
            raise forms.ValidationError(NO_SUCH_COVER, code="no_such_cover")
        return key

    def clean_content(self) -> str:
        """Every library picture the Markdown shows is in the library, with alt text
        unless the library marks it decorative."""
        content = self.cleaned_data["content"]
        shown = references.referenced(content)
        found = library.find_by_keys(key for key, _alt in shown)
        for key, alt in shown:
            if key not in found:
                raise forms.ValidationError(UNKNOWN_IMAGE, code="unknown_image", params={"key": key})
            if not alt and not found[key].decorative:
                raise forms.ValidationError(IMAGE_ALT_REQUIRED, code="image_alt_required", params={"key": key})
        return content

    def clean_published(self) -> datetime | None:
        published = self.cleaned_data["published"]
        stored = self.stored
        if published is not None and stored is not None and published == stored.replace(microsecond=0):
            return stored
        return published

    def clean_slug(self) -> str:
        slug = unicodedata.normalize("NFC", self.cleaned_data["slug"].strip())
        if slug and not slugs.is_slug(slug):
            raise forms.ValidationError(BAD_SLUG, code="bad_slug")
        return slug

    def clean_language(self) -> str:
        """Left out (a form from before posts had a language): the site's."""
        return self.cleaned_data["language"] or settings.LANGUAGE_CODE

    def clean_tags(self) -> tuple[str, ...]:
        tags: list[str] = []
        for raw in self.cleaned_data["tags"].split(","):
            tag = " ".join(raw.split())
            if not tag or tag in tags:
                continue
            if not is_tag(tag):
                raise forms.ValidationError(
                    BAD_TAG, code="bad_tag", params={"tag": tag[: TAG_MAX_LENGTH + 10]}
                )
            tags.append(tag)
        if len(tags) > MAX_TAGS:
            raise forms.ValidationError(TOO_MANY_TAGS, code="too_many_tags", params={"limit": MAX_TAGS})
        return tuple(tags)

    @classmethod
    def initial_for(cls, post: posts.Post) -> dict:
        """The form's values for editing `post` (a scheduled post shows as "Publish")."""
        return {
            "title": post.title,
            "slug": post.slug,
            "content": post.content,
            "excerpt": post.excerpt,
            "tags": ", ".join(post.tags),
            "status": posts.DRAFT if post.status == posts.DRAFT else posts.PUBLISHED,
            "published": post.published,
            "revision": post.revision,
            "language": post.language,
            "cover": post.cover,
        }

    def post_fields(self) -> dict:
        """The cleaned values as the services' create_post and edit_post take them."""
        data = self.cleaned_data
        return {
            "title": data["title"],
            "slug": data["slug"],
            "content": data["content"],
            "excerpt": data["excerpt"],
            "tags": data["tags"],
            "status": data["status"],
            "publish_at": data["published"],
            "language": data["language"],
            "cover": data["cover"],
        }


def cover_choices(current: str = "") -> list[library.Image]:
    """The pictures a post's cover field offers: the library's newest, and the
    post's own cover when it is older than those."""
    newest = library.find_images(limit=COVER_CHOICES)
    chosen = library.get_by_key(current) if current and current not in {i.key for i in newest} else None
    return newest + ([chosen] if chosen else [])


class PostFilterForm(forms.Form):
    """The dashboard's post list: by status as readers see it (draft, scheduled,
    published) and by words in the title."""

    status = forms.ChoiceField(
        label=pgettext_lazy("post field", "Status"),
        required=False,
        choices=[("", pgettext_lazy("posts", "All")), *STATE_LABELS.items()],
        error_messages={"invalid_choice": BAD_STATUS},
    )
    q = forms.CharField(
        required=False, max_length=SEARCH_MAX_LENGTH, label=_("Title contains"), error_messages=too_long()
    )
