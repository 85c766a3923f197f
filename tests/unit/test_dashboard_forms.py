"""The dashboard's forms: what they accept, how they normalise it, and the codes of
what they refuse."""

from datetime import datetime, timezone

import pytest

from cms import posts
from dashboard import author_forms, post_forms
from dashboard.author_forms import ProfileForm
from dashboard.post_forms import PostFilterForm, PostForm


def post_form(**overrides) -> PostForm:
    return PostForm({"title": "Title", "status": "draft", **overrides})


def codes(form) -> dict[str, list[str]]:
    return {field: [e.code for e in errors] for field, errors in form.errors.as_data().items()}


def test_tags_are_trimmed_deduplicated_and_kept_in_order():
    """Commas separate; spaces inside a tag collapse; empty and repeated tags drop out."""
    form = post_form(tags=" web ,  threaded   comments,, web, c#, node.js ")
    assert form.is_valid()
    assert form.cleaned_data["tags"] == ("web", "threaded comments", "c#", "node.js")


def test_tags_in_any_script_are_accepted():
    """Devanagari vowel signs are combining marks, part of the letters: a Hindi tag passes."""
    form = post_form(tags="मॉडरेशन, bình luận, 日本語")
    assert form.is_valid(), form.errors
    assert form.cleaned_data["tags"] == ("मॉडरेशन", "bình luận", "日本語")


@pytest.mark.parametrize("tag", ["a/b", "-dash-first", "x" * 41, "<b>", "what?", "\u094dx"])
def test_malformed_tags_are_refused(tag):
    """A tag starts with a letter or digit and has no slashes, markup or punctuation."""
    form = post_form(tags=f"ok, {tag}")
    assert not form.is_valid() and codes(form) == {"tags": ["bad_tag"]}


def test_an_over_long_tags_field_is_refused_before_it_is_split():
    """The raw field is bounded too."""
    assert codes(post_form(tags="a," * 300)) == {"tags": ["max_length"]}


def test_more_than_ten_tags_are_refused():
    """Ten is the limit."""
    assert post_form(tags=",".join(f"t{n}" for n in range(10))).is_valid()
    form = post_form(tags=",".join(f"t{n}" for n in range(11)))
    assert codes(form) == {"tags": ["too_many_tags"]}


@pytest.mark.parametrize(
    "slug,valid",
    [
        ("", True),
        ("my-post_2", True),
        ("with space", False),
        ("ünïcode", True),
        ("नमस्ते-दुनिया", True),
        ("what?", False),
        ("a.b", False),
        ("a/b", False),
        ("x" * 80, True),
        ("x" * 81, False),
    ],
)
def test_slugs_are_url_safe(slug, valid):
    """Letters (of any script), digits, hyphens and underscores, at most 80; empty
    means generate one."""
    assert post_form(slug=slug).is_valid() == valid


def test_each_refusal_has_a_code():
    """Empty title, over-long fields, a bad time, an unknown status."""
    form = PostForm(
        {
            "title": "",
            "content": "x" * (post_forms.CONTENT_MAX_LENGTH + 1),
            "published": "tomorrow",
            "status": "live",
        }
    )
    assert codes(form) == {
        "title": ["required"],
        "content": ["max_length"],
        "published": ["invalid"],
        "status": ["invalid_choice"],
    }
    assert form.errors["title"] == [post_forms.EMPTY_TITLE] and form.errors["published"] == [
        post_forms.BAD_PUBLISH_TIME
    ]


def test_publish_times_are_read_in_the_sites_time_zone(settings):
    """datetime-local values carry no zone: TIME_ZONE gives them one."""
    settings.TIME_ZONE = "Europe/Paris"
    form = post_form(published="2026-07-01T12:00:00")
    assert form.is_valid()
    assert form.cleaned_data["published"] == datetime(2026, 7, 1, 10, 0, tzinfo=timezone.utc)


def test_initial_values_show_a_scheduled_post_as_publish():
    """The form has two choices: a scheduled post shows as Publish, with its time."""
    from bson import ObjectId

    when = datetime(2026, 7, 1, 10, 0, tzinfo=timezone.utc)
    post = posts.Post(
        id=ObjectId(),
        title="T",
        slug="t",
        content="c",
        content_html="",
        created=when,
        published=when,
        status=posts.SCHEDULED,
        author=posts.AuthorSummary(1, "a", "A"),
        tags=("x", "y"),
        revision=3,
    )
    initial = PostForm.initial_for(post)
    assert initial["status"] == posts.PUBLISHED and initial["tags"] == "x, y" and initial["revision"] == 3


def test_the_filter_accepts_the_three_states_and_nothing_else():
    """draft, scheduled, published or all; anything else has a code."""
    for state in ("", *posts.STATES):
        assert PostFilterForm({"status": state}).is_valid()
    form = PostFilterForm({"status": "deleted"})
    assert codes(form) == {"status": ["invalid_choice"]} and form.errors["status"] == [post_forms.BAD_STATUS]


@pytest.mark.parametrize(
    "url,valid",
    [
        ("", True),
        ("https://example.com/a.png", True),
        ("http://example.com/a", True),
        ("javascript:alert(1)", False),
        ("ftp://example.com/a", False),
        ("not a url", False),
    ],
)
def test_avatar_urls_are_web_addresses(url, valid):
    """Only http(s) pictures."""
    assert ProfileForm({"display_name": "Ada", "avatar_url": url}).is_valid() == valid


