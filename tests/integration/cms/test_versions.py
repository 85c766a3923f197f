"""The post_versions collection: what a post was before each edit."""

from datetime import datetime, timedelta, timezone

from bson import ObjectId

from cms import versions


def test_versions_are_indexed_by_post_newest_first(mongo_db):
    """A post's versions are found through {post_id, saved: -1}."""
    keys = {name: spec["key"] for name, spec in mongo_db.post_versions.index_information().items()}
    assert keys["post_saved"] == [("post_id", 1), ("saved", -1)]


def test_a_saved_version_keeps_every_editable_field(make_post):
    """Title, slug, content, tags, status and publish time come back as they were."""
    post = make_post(title="Before", content="Old text", tags=["a", "b"])
    kept = versions.save_version(post=post, saved_by="ada")
    found = versions.get_version(post_id=post.id, version_id=str(kept.id))
    assert found == kept
    assert (found.title, found.slug, found.content, found.tags) == (
        "Before",
        post.slug,
        "Old text",
        ("a", "b"),
    )
    assert (found.status, found.published, found.saved_by) == (post.status, post.published, "ada")


def test_versions_list_newest_first(make_post):
    """The latest save comes first."""
    post = make_post()
    now = datetime.now(timezone.utc)
    older = versions.save_version(post=post, saved_by="ada", at=now - timedelta(hours=1))
    newer = versions.save_version(post=post, saved_by="bruno", at=now)
    assert [v.id for v in versions.find_versions(post_id=post.id)] == [newer.id, older.id]


def test_another_posts_version_or_a_malformed_id_finds_nothing(make_post):
    """A version id only counts under its own post."""
    first, second = make_post(), make_post()
    kept = versions.save_version(post=first, saved_by="ada")
    assert versions.get_version(post_id=second.id, version_id=kept.id) is None
    assert versions.get_version(post_id=first.id, version_id="nope") is None
    assert versions.get_version(post_id=first.id, version_id=str(ObjectId())) is None


def test_a_version_keeps_the_excerpt_and_one_kept_before_excerpts_has_none(make_post, mongo_db):
    """The excerpt is kept like the other fields; a version stored without one reads as ""."""
    post = make_post(excerpt="The summary.")
    kept = versions.save_version(post=post, saved_by="ada")
    assert versions.get_version(post_id=post.id, version_id=kept.id).excerpt == "The summary."
    mongo_db.post_versions.update_one({"_id": kept.id}, {"$unset": {"excerpt": ""}})
    assert versions.get_version(post_id=post.id, version_id=kept.id).excerpt == ""
