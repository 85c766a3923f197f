"""The blog's posts (the `posts` collection), one module per job:

- store: the collection, its indexes, `Post` and `AuthorSummary`, the rules a post's
  fields keep, and the writes of a post's own fields;
- summaries: what lists show of a post (pure functions of its HTML);
- search: the folded copy of a post's text search matches, and its backfill;
- pictures: the library pictures a post shows (`media`), and their backfill;
- backfill: rewriting what a post stores about its text when its making changes;
- reading: what readers see (every query through the one published filter);
- dashboard: the editors' lists of posts in any state;
- author_copies: the author summary every post embeds, rewritten on renames;
- comment_summary: the comment count, latest comments and comments version a post
  carries for the comments app, and the buckets store's page counter.

The names call sites use are re-exported here, so callers keep reading as
`posts.get_by_slug(...)`, `posts.Post`: what a post is matters to them, not which
module of the package answers. Patch a function where it is defined (its module),
not here, when a test must replace it for calls made inside the package.
"""

from cms.posts.author_copies import distinct_authors, set_author
from cms.posts.comment_summary import (
    find_comment_summaries,
    store_comment_summary,
)
from cms.posts.dashboard import contains, count_dashboard, dashboard_page
from cms.posts.reading import (
    NEWEST_PUBLISHED,
    PostLink,
    author_published_page,
    count_author_published,
    count_published,
    count_search_published,
    count_tag_published,
    find_published_by_slugs,
    get_published,
    newest_published,
    published_author_usernames,
    published_filter,
    published_links,
    published_page,
    published_tags,
    search_published_page,
    tag_published_page,
)
from cms.posts.pictures import MEDIA_VERSION, backfill_media, media_keys
from cms.posts.search import SEARCH_VERSION, backfill_search_text, search_text
from cms.posts.store import (
    DRAFT,
    EXCERPT_MAX_LENGTH,
    INDEXES,
    MAX_TAGS,
    PUBLISHED,
    SCHEDULED,
    SLUG_MAX_LENGTH,
    STATES,
    TAG_MAX_LENGTH,
    TAG_PUNCTUATION,
    USING_SHOWN,
    AuthorSummary,
    Post,
    create_post,
    ensure_indexes,
    find_by_ids,
    get_by_id,
    get_by_slug,
    is_empty,
    is_tag,
    publish_due,
    set_comments_closed,
    to_millisecond,
    update_post,
    using_media,
)
from cms.posts.summaries import ELLIPSIS, SUMMARY_LENGTH, first_paragraph, plain, shorten, summarise

__all__ = [
    "DRAFT", "ELLIPSIS", "EXCERPT_MAX_LENGTH", "INDEXES", "MAX_TAGS", "NEWEST_PUBLISHED", "PUBLISHED",
    "MEDIA_VERSION", "SCHEDULED", "SEARCH_VERSION", "SLUG_MAX_LENGTH", "STATES", "SUMMARY_LENGTH", "TAG_MAX_LENGTH",
    "TAG_PUNCTUATION", "USING_SHOWN", "AuthorSummary", "Post", "PostLink",
    "author_published_page", "backfill_media", "backfill_search_text", "contains",
    "count_author_published", "count_dashboard", "count_published", "count_search_published",
    "count_tag_published", "create_post", "dashboard_page", "distinct_authors", "ensure_indexes",
    "find_by_ids", "find_comment_summaries", "find_published_by_slugs", "first_paragraph", "get_by_id",
    "store_comment_summary",
    "get_by_slug", "get_published", "is_empty", "is_tag", "media_keys",
    "newest_published", "plain", "publish_due", "published_author_usernames", "published_filter",
    "published_links", "published_page", "published_tags", "search_published_page",
    "search_text", "set_author", "set_comments_closed", "shorten",
    "summarise", "tag_published_page", "to_millisecond", "update_post", "using_media",
]
