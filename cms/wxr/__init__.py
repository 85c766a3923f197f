"""WordPress's export (WXR) in: its posts with their comments, or only the comments
onto posts already here (`import_comments --format wordpress`).

WXR is RSS 2.0 with WordPress's own namespace: the channel names the site
(`wp:base_site_url`) and lists its authors (`wp:author`), then has one `<item>` per
post, page, attachment and so on, each holding its fields (`wp:post_type`,
`wp:post_name`, `wp:status`, `content:encoded`, `dc:creator`,
`<category domain="post_tag|category">`) and its comments (`wp:comment`: id, author,
e-mail, URL, IP, `date_gmt`, content, `approved`, parent, type).

The package has one module per job: parse.py reads the file, content.py turns
WordPress's HTML into what we store, records.py makes one comment a record for the
import engine, importer.py imports.

The file is streamed through the import engine's XML reader (`read_xml`, public in
comments.api, as is everything here the comments app gives an import format): one item at a time, each dropped once handed on, so memory is that of
the largest post with its comments, not of the file; no entity is ever resolved (a
file that declares one, or names an external DTD, is refused). Each item's comments
are handed to the engine together once the item is read, so a malformed file stops
with its line and reason, having written only whole posts.

What is imported, and why:
- Only items of type `post`. Pages are a site's fixed pages (about, contact):
  Slugline has no such thing, and as posts they would join the front page, the
  feeds and the sitemap. Attachments, menu items and revisions are not content.
  Every item left out is counted by type.
- A post keeps its slug (`wp:post_name`, made URL-safe when it is not; a post
  already here with that slug is the same post, so it is never created twice), its
  status (published, scheduled, else a draft; trashed posts are left out), times,
  tags (WordPress tags and categories, not its default "Uncategorized"), excerpt and
  author (found by login among Slugline's authors, else created from the export's
  author list: a profile without a password or dashboard access).
- A post's body becomes Markdown (`content.html_to_markdown`, through the site's one
  HTML -> Markdown path, infra/html_markdown.py), since the body is what its
  author edits next; what Markdown cannot say (tables, figures) stays HTML, which
  the post renderer sanitises like any HTML in a post.
- Comments go through the engine: statuses 1/0/spam/trash become
  approved/pending/spam/deleted; pingbacks and trackbacks are skipped and counted;
  times are UTC from `date_gmt`, or, where the export has the zero date there, the
  local `date` moved by the post's own offset from UTC (reported).
"""
