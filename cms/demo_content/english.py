"""The demo in English: three authors, their posts about what this site is about, and
the readers who discuss them (their remarks, replies and long back-and-forths)."""

from cms.demo_content import Article, Commenter, Voice

AUTHORS = [
    ("ada", "Ada Lindqvist", "Writes about databases and the people who run them."),
    ("bruno", "Bruno Okafor", "Editor. Cares about clear sentences and fast pages."),
    ("chen", "Chen Mei", "Builds things on the web; reads the comments."),
]


def _commenter(name: str) -> Commenter:
    email = name.lower().replace(" ", ".").replace("'", "")
    return Commenter(name=name, email=f"{email}@example.com")


COMMENTERS = tuple(_commenter(name) for name in (
    "Maya Rosen", "Theo Brandt", "Priya Natarajan", "Jonas Weber", "Amara Obi",
    "Luis Ferreira", "Ines Moreau", "Kofi Mensah", "Sana Qureshi", "Oskar Lind",
    "Hannah Cole", "Dmitri Volkov", "Yuki Tanaka", "Fatima Haddad", "Sam Whitfield",
    "Noor Aziz", "Tomas Rivera", "Elif Kaya",
))

ARTICLES: tuple[Article, ...] = (
    Article(
        slug="one-document-per-comment",
        title="One document per comment, with a slug and a full slug",
        author="ada",
        tags=("storage", "threading", "mongodb"),
        excerpt=(
            "The simplest way to store comments is one document each. Two small strings, "
            "a slug and a full slug, make the threaded order a plain index scan."
        ),
        body="""\
Most comment systems start with one row or document per comment, and most of them
should stay there. Each comment is its own document in a `comments` collection, with
the id of the discussion it belongs to, its author, its text and the time it was
posted.

## The two slugs

Threading needs two extra fields. The `slug` is the path of short random parts from
the top-level comment down to this one, like `k3x7q2ab/7mfp2d4c`. The `full_slug` is
the same path with each part prefixed by the time that comment was posted:

```
2026.03.02.14.05.11.204518:k3x7q2ab/2026.03.02.15.40.02.993120:7mfp2d4c
```

Sort a discussion by `full_slug` and you get the threaded order: every reply directly
after its parent, and each level oldest first. One compound index on
`{discussion_id: 1, full_slug: 1}` serves the whole page, and a reply never renumbers
anything that was already there.

## What it costs

- A page of comments is one indexed range read, not a tree walk.
- Counting a discussion is a count over the same index, which is why we store the
  count on the post instead of asking every time.
- Moving a comment to another parent means rewriting the slugs of everything below it.
  In practice nobody moves comments, so this is a price we never pay.

If you are not sure which storage pattern you need, it is this one.
""",
        talk=(
            ("A: Why keep both slugs? The full slug seems to contain everything the short one does.",
             "@: The short one is what goes in URLs and permalinks. Nobody wants a timestamp in a link they paste into chat.",
             "A: Makes sense. So the full slug is only ever used for sorting?",
             "@: Sorting and paging, yes. The cursor for the next page is a full slug too."),
            (("A: We did exactly this for a forum years ago and the only thing I would change is the "
              "time format. Use one that sorts as a string, or you will be debugging October coming "
              "before September."),
             "B: Zero-padded everything. Learned that one the hard way too.",
             "A: And UTC. Always UTC in the key."),
            ("A: What happens when two people reply to the same comment in the same second?",
             "@: The time part keeps microseconds, so they still sort by time. If they collide exactly, the random part breaks the tie.",
             "B: And a collision of the random part itself is caught by the unique index and retried, I assume?",
             "@: Exactly. Eight characters from a 32-letter alphabet is 40 bits, so it almost never happens."),
            ("A: Is the index on `{discussion_id: 1, full_slug: 1}` enough for the newest-first view as well?",
             "B: Not on its own. Newest first wants `{discussion_id: 1, posted: -1}` or you end up sorting in memory.",
             "A: Thanks, added it and the page went from a collection scan to a dozen keys examined."),
        ),
    ),
    Article(
        slug="embedding-comments-in-the-post",
        title="When embedding comments in the post is the right call",
        author="ada",
        tags=("storage", "mongodb", "performance"),
        excerpt=(
            "Embedding every comment in its post gives you a discussion in one read. "
            "It also gives you a 16 MB ceiling and a document that grows on every reply."
        ),
        body="""\
The second pattern puts the comments inside the post document, as an array. Reading
a post with its whole discussion is a single `find_one`, which is hard to beat.

## Where it shines

A small site with short discussions gets a lot from this. There is no join, no second
query and no count to keep in step: the length of the array is the count. Backups and
exports are one document per post, which makes them easy to reason about.

## Where it hurts

Every reply rewrites a growing document. MongoDB caps a document at 16 MB, and a busy
discussion with long comments reaches that sooner than you expect. Before that, the
costs show up in other places:

1. Each `$push` ships the change to every replica, and a large document makes the
   oplog and the cache work harder.
2. Paging means `$slice` on an array, so page 40 still loads the whole post.
3. Two people editing different comments touch the same document, so writes to one
   hot post queue behind each other.

## A rule of thumb

Embed when a discussion rarely passes a few hundred comments and you never need to
page through them. Set a byte budget, watch it, and have a migration path ready for
the day a post goes viral.
""",
        talk=(
            ("A: Has anyone actually hit the 16 MB limit with comments? It sounds like a lot of text.",
             "B: We did, on a live blog of an election night. About 40,000 short comments and the reactions array per comment.",
             "A: Ouch. What did you do on the night?",
             "B: Closed comments on that post and opened a new one. The migration to separate documents came the week after."),
            ("A: The point about paging is the one people miss. `$slice` still reads the whole document from disk.",
             "@: Yes. It saves bytes on the wire, not work on the server."),
            ("A: Would you embed the latest few comments on the post and keep the rest separately?",
             "@: That is what we do for list pages: the post carries its count and the latest three. The full discussion lives elsewhere.",
             "A: So a hybrid. That seems like the answer to most of these debates.",
             "B: A hybrid with two sources of truth, though. You need a repair job for when they drift."),
        ),
    ),
    Article(
        slug="buckets-of-comments",
        title="Buckets of comments: the middle road",
        author="ada",
        tags=("storage", "mongodb", "pagination"),
        excerpt=(
            "Buckets group a discussion's comments into documents of, say, 100 each. "
            "A page becomes one read, and no document grows without bound."
        ),
        body="""\
Between one document per comment and one array per post sits the bucket: a document
that holds a fixed number of a discussion's comments, in the order they were posted.

## How a bucket fills

Each bucket has the discussion id, a page number and a `count`. Posting a comment is
one update that pushes onto the newest bucket as long as it has room:

```js
db.comment_pages.updateOne(
  { discussion_id: postId, page: 7, count: { $lt: 100 } },
  { $push: { comments: comment }, $inc: { count: 1 } }
)
```

If nothing matched, the bucket is full. The writer creates page 8 and tries again.
When several people post at once, only one of them wins the race for the new page;
the others retry, which is why a short, jittered back-off belongs in the loop.

## What you get

- Reading page *n* of a discussion in posting order is one document.
- No document grows past the bucket size, so the 16 MB limit stops being a worry.
- Counting is a sum over small documents, or a counter kept beside them.

## What you give up

Threaded order does not line up with buckets, because a reply lands in whatever
bucket is newest, far from its parent. Sites that use buckets usually show comments
in posting order and link replies to their parents, or they sort a bucket's contents
in the application.
""",
        talk=(
            ("A: How do you pick the bucket size? 100 looks arbitrary.",
             "@: It is a little arbitrary. Make it the page size you show, so a page is one bucket, and keep the document well under a megabyte.",
             "A: So if comments are long, smaller buckets.",
             "@: Right. Measure the average comment size on your own data first."),
            ("A: The retry loop worries me. Under a real spike, couldn't one writer lose the race many times in a row?",
             "B: It can. Back off with jitter and cap the attempts, then surface an error instead of spinning forever.",
             "A: We cap at a few dozen attempts. Never seen it reach double digits outside a load test.",
             "B: Load tests are exactly where you want to see it, though."),
            ("A: Small correction: `$push` with `$each` and `$sort` lets you keep a bucket sorted, so threaded order inside a bucket is possible.",
             "@: True, thanks. It still does not help a reply that lands three buckets after its parent, which was my point.",
             "A: Fair enough, agreed on that."),
        ),
    ),
    Article(
        slug="threading-with-materialized-paths",
        title="Threading with materialized paths",
        author="chen",
        tags=("threading", "mongodb", "data modelling"),
        excerpt=(
            "A materialized path stores each comment's ancestry as a string. "
            "Finding a subtree becomes a prefix query, and sorting by the path gives the thread."
        ),
        body="""\
There are several ways to store a tree in a database: a parent pointer on each node,
nested sets, closure tables, and materialized paths. For comments, the last one wins
on almost every count.

## The idea

Each comment keeps the path from the root to itself, such as `a1/b7/c3`. Its parent is
everything before the last separator; its depth is the number of separators. Nothing
needs a recursive query.

## Subtrees are prefix queries

Every reply below `a1/b7` has a path that starts with `a1/b7/`. An anchored regular
expression on an indexed field becomes a range scan:

```python
db.comments.find({"discussion_id": post_id, "slug": {"$regex": "^a1/b7/"}})
```

Only anchor it, and escape the part that comes from the URL, or a crafted value can
turn it into something far slower.

## Compared with parent pointers

A parent pointer is tiny to write but expensive to read: rendering a thread needs one
query per level, or `$graphLookup`, which works but is not what you want on every page
view. Paths cost a few bytes more per comment and make the read a single sorted scan.

## The catch

Moving a subtree means rewriting every path below it. Comments almost never move, so
accept the cost and keep the read path simple.
""",
        talk=(
            ("A: Nice write-up. Do you escape with `re.escape` before building the prefix?",
             "@: Yes, `re.escape` on the path and a `^` in front. Better still, validate the path against the slug alphabet first, so nothing odd gets that far.",
             "A: Good call, we only did the escaping."),
            ("A: Closure tables have been great for us in Postgres. Is there a reason not to do the same in Mongo?",
             "B: You can, but it is another collection to keep in step, with one document per ancestor pair. In a document store the path is just simpler.",
             "A: That's fair. Writes get more expensive the deeper the thread, too.",
             "B: Quadratic in the worst case, yes."),
            ("A: How does `$graphLookup` perform for this? I had assumed it was fine.",
             "B: It is fine for small trees. It follows the pointers one level at a time, so a deep or wide discussion gets slow, and it has a memory limit per stage.",
             "@: And you lose the natural sort. You still need something to put the replies in order."),
        ),
    ),
    Article(
        slug="how-deep-should-a-thread-go",
        title="How deep should a reply thread go?",
        author="bruno",
        tags=("threading", "design", "reading"),
        excerpt=(
            "Deep threads are hard to read on a phone. We cap the indent, cap the depth, "
            "and send the rest of the conversation to its own page."
        ),
        body="""\
Threaded comments are wonderful until the tenth reply, where each line has room for
three words. Two settings keep discussions readable without silencing anyone.

## The indent limit

Past a few levels, more indentation stops telling the reader anything. We indent up to
five levels. Deeper replies are drawn at the fifth level with a small marker, and the
text keeps its full width.

## The depth limit

The second limit is about storage and sanity: a reply to a comment at the maximum
depth is attached to that comment's ancestor at the deepest allowed level instead. The
reply still appears right after the conversation it belongs to; it just stops the
staircase from going on forever.

## Continue this thread

When a thread is deeper than the page can show comfortably, a "continue this thread"
link opens the comment on its own page, with its ancestors above it for context and
all its replies below.

What we did not do is flatten everything. Flat comments are easier to lay out, but a
reply that quotes the comment it answers is a poor substitute for being next to it.
""",
        talk=(
            ("A: Five levels seems generous on mobile. Have you tried three?",
             "@: We tried three. People lost track of who was answering whom much sooner. Five with narrow indents was the compromise.",
             "B: Hacker News-style narrow indents work surprisingly well on a phone.",
             "A: True, it's the wide ones that hurt."),
            ("A: Reattaching deep replies to an ancestor feels a bit like rewriting what the person meant.",
             "@: It can. We keep the reply right after the thread it came from and the text usually makes the context clear.",
             "A: I would still add a \"replying to\" line with the name. Cheap to do and it removes the doubt.",
             "@: That is a good idea, noted."),
            ("A: Flat is better and I will die on this hill.",
             "B: Flat works on small sites. Once a post gets a hundred comments, flat becomes a wall of people quoting each other.",
             "A: Quoting is a feature. It makes people say what they are answering."),
        ),
    ),
    Article(
        slug="moderation-without-a-moderator",
        title="Moderation without a full-time moderator",
        author="bruno",
        tags=("moderation", "community"),
        excerpt=(
            "A small site cannot read every comment before it appears. "
            "A few rules decide what waits for an editor, and readers' flags catch the rest."
        ),
        body="""\
Nobody on a small editorial team has time to approve every comment by hand, and
readers stop commenting when their words take a day to appear. So we publish most
comments at once and hold back only the ones that are likely to need a look.

## What waits for an editor

- Comments from a blocked email address, domain or word list.
- Optionally, a commenter's first comment. Once an editor approves one, the next ones
  go straight through.
- Optionally, any comment with a link, which is where most spam lives.

Everything else is post-moderated: it appears immediately, and editors see it in the
dashboard if something goes wrong.

## Flags

Readers can flag a comment. Three flags from different people send it back to the
queue until an editor looks at it. The threshold is low on purpose: a false alarm costs
an editor ten seconds, while an abusive comment left up for a weekend costs much more.

## Deleting without breaking threads

A deleted comment with replies becomes a "[deleted]" placeholder, so the replies keep
their place and still make sense. A deleted comment without replies simply goes.

Moderation is a product decision as much as a technical one. Write down your rules,
publish them, and apply them the same way to everyone.
""",
        talk=(
            ("A: Three flags is low. Couldn't a small group hide any comment they disagree with?",
             "@: For a while, yes, until an editor looks. That is why flagged comments go to the top of the queue, not into a bin.",
             "A: And do repeat flaggers lose the ability to flag?",
             "@: Not yet. We look at it by hand when it happens, which so far has been twice."),
            ("A: First-comment moderation was the single biggest win on our site. Spam bots rarely come back to post a second time.",
             "B: Same here. It also means regulars never notice moderation exists.",
             "A: Which is exactly how it should feel."),
            ("A: Do you tell people their comment is waiting for review?",
             "@: Yes, right under the form, and the comment shows to its author with a note. Silently eating a comment is the worst option.",
             "B: Agreed. Nothing makes people angrier than a comment that vanished without a word."),
        ),
    ),
    Article(
        slug="small-boring-tools-against-spam",
        title="Fighting comment spam with small, boring tools",
        author="chen",
        tags=("spam", "moderation", "forms"),
        excerpt=(
            "Most comment spam is stopped by a honeypot field, a signed form token and a rate limit. "
            "None of them needs a third-party service."
        ),
        body="""\
Before reaching for a spam-scoring service, it is worth knowing how far a few plain
defences go. On this site they stop nearly everything.

## A honeypot field

The form has one extra text field, hidden from people with CSS and labelled so that
screen readers skip it. Bots fill in every field they find. A submission with the
honeypot filled in is dropped quietly.

## A signed form token

Each rendered form carries a token signed with the site's secret: which post it was
for and when it was made. A submission with a missing, tampered or expired token is
refused. This stops scripts that post straight to the URL without loading the page.

## A minimum fill time

Humans take more than two seconds to write a comment. A form sent back faster than a
few seconds after it was rendered is almost certainly automated.

## Rate limits

Count posts per IP address and per account over a short window, in a shared cache so
every worker sees the same numbers:

```python
cache.add(key, 0, timeout=window)
count = cache.incr(key)
```

`add` followed by `incr` is atomic on Redis and Memcached, which matters when two
requests arrive together. When someone is over the limit, keep their text in the form
and tell them when they can try again.
""",
        talk=(
            ("A: Does the honeypot hurt accessibility? I have seen implementations that confuse screen readers.",
             "@: It can if you only hide it visually. We also set `aria-hidden` and `tabindex=\"-1\"` on it, and give it a label that says to leave it empty.",
             "A: Thanks, that is the part most tutorials forget."),
            ("A: A minimum fill time breaks password managers and autofill, doesn't it?",
             "B: Autofill does not usually fill a comment body, so in practice it is fine. It would be a problem on a login form.",
             "A: Good point, I was thinking of the name and email fields.",
             "B: Those fill instantly, but the comment still takes someone a while to type."),
            ("A: We tried all of this and still got human spammers paid per post.",
             "B: Nothing technical stops a person who is paid to type. First-comment moderation is the only thing that helped us there.",
             "@: Agreed. These tools are for the bots, which are still most of it."),
        ),
    ),
    Article(
        slug="caching-a-page-of-comments",
        title="Caching a page of comments",
        author="chen",
        tags=("caching", "performance"),
        excerpt=(
            "A popular post's comments are read far more often than they change. "
            "Cache the rendered page under a key that changes whenever the discussion does."
        ),
        body="""\
A post with an active discussion might get a new comment every minute and a thousand
readers in the same minute. Rendering those comments for every reader is wasted work.

## Version the key, do not delete it

Deleting cache entries on every write is fragile: miss one code path and readers see
stale comments. Instead, keep a version number on the post and change it on every
write to the discussion. The cache key includes it:

```
comments:<post id>:<version>:<view>:<page>
```

A new comment changes the version, so the next reader asks for a key that does not
exist yet and renders a fresh page. The old entries simply expire.

## What not to cache

- Anything that differs per reader: their own pending comments, edit links, the form
  with its token. Render those around the cached fragment.
- Pages for editors, who see held comments that readers must not.

## Which cache

A local-memory cache per process is a fine start, but with several gunicorn workers
each one renders the page once and a write is noticed by each one separately. A shared
cache such as Redis gives every worker the same entries and the same version.

Measure before and after. On this site the cached comment list costs less than a
millisecond, against tens of milliseconds to render a long page.
""",
        talk=(
            ("A: How do you handle the version changing between reading the post and reading the comments?",
             "@: The worst case is a reader who gets the page one comment behind, for one request. The next read has the new version.",
             "A: Fine for comments, I agree. I would not do that for prices."),
            ("A: Versioned keys are great until your cache fills with dead versions.",
             "B: Give the entries a timeout and let the cache evict them. Memory is cheap compared to serving a stale page.",
             "A: Redis with `allkeys-lru` and we never thought about it again."),
            ("A: Is the time shown on each comment (\"5 minutes ago\") a problem for caching?",
             "@: Yes, if you render it on the server. We render the absolute time in a `<time>` element and let the page show it relative to now.",
             "B: And a cache lifetime of a few minutes covers the cases where the relative text is in the HTML.",
             "A: That's the bit I was missing, thanks."),
        ),
    ),
    Article(
        slug="choosing-a-shard-key-for-comments",
        title="Choosing a shard key for comments",
        author="ada",
        tags=("sharding", "mongodb", "scaling"),
        excerpt=(
            "Shard comments by discussion so a page stays on one shard, "
            "and add a second field so a viral post can still be split."
        ),
        body="""\
Most sites will never need to shard their comments. If yours does, the shard key is
the decision you will live with longest, so it is worth getting right.

## What the queries want

Nearly every read asks for a page of one discussion. If the shard key starts with
`discussion_id`, such a query goes to one shard. A key that scatters a discussion
across shards turns every page view into a query on all of them.

## What the writes want

Writes should spread across shards. Keying on `discussion_id` alone does that well on
average, but a single viral post sends all its writes to one chunk, and a chunk that
cannot be split because every document has the same key becomes a jumbo chunk.

## A compound key

`{discussion_id: 1, full_slug: 1}` keeps a discussion together and in threaded order,
and gives the balancer something to split on inside one hot discussion. A page of that
discussion touches one shard, occasionally two.

## Avoid

- A monotonically increasing key alone, such as `_id` or `posted`: every insert goes
  to the last chunk.
- A hashed `discussion_id` when you need ranges inside a discussion.

Whichever you pick, test it with a copy of production data and a realistic write mix
before you shard the real thing.
""",
        talk=(
            ("A: Doesn't a compound key with `full_slug` still put all new comments of a hot post at the end of its range?",
             "@: New top-level comments, yes. Replies land next to their parents, which spreads them out more than you would think.",
             "A: So it depends on how threaded the discussion is.",
             "@: It does. A flat live blog would still hammer one chunk."),
            ("A: Hashed keys saved us on the write side, but reads became scatter-gather.",
             "B: That's the classic trade. You can hash a field that is not in your reads, but then nothing is targeted.",
             "A: We ended up with ranged on discussion plus a hashed claim collection for uniqueness.",
             "B: Interesting. Two collections with two different keys is a nice way out."),
            ("A: At what size should someone even start thinking about this?",
             "@: When one replica set cannot hold the working set in memory or keep up with the writes. For comments that is a very big site.",
             "B: Most of us will scale vertically for years first, and that is fine."),
        ),
    ),
    Article(
        slug="cursor-pagination-for-comments",
        title="Paginating comments with cursors instead of page numbers",
        author="chen",
        tags=("pagination", "performance", "mongodb"),
        excerpt=(
            "Page 200 with skip reads and throws away 10,000 comments. "
            "A cursor that remembers where the last page ended reads only the next page."
        ),
        body="""\
Page numbers are friendly, but `skip(n)` makes the database walk past every comment
before the page you want. On the first few pages nobody notices. On a discussion with
tens of thousands of comments, the last page is slow for everyone who opens it.

## Keyset pagination

Instead of a number, the link to the next page carries the sort key of the last comment
shown. The query asks for comments after that key:

```python
db.comments.find(
    {"discussion_id": post_id, "full_slug": {"$gt": last_full_slug}}
).sort("full_slug", 1).limit(50)
```

With an index on `{discussion_id: 1, full_slug: 1}` this reads exactly fifty entries,
whether it is the second page or the two-hundredth.

## Make the cursor opaque

Do not put the raw key in the URL. Encode it, sign it, and bind it to the view and the
discussion, so a reader cannot hand-edit it into an operator or point it at another
post. A tampered cursor gets a clear error page, not a server error.

## Keep page numbers too

People like to see "page 3 of 12" and to jump to the last page. We keep numbered links
for short discussions and use cursors for next and previous, which are what most
readers click.

One subtlety: ask for one comment more than a page. If it comes back, there is a next
page, and you know where it starts without a second query.
""",
        talk=(
            ("A: How do you handle a comment being deleted between page loads? Doesn't the cursor point at nothing?",
             "@: The cursor is a key, not a document. `$gt` on a key that no longer exists still works: you get whatever comes after it.",
             "A: Oh, of course. That is much nicer than offsets shifting under you."),
            ("A: Signing the cursor feels like overkill. What is the attack?",
             "B: Without it, whatever is in the cursor goes straight into a query. Decode a dict where you expected a string and you have an operator injection.",
             "A: Fair. I was assuming it would be type-checked, which is not a safe assumption.",
             "B: Signing is cheap and makes the question go away."),
            ("A: The \"one more than a page\" trick is something I will steal today.",
             "B: Works for the previous page too: query backwards with `$lt`, reverse the result, and check for the extra one."),
        ),
    ),
    Article(
        slug="markdown-in-comments-safely",
        title="Markdown in comments, safely",
        author="bruno",
        tags=("markdown", "security", "writing"),
        excerpt=(
            "Readers like a little formatting, and Markdown lets them write raw HTML. "
            "Render once when the comment is saved, then sanitise with an allowlist."
        ),
        body="""\
Commenters want to quote, emphasise and paste a line of code. Markdown gives them all
of that with syntax most of them already know. It also lets them write raw HTML,
because Markdown passes HTML through untouched.

## Sanitise the output, not the input

Trying to clean Markdown before rendering it is a losing game. Render it to HTML, then
run the HTML through a sanitiser with a short allowlist:

- paragraphs, line breaks, emphasis, strong, inline code and code blocks;
- lists and block quotes;
- links, with `rel="nofollow ugc"` added and only `http`, `https` and `mailto` allowed.

Everything else, including `style`, event handlers and `javascript:` links, goes.
Sanitisers such as nh3 or bleach do this well; writing your own with regular
expressions does not.

## Render once

Rendering and sanitising on every page view is wasted work. Do it when the comment is
saved and store the HTML beside the text. Keep the text, so that an edit starts from
what the author wrote, and so you can re-render everything if the allowlist changes.

## Headings and images

We leave headings out: a comment that shouts in `<h1>` is never a good comment. Images
stay out too, because an image tag is a request from every reader's browser to a
server that someone else chose.
""",
        talk=(
            ("A: Why `ugc` as well as `nofollow`?",
             "@: `ugc` tells search engines the link is user-generated content. `nofollow` alone also works; we send both because it costs nothing.",
             "A: Thanks, I had not come across `ugc` before."),
            ("A: Storing rendered HTML means a sanitiser bug lives on in the database after you fix it.",
             "@: Yes, which is why we keep the source text. Fixing the sanitiser comes with a job that re-renders every comment.",
             "B: A version number on the stored HTML helps too: re-render lazily when it is older than the current renderer.",
             "@: Nice, that avoids one big batch job."),
            ("A: Code blocks in comments are the best thing you can give a technical audience. Thank you for not stripping them.",
             "B: As long as they scroll sideways instead of breaking the layout on a phone.",
             "A: `overflow-x: auto` on the `pre` and you are done."),
        ),
    ),
    Article(
        slug="time-zones-in-a-comment-thread",
        title="Time zones in a comment thread",
        author="chen",
        tags=("time zones", "internationalisation", "templates"),
        excerpt=(
            "Store every time in UTC, put the exact time in the markup, "
            "and let each reader see it in their own zone."
        ),
        body="""\
A discussion has readers in many time zones, and every comment shows when it was
posted. Getting that right takes three rules.

## Store UTC

Store every timestamp in UTC, as a real date type and not a formatted string. MongoDB
stores dates as milliseconds since the epoch, so a time with microseconds comes back
rounded: round it yourself before storing, and your comparisons stay exact.

## Put the exact time in the markup

Each comment carries a `<time>` element with the exact time in ISO 8601, and a
human-friendly text inside it:

```html
<time datetime="2026-05-04T18:30:00Z">3 hours ago</time>
```

Browsers, feed readers and scripts can all read the `datetime` attribute, and a
reader who hovers can see the precise moment.

## Relative times age

"3 hours ago" is true for about an hour. If the page is cached, the text goes stale
with it. Either keep the cache lifetime short, or render the absolute time and let a
few lines of script turn it into a relative time in the reader's browser, in the
reader's zone and language.

Daylight saving time is the classic trap for anything that counts days. Do the
arithmetic in UTC, and convert to a local zone only to display the result.
""",
        talk=(
            ("A: Is \"yesterday\" computed in the server's zone or the reader's?",
             "@: Ideally the reader's, which is the best argument for doing relative times in the browser.",
             "A: Right. At 00:30 for someone in Tokyo, \"yesterday\" in UTC is just wrong.",
             "B: We had that bug for a year before anyone complained. Everyone who noticed assumed it was their fault."),
            ("A: Small correction: MongoDB dates are milliseconds since the epoch, but they can be negative, so dates before 1970 work fine.",
             "@: True, I only meant the precision. Thanks for the correction."),
            ("A: What about readers with JavaScript off?",
             "B: They get the absolute time, which is perfectly readable. Progressive enhancement at its simplest.",
             "A: Good answer."),
        ),
    ),
    Article(
        slug="counting-comments-without-counting",
        title="Counting comments without counting them every time",
        author="ada",
        tags=("performance", "mongodb", "denormalisation"),
        excerpt=(
            "The home page shows a comment count for every post. "
            "Counting on every view is slow; a stored count needs care to stay right."
        ),
        body="""\
A list of ten posts with their comment counts looks innocent. Done naively, it is ten
count queries per page view, each one walking an index over every comment of a post.

## Store the count on the post

Keep `comment_count` and the latest few comments on the post document. The home page
reads ten posts and has everything it needs.

## Keeping it right

A stored count is a cache, and caches drift. Three things keep ours honest:

1. Recompute instead of incrementing. After a write, count the discussion and store
   the result. An `$inc` that runs twice, or not at all, is wrong forever; a recount
   is wrong only until the next one.
2. Compare and set. Each recount records which version of the discussion it saw, and
   the update only applies if no newer version has been stored. Two writers finishing
   in the wrong order cannot leave the older count behind.
3. A repair command that recomputes every post, safe to run at any time.

## Latest comments

The same summary carries the newest three comments, with a short excerpt of each, so
list pages can show that a discussion is alive without another query.

Bulk loaders, such as an import or demo content, should skip the summary on each
comment and refresh it once per post at the end.
""",
        talk=(
            ("A: Isn't recounting on every write just moving the cost from reads to writes?",
             "@: Yes, deliberately. Writes are rare and reads are many. And the count is one indexed query, not a scan.",
             "A: Makes sense when you put it in those terms."),
            ("A: We used `$inc` for years and the counts were off by a few on a handful of posts. Never found out why.",
             "B: Retried writes, probably. A network error after the server applied the `$inc` and the client sends it again.",
             "A: That would explain why it only happened on busy nights.",
             "@: Which is exactly the case a recount shrugs off."),
            ("A: What is the version field in practice, a counter or a random value?",
             "@: A random value per write. A counter would need its own atomic increment, which is the thing we were trying to avoid.",
             "A: Clever. Thanks for explaining."),
        ),
    ),
    Article(
        slug="indexes-for-the-comment-page",
        title="The indexes behind a page of comments",
        author="ada",
        tags=("indexes", "mongodb", "performance"),
        excerpt=(
            "Every view of a discussion needs an index that matches its filter and its sort. "
            "Read the query plan, not your intuition."
        ),
        body="""\
A page of comments is a filtered, sorted and limited query. If one index answers all
three, the server reads exactly one page of index entries. If not, it reads the
whole discussion and sorts it in memory.

## One index per order

We show three orders, and each has its index:

| view | index |
|---|---|
| threaded | `{discussion_id: 1, full_slug: 1}` |
| newest first | `{discussion_id: 1, posted: -1, _id: -1}` |
| oldest first | the same, read backwards |

The `_id` at the end breaks ties between comments posted in the same millisecond,
which keeps pages stable.

## Equality, sort, range

Order the fields of a compound index as equality first, then the sort, then any
range. `discussion_id` is an equality match, so it leads. Put the sort field after it
and the server can walk the index in order and stop after one page.

## Check the plan

Run the query with `explain("executionStats")` and look at two numbers:
`totalKeysExamined` and `nReturned`. For a page of fifty, both should be close to
fifty. A `SORT` stage in the plan means the index is not doing its job.

Different servers choose plans differently. If the planner picks a worse index on
your server, name the index in the query with `hint` and keep a test that checks the
plan.
""",
        talk=(
            ("A: Is the `_id` tiebreaker really necessary? Two comments in the same millisecond seems rare.",
             "@: Rare until you import a few thousand comments with the same timestamp. Then pages start repeating and skipping comments.",
             "A: Ah, imports. Yes, that would do it."),
            ("A: `hint` always feels like a smell to me. Isn't it better to fix the index set?",
             "B: Usually. But when two indexes both fit and the planner guesses wrong on your data, a hint is the honest fix.",
             "A: As long as there is a test that notices when the hinted index is dropped.",
             "B: Agreed, a hint on a missing index is an error, so the test is easy."),
            ("A: The ESR rule took me years to learn. Wish someone had shown me this table earlier.",
             "B: Same. The docs explain it well, but only once you know to search for it."),
        ),
    ),
    Article(
        slug="posting-a-comment-exactly-once",
        title="Posting a comment exactly once",
        author="chen",
        tags=("forms", "reliability", "mongodb"),
        excerpt=(
            "A double click or a flaky connection can send the same form twice. "
            "A key in the form and a unique index make the second submit harmless."
        ),
        body="""\
Every comment form is eventually submitted twice: an impatient double click, a retry
after a timeout, a browser that resends a POST when someone presses back. Without care,
each one becomes a duplicate comment.

## A key per rendered form

When the form is rendered, it gets a random key inside its signed token. The slug of
the new comment is derived from that key, so the same form always produces the same
slug:

```python
part = derived_part(form_key)
```

The slug is unique in the discussion's index. The second insert fails with a
duplicate key error, and instead of showing an error, the server finds the comment the
first submit created and redirects to it.

## Redirect after post

After a successful post, answer with a redirect to the new comment. Reloading the page
then reloads the comment, not the form submission.

## Near duplicates

People also paste the same text twice in two forms. A short window in which the same
text by the same author in the same place counts as the same comment catches most of
those.

None of this needs transactions or locks: a unique index is the one piece of shared
state that every worker agrees on.
""",
        talk=(
            ("A: What happens if the first request is still in flight when the second one arrives?",
             "@: Both try to insert, the unique index lets exactly one win, and the loser reads the winner's comment. Either order ends the same way.",
             "A: Neat. No lock needed at all.",
             "@: That is the whole trick."),
            ("A: The near-duplicate window could swallow a deliberate repeat, like someone posting \"+1\" twice.",
             "B: Under the same parent, within ten minutes? I think losing that second \"+1\" is a feature.",
             "A: Fair, I was struggling to think of a real case."),
            ("A: We used a hidden UUID field and checked it in a separate collection. This is simpler.",
             "B: A separate collection also needs cleaning up. Putting the key into the slug means the comment is the record.",
             "A: Yes, we had a cron job just for that table."),
        ),
    ),
    Article(
        slug="writing-for-people-who-skim",
        title="Writing for people who skim",
        author="bruno",
        tags=("writing", "editing"),
        excerpt=(
            "Most readers read the title, the first paragraph and the headings. "
            "Write those first, and make each one earn its place."
        ),
        body="""\
Editors like to think people read posts from top to bottom. Most do not. They read
the title, the first paragraph, maybe the excerpt on the home page, then the headings,
and decide whether the rest is worth their time.

## Start with the point

The first paragraph should say what the post claims or teaches. Background can come
second. A reader who stops after one paragraph should still leave with the main idea.

## Headings are a table of contents

A good heading says what the section concludes, not only what it is about. Compare
"Caching" with "Version the cache key instead of deleting entries". The second one is
useful even to someone who never reads the section.

## Write the excerpt by hand

An excerpt cut from the first 200 characters ends mid-sentence and often says nothing.
One or two sentences written for the home page do better:

- say who the post is for;
- say what they will get from it;
- leave out anything the title already says.

## Cut

Most drafts improve when a quarter of them goes. Read each paragraph and ask what the
post loses without it. If the answer is "nothing", take it out.
""",
        talk=(
            ("A: \"Headings are a table of contents\" is going on the wall of our docs team.",
             "@: Glad it helps. It changed how I review drafts: I read only the headings first.",
             "A: That's a great review trick. If the headings don't tell the story, the draft isn't ready."),
            ("A: Counterpoint: some posts are meant to be read slowly, and writing for skimmers flattens them.",
             "@: Fair. Essays are different. Most technical posts are not essays, though, and their readers are busy.",
             "A: Agreed for technical posts."),
            ("A: Cutting a quarter is brutal advice. Correct, but brutal.",
             "B: The trick is to cut the next day. On the day you wrote it, every sentence feels essential."),
        ),
    ),
    Article(
        slug="migrating-between-comment-stores",
        title="Migrating between comment stores without downtime",
        author="ada",
        tags=("storage", "migrations", "mongodb"),
        excerpt=(
            "Moving comments from one storage pattern to another is copy, verify, switch. "
            "Make each step resumable and keep the old store until the new one has proved itself."
        ),
        body="""\
Sooner or later a site outgrows the way it stores comments: embedded arrays get too
large, or buckets no longer fit how people read. Moving to another pattern can be done
while the site stays up.

## Copy

Read the old store one discussion at a time and write the same comments into the new
one, keeping slugs, times and authors exactly. Record which discussions are done, so
that a copy interrupted halfway resumes where it stopped instead of starting over.

## Verify

For each discussion, compare the two stores: the count, and a checksum over slugs and
texts in threaded order. A mismatch names the discussion, and copying it again must be
safe.

## Switch

Point the site at the new store, with a setting that every process rereads within a
few seconds. Comments posted during the copy are the subtle part: copy again after the
switch, or have writes go to both stores while the copy runs.

## Keep the old store

Do not delete the old data on the day of the switch. Keep it for a week, with a plan
to switch back. The migration is finished when nobody has had to think about it for a
while.

1. Copy, resumable.
2. Verify every discussion.
3. Switch, and copy what arrived meanwhile.
4. Clean up later.
""",
        talk=(
            ("A: How long did the copy take for you?",
             "@: A few minutes for a few hundred thousand comments. The verify step took longer than the copy.",
             "A: Makes sense, it reads both sides.",
             "@: And sorts both. It is still worth every second."),
            ("A: Dual writes always scare me. Which store wins if they disagree?",
             "B: The old one, until the switch. The new one is only a copy that happens to be kept warm.",
             "A: That framing helps. The new store is a replica until you promote it.",
             "B: Exactly."),
            ("A: A rollback plan is the step every migration doc skips. Thanks for including it.",
             "B: And rehearsing it. A rollback nobody has tried is a hope, not a plan."),
        ),
    ),
)

