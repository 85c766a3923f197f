"""Writing posts: scheduling, slugs, edits that keep versions, restores and stale edits."""

import re
import threading
from datetime import datetime, timedelta, timezone

import pytest

from cms import posts, versions
from dashboard import services
from dashboard.services import RESTORE_SLUG_TAKEN, SLUG_TAKEN, STALE_EDIT, PostError

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=timezone.utc)
ADA = posts.AuthorSummary(id=41, username="ada", name="Ada")


def test_schedule_decides_status_and_time():
    """Draft keeps its time; publish in the future schedules; otherwise published, now by default."""
    later, earlier = NOW + timedelta(hours=1), NOW - timedelta(hours=1)
    assert services.schedule(wanted=posts.DRAFT, publish_at=later, now=NOW) == (posts.DRAFT, later)
    assert services.schedule(wanted=posts.PUBLISHED, publish_at=later, now=NOW) == (posts.SCHEDULED, later)
    assert services.schedule(wanted=posts.PUBLISHED, publish_at=earlier, now=NOW) == (
        posts.PUBLISHED,
        earlier,
    )
    assert services.schedule(wanted=posts.PUBLISHED, publish_at=None, now=NOW) == (posts.PUBLISHED, NOW)


@pytest.mark.parametrize(
    "title,slug",
    [
        ("Hello, World!", "hello-world"),
        ("Đường về Hà Nội", "duong-ve-ha-noi"),
        ("日本語", "日本語"),
        ("हिन्दी में लेख", "हिन्दी-में-लेख"),
        ("  --  ", "post"),
        ("x" * 100, "x" * services.GENERATED_SLUG_LENGTH),
    ],
)
def test_slugs_from_titles_fold_latin_keep_other_scripts_and_are_bounded(title, slug):
    """Latin titles become ASCII, other scripts stay (cms/slugs.py); titles with
    nothing to keep fall back to "post"; long titles are cut."""
    assert services.slug_from_title(title) == slug


def create(**overrides) -> posts.Post:
    fields = {
        "author": ADA,
        "title": "Title",
        "slug": "",
        "content": "text",
        "tags": ("t",),
        "status": posts.DRAFT,
        "publish_at": None,
        "now": NOW,
    }
    fields.update(overrides)
    return services.create_post(**fields)


def test_create_generates_free_slugs_and_refuses_a_chosen_taken_one():
    """Generated slugs count up; a slug the editor typed is theirs or an error."""
    assert [create().slug for _ in range(3)] == ["title", "title-2", "title-3"]
    with pytest.raises(PostError, match=re.escape(SLUG_TAKEN)):
        create(slug="title")


def test_create_schedules_a_future_post():
    """Publish at a future time: scheduled, invisible, created now."""
    post = create(status=posts.PUBLISHED, publish_at=datetime.now(timezone.utc) + timedelta(days=1))
    assert post.status == posts.SCHEDULED and posts.get_published(post.slug) is None


def edit(post, **overrides) -> posts.Post:
    fields = {
        "post": post,
        "revision": post.revision,
        "editor": "bruno",
        "title": post.title,
        "slug": post.slug,
        "content": post.content,
        "excerpt": post.excerpt,
        "tags": post.tags,
        "status": post.status,
        "publish_at": post.published,
    }
    fields.update(overrides)
    return services.edit_post(**fields)


def test_an_edit_keeps_the_previous_version():
    """The post as it was is saved, by whom, before the change."""
    post = posts.get_by_id(create().id)
    saved = edit(post, content="changed")
    [version] = versions.find_versions(post_id=post.id)
    assert (version.content, version.saved_by, saved.content, saved.revision) == (
        "text",
        "bruno",
        "changed",
        2,
    )


def test_an_edit_with_an_empty_slug_regenerates_it_from_the_title():
    """The post's own slug counts as free."""
    post = posts.get_by_id(create(title="Same").id)
    assert edit(post, slug="").slug == "same"
    other = posts.get_by_id(create(title="Other").id)
    assert edit(other, slug="", title="Same").slug == "same-2"


def test_an_edit_from_an_old_revision_is_refused():
    """Someone saved since the editor opened the post: nothing is saved, no version kept."""
    post = posts.get_by_id(create().id)
    edit(post, content="first save")
    with pytest.raises(PostError, match=re.escape(STALE_EDIT)):
        edit(posts.get_by_id(post.id), revision=post.revision, content="second save")
    assert (
        posts.get_by_id(post.id).content == "first save" and len(versions.find_versions(post_id=post.id)) == 1
    )