def test_a_display_name_is_required():
    """Readers need a name to see."""
    form = ProfileForm({"display_name": ""})
    assert codes(form) == {"display_name": ["required"]} and form.errors["display_name"] == [
        author_forms.DISPLAY_NAME_REQUIRED
    ]


# --- Moderation forms ---------------------------------------------------------------------

from bson import ObjectId  # noqa: E402

from comments.moderation.forms import BAD_CHOICE, BAD_DOMAIN, NOTHING_CHOSEN, BlocklistForm, ModerationForm  # noqa: E402


def test_a_bulk_action_needs_an_action_and_comments():
    """Approve, spam or delete with at least one well-formed id; anything less says why."""
    chosen = [str(ObjectId()), str(ObjectId())]
    form = ModerationForm({"action": "spam", "ids": chosen})
    assert form.is_valid() and form.cleaned_data["ids"] == [ObjectId(i) for i in chosen]
    for data in ({"action": "spam"}, {"ids": chosen}):
        form = ModerationForm(data)
        assert not form.is_valid() and form.non_field_errors() == [NOTHING_CHOSEN]
    form = ModerationForm({"action": "spam", "ids": ['{"$ne": null}']})
    assert not form.is_valid() and form.errors["ids"] == [BAD_CHOICE]


def test_a_rows_own_button_names_its_action_and_comment():
    """one=ban:<id> or thread:<id> becomes that action on that comment; anything else is refused."""
    oid = ObjectId()
    form = ModerationForm({"one": f"ban:{oid}"})
    assert form.is_valid() and (form.cleaned_data["action"], form.cleaned_data["ids"]) == ("ban", [oid])
    for bad in (f"drop:{oid}", "ban:", "thread:nope"):
        form = ModerationForm({"one": bad})
        assert not form.is_valid() and form.non_field_errors() == [BAD_CHOICE], bad


@pytest.mark.parametrize("value,valid", [("spam.example", True), ("@Mail.Spam.Example", True),
                                         ("not a domain", False), ("localhost", False)])
def test_a_blocked_domain_must_look_like_one(value, valid):
    """A domain entry is a dotted name (an "@" in front is fine); words take any text."""
    form = BlocklistForm({"kind": "domain", "value": value})
    assert form.is_valid() is valid
    if not valid:
        assert form.errors["value"] == [BAD_DOMAIN]
    assert BlocklistForm({"kind": "word", "value": value}).is_valid()


@pytest.mark.parametrize("typed", ["2026-07-01 12:00", "2026-07-01 12:00:00", "2026-07-01T12:00"])
def test_publish_times_are_read_as_the_help_text_states(typed, settings):
    """Year-month-day hour:minute (seconds optional), and what datetime-local fields send."""
    settings.TIME_ZONE = "UTC"
    form = post_form(published=typed)
    assert form.is_valid()
    assert form.cleaned_data["published"] == datetime(2026, 7, 1, 12, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("typed", ["01/07/2026 12:00", "2026-07-01 12:00 pm", "July 1st", "2026-07-01 25:00"])
def test_other_time_formats_are_refused_with_the_format_named(typed):
    """Day-first dates, a 12-hour clock, words or impossible times: the error shows the format."""
    form = post_form(published=typed)
    assert codes(form) == {"published": ["invalid"]}
    assert form.errors["published"] == [post_forms.BAD_PUBLISH_TIME] and "2026-05-01 09:30" in post_forms.BAD_PUBLISH_TIME


def test_a_publish_time_is_shown_in_the_sites_zone_to_the_minute_or_second(settings):
    """The field shows the time as typed: seconds only when it has some."""
    settings.TIME_ZONE = "Asia/Kolkata"
    widget = post_forms.PublishTimeInput()
    assert widget.format_value(datetime(2026, 7, 1, 12, 0, tzinfo=timezone.utc)) == "2026-07-01 17:30"
    assert widget.format_value(datetime(2026, 7, 1, 12, 0, 5, 123000, tzinfo=timezone.utc)) == "2026-07-01 17:30:05"
    assert "Asia/Kolkata" in PostForm().fields["published"].help_text


def test_an_unchanged_publish_time_keeps_the_stored_milliseconds():
    """Sent back as shown (to the second), the stored time stays; a changed one is read as typed."""
    stored = datetime(2026, 7, 1, 12, 0, 5, 123000, tzinfo=timezone.utc)
    form = PostForm({"title": "T", "status": "draft", "published": "2026-07-01 12:00:05"}, stored=stored)
    assert form.is_valid() and form.cleaned_data["published"] == stored
    moved = PostForm({"title": "T", "status": "draft", "published": "2026-07-01 12:01"}, stored=stored)
    assert moved.is_valid() and moved.cleaned_data["published"] == datetime(2026, 7, 1, 12, 1, tzinfo=timezone.utc)


def test_the_excerpt_is_optional_trimmed_and_bounded():
    """Empty is fine (lists then use the first paragraph); spaces around it go."""
    assert post_form().is_valid()
    form = post_form(excerpt="  A summary.  ")
    assert form.is_valid() and form.cleaned_data["excerpt"] == "A summary."
    assert codes(post_form(excerpt="e" * (post_forms.EXCERPT_MAX_LENGTH + 1))) == {"excerpt": ["max_length"]}
