"""What lists show of a post: its own excerpt, else its first paragraph, as plain text
cut at a word boundary (cms.posts.summarise and its parts)."""


from cms import posts


def test_an_excerpt_is_stored_read_back_and_edited(make_post):
    """create_post and update_post store it; a post stored without one reads as ""."""
    post = make_post(excerpt="A short pitch.", content="Long body.")
    assert posts.get_by_id(post.id).excerpt == "A short pitch."
    assert posts.get_by_id(post.id).summary == "A short pitch."
    edited = posts.update_post(
        post_id=post.id, revision=post.revision, title=post.title, slug=post.slug, content=post.content,
        tags=post.tags, status=post.status, published=post.published, excerpt="A better pitch.",
    )
    assert edited.excerpt == "A better pitch."
    plain = make_post(content="Just the body.")
    assert plain.excerpt == "" and plain.summary == "Just the body."


def test_a_post_stored_before_excerpts_reads_as_without_one(make_post, mongo_db):
    post = make_post(content="Old body.")
    mongo_db.posts.update_one({"_id": post.id}, {"$unset": {"excerpt": ""}})
    old = posts.get_by_id(post.id)
    assert old.excerpt == "" and old.summary == "Old body."