def test_a_lost_race_between_check_and_save_is_refused(monkeypatch):
    """The revision in the update's filter is the real guard; the version kept for the
    refused save goes again."""
    post = posts.get_by_id(create().id)
    monkeypatch.setattr(posts, "update_post", lambda **kwargs: None)
    with pytest.raises(PostError, match=re.escape(STALE_EDIT)):
        edit(post, content="lost")
    assert versions.find_versions(post_id=post.id) == []


def test_an_edit_to_a_taken_slug_is_refused():
    """No version, no change."""
    create(slug="taken")
    post = posts.get_by_id(create(slug="mine").id)
    with pytest.raises(PostError, match=re.escape(SLUG_TAKEN)):
        edit(post, slug="taken", content="changed")
    assert versions.find_versions(post_id=post.id) == []
    assert posts.get_by_id(post.id) == post


def test_two_editors_taking_one_slug_at_once_get_it_once():
    """The unique index, not a look-up before the save, decides: of six edits to the
    same free slug at the same moment, one saves and five are refused as taken."""
    rivals = [posts.get_by_id(create(slug=f"rival-{n}").id) for n in range(6)]
    barrier, outcomes = threading.Barrier(len(rivals)), []

    def take(post):
        barrier.wait()
        try:
            outcomes.append(edit(post, slug="wanted").slug)
        except PostError as exc:
            outcomes.append(exc.code)

    threads = [threading.Thread(target=take, args=(post,)) for post in rivals]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["slug_taken"] * 5 + ["wanted"]
    assert sum(len(versions.find_versions(post_id=post.id)) for post in rivals) == 1


def test_an_edit_with_an_empty_slug_takes_the_next_free_one():
    """Generated slugs skip those other posts have, as on creation."""
    create(title="Busy")
    create(title="Busy")
    post = posts.get_by_id(create(title="Quiet").id)
    assert edit(post, slug="", title="Busy").slug == "busy-3"


def test_restore_puts_back_text_fields_and_keeps_the_publication():
    """Title, slug, content and tags come back; status and time stay; the replaced text is kept."""
    post = posts.get_by_id(create(title="One", content="first").id)
    edit(post, title="Two", slug="two", content="second", tags=("u",), status=posts.PUBLISHED, publish_at=NOW)
    [version] = versions.find_versions(post_id=post.id)
    current = posts.get_by_id(post.id)
    restored = services.restore_version(post=current, version=version, editor="ada")
    assert (restored.title, restored.slug, restored.content, restored.tags) == ("One", "one", "first", ("t",))
    assert (restored.status, restored.published) == (posts.PUBLISHED, NOW)
    assert [v.title for v in versions.find_versions(post_id=post.id)] == ["Two", "One"]


def test_restore_puts_back_the_language_and_a_version_without_one_reads_as_the_sites(mongo_db, settings):
    """A version keeps the post's language and a restore puts it back; a version kept
    before posts had a language reads as LANGUAGE_CODE."""
    post = posts.get_by_id(create(title="Một", language="vi").id)
    edit(post, title="Ek", language="hi")
    [version] = versions.find_versions(post_id=post.id)
    assert version.language == "vi"
    restored = services.restore_version(post=posts.get_by_id(post.id), version=version, editor="ada")
    assert restored.language == "vi"
    mongo_db.post_versions.update_many({}, {"$unset": {"language": ""}})
    settings.LANGUAGE_CODE = "id"
    assert {v.language for v in versions.find_versions(post_id=post.id)} == {"id"}


def test_restoring_a_slug_now_taken_is_refused():
    """Another post has the version's slug now."""
    post = posts.get_by_id(create(slug="first-slug").id)
    edit(post, slug="second-slug")
    create(slug="first-slug")
    [version] = versions.find_versions(post_id=post.id)
    with pytest.raises(PostError, match=re.escape(RESTORE_SLUG_TAKEN)):
        services.restore_version(post=posts.get_by_id(post.id), version=version, editor="ada")
    assert versions.find_versions(post_id=post.id) == [version]


def test_an_edit_of_the_excerpt_alone_keeps_a_version_and_a_restore_puts_it_back(mongo_db):
    """The excerpt is one of the fields an edit compares, keeps and restores."""
    post = create(excerpt="First.")
    assert post.excerpt == "First."
    changed = edit(post, excerpt="Second.")
    assert changed.excerpt == "Second." and changed.revision == post.revision + 1
    [version] = versions.find_versions(post_id=post.id)
    assert version.excerpt == "First."
    restored = services.restore_version(post=changed, version=version, editor="ada")
    assert restored.excerpt == "First."
