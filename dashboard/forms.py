"""The dashboard's forms. They own validation; every error has a code, and the
messages tests check are the constants below."""

import re
import unicodedata
from collections.abc import Sequence
from datetime import datetime

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.validators import URLValidator
from django.utils import timezone
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from cms import posts, slugs
from cms.authors import USERNAME_TAKEN
from cms.posts import EXCERPT_MAX_LENGTH, MAX_TAGS, SLUG_MAX_LENGTH, TAG_MAX_LENGTH, is_tag  # noqa: F401
from infra.ids import parse_id
from media import library, references

TITLE_MAX_LENGTH = 200
CONTENT_MAX_LENGTH = 100_000
TAGS_MAX_LENGTH = 500
SEARCH_MAX_LENGTH = 100

EMPTY_TITLE = _("Give the post a title.")
TOO_LONG = _("This can be at most %(limit_value)d characters; it has %(show_value)d.")
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
DISPLAY_NAME_REQUIRED = _("Give the name readers will see.")
BAD_AVATAR_URL = _("Give the picture's address as a full http:// or https:// URL.")

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


def _too_long() -> dict:
    return {"max_length": TOO_LONG}


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
        max_length=TITLE_MAX_LENGTH, error_messages={"required": EMPTY_TITLE, **_too_long()}
    )
    slug = forms.CharField(
        label=pgettext_lazy("post field", "Slug"),
        required=False,
        max_length=SLUG_MAX_LENGTH,
        error_messages=_too_long(),
        help_text=_("The post's address, /posts/<slug>/. Left empty, it is made from the title."),
    )
    content = forms.CharField(
        label=pgettext_lazy("post field", "Content"),
        required=False,
        max_length=CONTENT_MAX_LENGTH,
        error_messages=_too_long(),
        widget=forms.Textarea(attrs={"rows": 18}),
        help_text=_("Markdown."),
    )
    excerpt = forms.CharField(
        label=pgettext_lazy("post field", "Excerpt"),
        required=False,
        max_length=EXCERPT_MAX_LENGTH,
        error_messages=_too_long(),
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=EXCERPT_HELP,
    )
    tags = forms.CharField(
        label=pgettext_lazy("post field", "Tags"),
        required=False,
        max_length=TAGS_MAX_LENGTH,
        error_messages=_too_long(),
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
        required=False, max_length=SEARCH_MAX_LENGTH, label=_("Title contains"), error_messages=_too_long()
    )


class ProfileForm(forms.Form):
    """An author's public profile: what readers see on posts and the author page."""

    display_name = forms.CharField(
        label=_("Display name"),
        max_length=100, error_messages={"required": DISPLAY_NAME_REQUIRED, **_too_long()}
    )
    bio = forms.CharField(
        label=_("Bio"), required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 5}), error_messages=_too_long()
    )
    avatar_url = forms.URLField(
        required=False,
        max_length=200,
        label=_("Picture URL"),
        assume_scheme="https",
        validators=[URLValidator(schemes=["http", "https"], message=BAD_AVATAR_URL, code="bad_url")],
        error_messages={"invalid": BAD_AVATAR_URL, **_too_long()},
    )


class AuthorForm(ProfileForm):
    """An editor's view of an author: the profile, and the username (a rename)."""

    username = forms.CharField(
        label=_("Username"),
        max_length=150,
        validators=[UnicodeUsernameValidator()],
        error_messages=_too_long(),
        help_text=_("Letters, digits and @ . + - _ only. The old author address will redirect here."),
    )
    field_order = ["username", "display_name", "bio", "avatar_url"]

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_username(self) -> str:
        username = self.cleaned_data["username"]
        if get_user_model().objects.filter(username=username).exclude(pk=self.user.pk).exists():
            raise forms.ValidationError(gettext(USERNAME_TAKEN), code="username_taken")
        return username


# --- Moderating comments (editors) -----------------------------------------------------

BAD_TAB = _("Choose pending, flagged, spam or recent.")
NO_SUCH_POST_SLUG = _("No post has this slug.")
BAD_IP = _("Give an IPv4 or IPv6 address.")
NOTHING_CHOSEN = _("Choose at least one comment, then an action.")
BAD_CHOICE = _("That is not a comment of this queue; reload the page and try again.")
BAD_DOMAIN = _("Give a domain such as example.com.")
EMPTY_TERM = _("Give a word, a phrase or a domain.")
MAX_CHOSEN = 200