# Comments that fit any post here: top-level remarks (praise, which nobody answers,
# and opinions, which draw replies), and replies by kind. Each discussion draws them
# without replacement, so none repeats within one.
PRAISE = (
    "Bookmarking this for the next time it comes up in a design review.",
    "Clear and to the point. I wish more posts on this subject showed the actual queries.",
    "This is the kind of post I come back to. Thanks for writing it up properly.",
    "Printed this out for a reading group at work. The discussion afterwards was excellent.",
    "Long-time reader, first comment. This one was worth breaking the silence for.",
    "A diagram of the documents would make this even easier to follow, but the text is very clear.",
    "The examples are what make this. Abstract advice about data modelling never sticks with me.",
    "Would love a follow-up post with numbers from production.",
    "I read this twice. The second time I noticed how much the ordering of the sections helps.",
    "Sent this to a friend who is building a forum for a local club. It is exactly the right level.",
)
REMARKS = PRAISE + (
    "I shared this with my team this morning and it settled an argument we had been having for a week.",
    "Good timing: we are rebuilding our comments next quarter and this answers half of my open questions.",
    "I like that you list what each choice costs, not only what it buys.",
    "We made the opposite choice two years ago and regret it a little more every month.",
    "It is refreshing to read something about databases that admits most sites are small.",
    "Everything here matches what we learned the slow way, which is reassuring and a little annoying.",
    "The part about measuring first is the one most teams skip, mine included.",
    "Our site has exactly this problem right now, so the timing could not be better.",
    "I think the simple version here would cover ninety percent of the sites I have worked on.",
    "We went down this road last year. The trade-offs described here are accurate.",
    "I would have liked a section on what to monitor once this is in production.",
    "Nice to read something practical rather than another list of best practices.",
    "The comments here are half the value. Thanks, everyone.",
    "Our team argued about exactly this last sprint. I am sending them the link.",
    "I disagree with parts of it, but the reasoning is laid out so clearly that I know which parts.",
    "Coming back to this a second time: it still holds up.",
)
AGREEMENTS = (
    "Same experience here. It only looked simple until the first busy day.",
    "Agreed. We learned that one after an outage, which is the expensive way.",
    "This. The boring option is usually the right one for the first few years.",
    "Yes, and it is much easier to add later than to take away.",
    "Strongly agree. Measure first, then decide.",
    "That matches our numbers almost exactly.",
    "I would add: write down why you chose it, so the next person does not undo it by accident.",
    "Same here, though it took us two rewrites to get there.",
    "Can confirm. We tried the clever version first and rolled it back within a month.",
    "Good point. Most of the pain we had came from exactly that.",
    "Exactly right, and it gets more true as the site grows.",
    "Agreed, with one caveat: test it against the database you actually run, not the one on your laptop.",
    "We reached the same conclusion after a long detour, so take this advice.",
    "Right. And keep a test that fails when someone breaks it.",
    "Seconding this. It is the kind of decision that is cheap today and expensive next year.",
    "I think that is the key point of the whole post.",
    "Yes! People underestimate how often this comes up.",
    "Fully agree, and the explanation of why is the valuable part.",
    "Spot on. We ignored this for a year and paid for it in one weekend.",
    "Yes. The simplest thing that works, then a benchmark, then maybe something clever.",
    "This matches what our DBA has been telling us for ages.",
    "Agreed, and it is nice to see it written down so plainly.",
    "Same lesson here, learned during a product launch of all times.",
    "That is how we run it too, and it has been quiet for two years.",
    "Completely agree. The fancy alternative never paid for itself.",
    "Right, and the docs say the same if you read far enough.",
)
THANKS = (
    "Thanks, that clears it up.",
    "That is really helpful, thank you.",
    "Thanks for taking the time to explain it properly.",
    "Oh, that makes sense now. Thanks!",
    "Great, thanks. I will try that tomorrow.",
    "Thank you. I had been reading the documentation for an hour and missed exactly that.",
    "Thanks, that saved me a lot of guessing.",
    "Perfect, that is the piece I was missing.",
    "Appreciated. I will report back once we have numbers.",
    "Thanks, this is going straight into our notes.",
    "Huh, I never thought of it that way. Thanks.",
    "Very clear, thank you.",
    "Brilliant, thank you for the detail.",
    "Thanks! Tried it just now and it works.",
)
FOLLOW_UPS = (
    "Did you measure that on a replica set or on a single server?",
    "How does that hold up with a few hundred thousand comments?",
    "Is there a test for that, or is it something you check by hand?",
    "What would you do differently if you started again today?",
    "Does that change once you put a cache in front of it?",
    "Which server version were you on when you saw that?",
    "How long did it take to roll out?",
    "Did your readers notice anything during the change?",
    "Is that the default, or did you have to turn it on?",
    "Would the same apply to a site with mostly anonymous commenters?",
    "Do you have a rough idea of the numbers before and after?",
    "How do you keep that in step when two people post at the same moment?",
    "Is that documented anywhere, or did you find it by reading the source?",
    "Out of interest, how many editors do you have looking at this?",
    "What did the query plan look like before the fix?",
    "Would you still do it that way on a small site?",
    "Did you have to change anything in the templates for that?",
    "How did you test it before it went live?",
    "Was that on MongoDB itself or on something compatible with it?",
    "Did it make a difference to memory use as well?",
    "Is there somewhere I can read more about that?",
    "Have you written that up anywhere? I would read it.",
)
DOUBTS = (
    "I am not sure that holds once the site gets real traffic.",
    "Hmm, that has not been my experience, but our discussions are much shorter.",
    "I would be careful generalising from one site.",
    "That sounds fine until someone runs it on a slow disk.",
    "Respectfully, I think that is solving a problem most sites do not have.",
    "Maybe, but the operational cost of that is easy to underestimate.",
    "I see the appeal, but it moves the complexity rather than removing it.",
    "That works, but I would want a way to undo it first.",
    "Not convinced. It sounds simpler than it will be in practice.",
    "It depends a lot on how your readers use comments, I think.",
    "I would push back a little: the numbers will look different on a busy day.",
    "True in theory. In practice nobody reads the logs that would warn you.",
    "I used to think so too, until we had to support it for three years.",
    "Partly. The hard part is the migration later, not the first version.",
    "Hmm, I would want to see that on a bigger data set before believing it.",
    "That is one way. I would still keep it out of the request path.",
    "Fair, though it reads simpler on paper than it is at three in the morning.",
    "I disagree a little: the cost shows up in maintenance, not in the code you write today.",
)
# Back-and-forths between two people that run deeper than the page indents (and than
# the default COMMENTS_MAX_DEPTH); each line answers the one before it.
DEBATES = (
    (
        "A: Honest question: is all of this worth it for a blog that gets ten comments a post?",
        "B: For ten comments, no. But the post you cannot predict is the one that gets ten thousand.",
        "A: Then you fix it that week. Designing every post for the one-in-a-thousand case is how simple sites get complicated.",
        "B: The fix during the busy week is the expensive one, though. You are rewriting storage while people are shouting in the comments.",
        "A: Or you close comments on that one post for a day. Nobody dies.",
        "B: Closing comments on the one post people actually want to discuss seems like a strange goal.",
        "A: It is a trade-off, not a goal. A day of closed comments against months of extra code.",
        "B: A few hundred lines, not months. And most of it is the same code with a different query.",
        "A: A few hundred lines that every new developer has to understand before changing anything.",
        "B: Fair. I would still rather explain them once than migrate under pressure.",
        "A: I think we agree on the facts and disagree on the odds.",
        "B: That is probably the most honest summary of every storage debate ever.",
    ),
    (
        "A: Threaded comments are overrated. Every site I read with flat comments has better discussions.",
        "B: Better, or just easier to follow? Those are not the same thing.",
        "A: Easier to follow is most of what makes a discussion good.",
        "B: Until three conversations run at once and you have to read all of them to follow one.",
        "A: People can quote. That is how forums worked for twenty years.",
        "B: And half of every forum page was people quoting each other quoting each other.",
        "A: Ha, fair. Threaded sites have their own version of that though: the staircase.",
        "B: Which is what the depth limit is for. It keeps the structure and stops the staircase.",
        "A: As long as the reply that got moved up a level still makes sense where it lands.",
        "B: It usually does, because it still sits right after the conversation it belongs to.",
        "A: I will give threading another try. Grudgingly.",
        "B: That is all anyone can ask.",
    ),
    (
        "A: Why not put all of this in Postgres and be done with it?",
        "B: You could. A comments table with a path column and the right index works very well.",
        "A: So why a document store at all?",
        "B: Mostly because the rest of the site already lives there. Two databases for one blog is its own cost.",
        "A: Two databases you understand beat one you have to fight, though.",
        "B: We are not fighting it. Every pattern in the post maps to a plain query and an index.",
        "A: Until you need a transaction across posts and comments.",
        "B: We designed so that we do not: the summary on the post is recomputed, never incremented.",
        "A: That is a nice answer. I still think a lot of teams pick the document store for the wrong reasons.",
        "B: Probably true. Picking any database for the wrong reasons is a team problem, not a database problem.",
        "A: Fair enough. I will stop grumbling now.",
    ),
)
VOICE = Voice(
    language="en", commenters=COMMENTERS, praise=PRAISE, remarks=REMARKS, agreements=AGREEMENTS,
    thanks=THANKS, follow_ups=FOLLOW_UPS, doubts=DOUBTS, debates=DEBATES,
)