QUEUE_TABS = [
    ("pending", pgettext_lazy("comment queue", "Pending")),
    ("flagged", pgettext_lazy("comment queue", "Flagged")),
    ("spam", pgettext_lazy("comment queue", "Spam")),
    ("recent", pgettext_lazy("comment queue", "Recent")),
    ("downvoted", pgettext_lazy("comment queue", "Most down-voted")),
]
DOMAIN_RE = re.compile(r"@?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}", re.IGNORECASE)


class QueueFilterForm(forms.Form):
    """The moderation queue: a tab, and comments on one post, by an author name, an
    e-mail address or an IP address."""

    tab = forms.ChoiceField(
        required=False, choices=QUEUE_TABS, widget=forms.HiddenInput,
        error_messages={"invalid_choice": BAD_TAB},
    )
    post = forms.CharField(
        required=False, max_length=SLUG_MAX_LENGTH, label=_("Post (its slug)"), error_messages=_too_long()
    )
    name = forms.CharField(
        required=False, max_length=SEARCH_MAX_LENGTH, label=_("Author name contains"), error_messages=_too_long()
    )
    email = forms.CharField(
        required=False, max_length=254, label=_("E-mail address"), error_messages=_too_long()
    )
    ip = forms.GenericIPAddressField(required=False, label=_("IP address"), error_messages={"invalid": BAD_IP})

    def clean_post(self) -> posts.Post | None:
        slug = self.cleaned_data["post"].strip()
        if not slug:
            return None
        slug = unicodedata.normalize("NFC", slug)
        post = posts.get_by_slug(slug) if slugs.is_slug(slug) else None
        if post is None:
            raise forms.ValidationError(NO_SUCH_POST_SLUG, code="no_such_post")
        return post


class ObjectIdsField(forms.Field):
    """A list of MongoDB ids from checkboxes; anything else is refused."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value) -> list:
        values = value if isinstance(value, (list, tuple)) else ([value] if value else [])
        if len(values) > MAX_CHOSEN:
            raise forms.ValidationError(BAD_CHOICE, code="too_many")
        ids = [parse_id(v) for v in values]
        if None in ids:
            raise forms.ValidationError(BAD_CHOICE, code="bad_id")
        return ids


class ModerationForm(forms.Form):
    """A queue action: approve, spam or delete the chosen comments (bulk), or, from
    one comment's row, remove its sub-thread or ban its author."""

    action = forms.ChoiceField(
        required=False,
        choices=[
            ("approve", pgettext_lazy("moderation action", "Approve")),
            ("spam", pgettext_lazy("moderation action", "Spam")),
            ("delete", pgettext_lazy("moderation action", "Delete")),
        ],
        error_messages={"invalid_choice": NOTHING_CHOSEN},
    )
    ids = ObjectIdsField(required=False)
    # One comment's own button: "thread:<id>", "ban:<id>", "pick:<id>" or "unpick:<id>".
    one = forms.CharField(required=False, max_length=40)
    next = forms.CharField(required=False, max_length=2000)
    # Sent by the confirmation page's button: spam, delete, thread and ban happen only then.
    confirmed = forms.BooleanField(required=False)

    def clean(self):
        data = super().clean()
        one = data.get("one") or ""
        if one:
            kind, _, raw = one.partition(":")
            ids = ObjectIdsField().clean([raw]) if kind in ("thread", "ban", "pick", "unpick") and raw else None
            if not ids:
                raise forms.ValidationError(BAD_CHOICE, code="bad_choice")
            data["action"], data["ids"] = kind, ids
        elif not data.get("action") or not data.get("ids"):
            raise forms.ValidationError(NOTHING_CHOSEN, code="nothing_chosen")
        return data


class BlocklistForm(forms.Form):
    """A blocked word or phrase, or a blocked e-mail domain: comments with it wait
    for an editor."""

    kind = forms.ChoiceField(
        label=pgettext_lazy("blocklist entry", "Kind"),
        choices=[("word", _("Word or phrase in the text")), ("domain", _("E-mail domain"))],
        widget=forms.RadioSelect, initial="word",
    )
    value = forms.CharField(max_length=100, label=_("Word, phrase or domain"),
                            error_messages={"required": EMPTY_TERM, **_too_long()})

    def clean(self):
        data = super().clean()
        value = " ".join(data.get("value", "").split())
        if data.get("kind") == "domain" and value and not DOMAIN_RE.fullmatch(value):
            self.add_error("value", forms.ValidationError(BAD_DOMAIN, code="bad_domain"))
        data["value"] = value
        return data


class CommentsClosedForm(forms.Form):
    """A post's discussion: open to new comments, or closed."""

    closed = forms.BooleanField(required=False)
