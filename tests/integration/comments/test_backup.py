"""Comments to and from JSON Lines (comments/transfer/backup.py, `export_comments` and
`import_comments`): every field survives, imports are batched and idempotent, and an
export imported into an empty database shows every discussion page as before."""

import json
import random
import re
import uuid
from datetime import datetime, timedelta, timezone
from io import StringIO
from urllib.parse import unquote

import pytest
from bson import ObjectId, json_util
from django.core import signing
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from comments.benchmark import discussion_documents
from comments.management.commands.export_comments import NO_SUCH_POST
from comments.management.commands.import_comments import IMPORTED
from comments.reading import cursors
from comments.records import CommentAuthor
from comments.stores import get_store
from comments.transfer import backup
from infra import mongo

pytestmark = pytest.mark.usefixtures("each_store")

VIEWS = ("threaded", "newest", "chronological")
PER_PAGE = 4


@pytest.fixture
def discussions(make_post, make_comment, settings):
    """Two posts with threads several levels deep (two replies in one second among
    them), by a member and anonymous readers, spread over several pages; and a post
    without comments."""
    settings.COMMENTS_PER_PAGE = PER_PAGE
    start = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
    member = CommentAuthor(id=7, name="Ada Lindqvist", email="ada@example.com")
    built = []
    for n in range(2):
        post = make_post(title=f"Discussed {n}")
        at = iter(start + timedelta(days=n, minutes=m) for m in range(100))
        roots = [make_comment(post, at=next(at), text=f"Root {r} of post {n}") for r in range(3)]
        reply = make_comment(post, parent_slug=roots[0].slug, at=next(at), author=member, text="A *reply*")
        deeper = make_comment(post, parent_slug=reply.slug, at=next(at), text="Deeper, with a [link](https://example.org/)")
        same_second = next(at)
        for k in range(2):
            twin_at = same_second + timedelta(microseconds=k)
            make_comment(post, parent_slug=deeper.slug, at=twin_at, text=f"Twin {k}")
        make_comment(post, parent_slug=roots[2].slug, at=next(at), text="Late reply to the last root")
        make_comment(post, at=next(at), text="A root after the replies")
        built.append(post)
    built.append(make_post(title="Quiet"))
    return built


def without_times(html: str) -> str:
    """Relative times ("3 minutes ago") move on between renders; the exact datetime attribute stays."""
    return re.sub(r"(<time[^>]*>).*?(</time>)", r"\1\2", html, flags=re.S)


def page_links(html: str) -> list[tuple[str, object]]:
    """The Next and Previous links, each with what its cursor holds (its signature
    carries the time it was made, so the signed text differs between renders)."""
    return [
        (rel, signing.loads(unquote(token), salt=cursors.SALT))
        for rel, token in re.findall(r'<a rel="(next|prev)" href="[^"]*?(?:after|before)=([^#"&]+)', html)
    ]


def rendered_pages(posts) -> dict:
    """Every page a reader can reach of each discussion, in each view: its comment
    articles and its page links; plus the post pages and the home page's post summaries."""
    client = Client()
    shown = {}
    home = without_times(client.get(reverse("home")).content.decode())
    shown["home"] = re.findall(r'<article class="post-summary".*?</article>', home, re.S)
    for post in posts:
        page = without_times(client.get(reverse("post", args=[post.slug])).content.decode())
        shown[post.slug] = re.findall(r'<article class="comment.*?</article>', page, re.S)
        for view in VIEWS:
            number = 1
            while True:
                url = reverse("comments:discussion", args=[post.slug]) + f"?view={view}&page={number}"
                response = client.get(url)
                assert response.status_code == 200, url
                body = without_times(response.content.decode())
                articles = re.findall(r'<article class="comment.*?</article>', body, re.S)
                shown[url] = (articles, page_links(body))
                if 'rel="next"' not in body:
                    break
                number += 1
    return shown


@pytest.fixture
def empty_database(settings, mongo_db):
    """Switches the site to a new, empty MongoDB database (with every index) holding
    only copies of the posts, their comment summaries removed; dropped afterwards."""

    def switch():
        settings.MONGODB_NAME = f"{mongo_db.name}_restore_{uuid.uuid4().hex[:6]}"
        restored = mongo.get_db()
        mongo.ensure_all_indexes(restored)
        for post in mongo_db.posts.find():
            post.pop("comment_count", None), post.pop("latest_comments", None)
            restored.posts.insert_one(post)
        return restored

    yield switch
    mongo.get_client().drop_database(settings.MONGODB_NAME)


def export(*args: str) -> str:
    out = StringIO()
    call_command("export_comments", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def run_import(path) -> str:
    out = StringIO()
    call_command("import_comments", "--input", str(path), stdout=out)
    return out.getvalue()


def test_export_then_import_into_an_empty_database_reproduces_every_discussion_page(
    discussions, empty_database, tmp_path
):
    """Threaded, newest and chronological pages (with their cursor links), post pages
    and the home page's comment counts and latest comments come back identical."""
    before = rendered_pages(discussions)
    dump = tmp_path / "comments.jsonl"
    call_command("export_comments", "--output", str(dump), stderr=StringIO())
    restored = empty_database()
    assert restored.comments.count_documents({}) == 0
    assert run_import(dump) == IMPORTED.format(inserted=18, discussions=2, skipped=0) + "\n"
    after = rendered_pages(discussions)
    assert after == before
    threaded = [shown for url, shown in before.items() if "view=threaded" in url]  # 3 pages each, 1 empty
    assert len(threaded) == 3 + 3 + 1 and sum(len(articles) for articles, _ in threaded) == 18
    assert "".join(before["home"]).count("9 comments") == 2


@pytest.mark.stores("documents")
def test_each_line_is_one_comment_with_every_field_in_extended_json(discussions, mongo_db):
    """ObjectIds are {"$oid"}, datetimes {"$date"} in UTC; reading a line back gives the
    stored document, field for field, fields the code does not model included."""
    first = mongo_db.comments.find_one({}, {"_id": 1})
    mongo_db.comments.update_one({"_id": first["_id"]}, {"$set": {"imported_from": "elsewhere", "score": 3}})
    lines = export().splitlines()
    stored = {doc["_id"]: doc for doc in mongo_db.comments.find()}
    assert len(lines) == len(stored) == 18
    for line in lines:
        raw = json.loads(line)
        assert set(raw["_id"]) == {"$oid"} and set(raw["discussion_id"]) == {"$oid"}
        assert raw["posted"]["$date"].endswith("Z")
        document = json_util.loads(line, json_options=backup.JSON_OPTIONS)
        assert document == stored[document["_id"]]
    assert any('"imported_from": "elsewhere"' in line for line in lines)


def test_lines_come_by_discussion_then_posting_time(discussions, mongo_db):
    """The order of the discussion_posted index: replies never come before their parent."""
    documents = [json_util.loads(line, json_options=backup.JSON_OPTIONS) for line in export().splitlines()]
    keys = [(d["discussion_id"], d["posted"], d["_id"]) for d in documents]
    assert keys == sorted(keys)


def test_one_post_can_be_exported_alone(discussions):
    """--post SLUG writes that discussion only."""
    lines = export("--post", discussions[0].slug).splitlines()
    assert len(lines) == 9
    assert {json.loads(line)["discussion_id"]["$oid"] for line in lines} == {str(discussions[0].id)}
    assert export("--post", discussions[2].slug) == ""


def test_an_unknown_post_is_an_error():
    """A slug no post has is refused, saying so."""
    with pytest.raises(CommandError, match=re.escape(NO_SUCH_POST.format(slug="nowhere"))):
        export("--post", "nowhere")


@pytest.mark.stores("documents")
def test_the_export_streams_through_one_cursor(discussions, commands):
    """Comments are fetched a batch at a time (find, then getMore), never all at once."""
    commands.reset()
    assert backup.export_comments(out=StringIO(), batch_size=5) == 18
    assert commands.names == ["find"] + ["getMore"] * 3


@pytest.mark.stores("documents")
def test_importing_twice_adds_nothing(discussions, mongo_db, tmp_path):
    """Comments whose slug the discussion already has are skipped, and counted as such."""
    dump = tmp_path / "comments.jsonl"
    dump.write_text(export())
    assert run_import(dump) == IMPORTED.format(inserted=0, discussions=2, skipped=18) + "\n"
    assert mongo_db.comments.count_documents({}) == 18


@pytest.mark.stores("documents")
def test_a_comment_is_skipped_when_its_slug_is_taken_even_under_another_id(discussions, mongo_db, tmp_path):
    """Slugs are unique per discussion: the stored comment stays, the imported one is skipped."""
    documents = [json_util.loads(line, json_options=backup.JSON_OPTIONS) for line in export().splitlines()]
    mongo_db.comments.delete_many({})
    taken = dict(documents[0], _id=ObjectId(), text="Already here")
    mongo_db.comments.insert_one(taken)
    dump = tmp_path / "comments.jsonl"
    dump.write_text("".join(json_util.dumps(d, json_options=backup.JSON_OPTIONS) + "\n" for d in documents))
    assert run_import(dump) == IMPORTED.format(inserted=17, discussions=2, skipped=1) + "\n"
    kept = mongo_db.comments.find_one({"slug": taken["slug"], "discussion_id": taken["discussion_id"]})
    assert kept["text"] == "Already here"


@pytest.mark.stores("documents")
def test_imports_are_batched(discussions, mongo_db, commands):
    """Comments go in batch_size at a time, one insert command per batch."""
    lines = export().splitlines()
    mongo_db.comments.delete_many({})
    commands.reset()
    done = backup.import_comments(lines=lines, batch_size=10)
    assert (done.read, done.inserted, done.skipped, done.discussions) == (18, 18, 0, 2)
    assert commands.names.count("insert") == 2


def test_the_import_refreshes_each_posts_comment_summary(discussions, mongo_db):
    """Counts and latest comments are recomputed from what the store now holds."""
    lines = export().splitlines()
    mongo_db.comments.delete_many({})
    mongo_db.posts.update_many({}, {"$unset": {"comment_count": "", "latest_comments": ""}})
    backup.import_comments(lines=lines)
    post = mongo_db.posts.find_one({"_id": discussions[0].id})
    assert post["comment_count"] == 9
    latest = [c["excerpt"] for c in post["latest_comments"]]
    assert latest == ["A root after the replies", "Late reply to the last root", "Twin 1"]


@pytest.mark.stores("documents")
def test_a_restored_discussion_of_old_comments_has_its_newest_read_in_one_window(make_post, mongo_db, commands):
    """More comments than one query reads at once, posted years ago: after the recount,
    the summary's newest approved comments are one window of `posted`, from the third
    newest the recount saw (the windows back from the last hour took several)."""
    post = make_post()
    docs = discussion_documents(discussion_id=post.id, count=150, rng=random.Random(39),
                                start=datetime(2015, 6, 1, tzinfo=timezone.utc))
    commands.reset()
    backup.import_comments(lines=[json_util.dumps(d, json_options=backup.JSON_OPTIONS) for d in docs])
    reads = [c for c in commands.finds("comments", hint="discussion_posted") if "posted" in c["filter"]]
    assert len(reads) == 1, reads
    newest = sorted(docs, key=lambda d: (d["posted"], d["_id"]), reverse=True)[:3]
    summary = mongo_db.posts.find_one({"_id": post.id})
    assert [c["slug"] for c in summary["latest_comments"]] == [d["slug"] for d in newest]
    assert summary["comment_count"] == 150


@pytest.mark.parametrize(
    "line, reason",
    [
        ("not json", "not Extended JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"_id": {"$oid": "6751aa3e9f1c2b0012345678"}, "slug": "k3x7q2ab"}', "discussion_id missing"),
        ('{"_id": 5, "discussion_id": {"$oid": "6751aa3e9f1c2b0012345678"}}',
         "_id missing or not a ObjectId"),
    ],
)
def test_a_line_that_is_not_a_comment_stops_the_import_naming_it(tmp_path, line, reason):
    """The error names the line and what is wrong with it."""
    dump = tmp_path / "bad.jsonl"
    dump.write_text("\n" + line + "\n")
    with pytest.raises(CommandError, match=re.escape(backup.BAD_LINE.format(number=2, reason=reason))):
        run_import(dump)


# --- Issue 25: what a file may not decide ----------------------------------------------------


HOSTILE_HTML = ('<p><a href="javascript:alert(1)">prize</a></p><form action="https://evil.example/">'
                '<input type="password" name="p"></form><meta http-equiv="refresh" content="0;url=https://evil.example/">')


def hostile_line(post, **author) -> str:
    document = {
        "_id": ObjectId(), "discussion_id": post.id, "parent_id": None, "slug": "k3x7q2ab",
        "full_slug": "2026.11.29.20.41.07.123456:k3x7q2ab", "thread": "k3x7q2ab",
        "posted": datetime(2026, 11, 29, 20, 41, 7, 123000, tzinfo=timezone.utc),
        "author": {"id": None, "name": "Bruno Okafor", "email": "", **author},
        "text": "Hello *there*", "html": HOSTILE_HTML, "form_key": None, "status": "approved", "ip": None,
    }
    return json_util.dumps(document, json_options=backup.JSON_OPTIONS) + "\n"


def shown(post) -> str:
    return Client().get(reverse("comments:discussion", args=[post.slug])).content.decode()


def test_a_files_html_is_not_trusted_it_is_rendered_again_from_its_text(make_post, tmp_path):
    """A line whose `html` holds a javascript: link, a password form and a meta
    refresh shows its text, rendered as the site renders a comment."""
    post = make_post()
    dump = tmp_path / "hostile.jsonl"
    dump.write_text(hostile_line(post))
    run_import(dump)
    page = shown(post)
    assert "Hello <em>there</em>" in page
    assert "javascript:" not in page and 'type="password"' not in page and "http-equiv" not in page


def test_staff_comes_from_a_file_only_when_the_operator_says_so(make_post, tmp_path):
    """`author.staff` in a line is dropped (no Staff badge for a fake editor) unless
    `--keep-staff` says the file is the site's own export."""
    post = make_post()
    dump = tmp_path / "staff.jsonl"
    dump.write_text(hostile_line(post, staff=True))
    run_import(dump)
    assert 'class="staff-badge"' not in shown(post)
    [stored] = backup_documents(post)
    assert "staff" not in stored["author"]
    other = make_post()
    dump.write_text(hostile_line(other, staff=True))
    call_command("import_comments", "--keep-staff", str(dump), stdout=StringIO())
    assert 'class="staff-badge"' in shown(other)


def test_keep_staff_is_for_json_lines_only(tmp_path):
    with pytest.raises(CommandError, match="--keep-staff is not for --format disqus"):
        call_command("import_comments", "--format", "disqus", "--keep-staff", str(tmp_path / "x.xml"))


@pytest.mark.parametrize("date", ["9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+00:01"])
def test_a_date_past_year_9999_or_before_year_1_in_utc_is_a_bad_line(tmp_path, date):
    """The import stops at that line naming it (it used to crash with OverflowError)."""
    dump = tmp_path / "far.jsonl"
    dump.write_text('{"_id": {"$oid": "6751aa3e9f1c2b0012345678"}, "posted": {"$date": "%s"}}\n' % date)
    with pytest.raises(CommandError, match=re.escape(backup.BAD_LINE.format(number=1, reason="not Extended JSON"))):
        run_import(dump)


def backup_documents(post) -> list[dict]:
    return list(get_store().iter_documents(discussion_id=post.id))


def test_a_lines_author_is_cleaned_as_the_forms_are(make_post, tmp_path):
    """Direction controls and invisible characters leave a JSON Lines author's name, and
    the address is stored as it is delivered (comments/posting/commenters.py)."""
    post = make_post()
    dump = tmp_path / "names.jsonl"
    dump.write_text(hostile_line(post, name="\u202eonurB", email="Dave@ｔarget.test"))
    run_import(dump)
    [stored] = backup_documents(post)
    assert stored["author"]["name"] == "onurB" and stored["author"]["email"] == "dave@target.test"


@pytest.mark.parametrize("name", ["Ada Lindqvist", "Αda Lindqvist"])  # the second with a Greek Alpha
def test_a_line_under_an_authors_name_stops_the_import_unless_the_file_is_the_sites_own(
        make_post, tmp_path, name):
    """The test posts are Ada Lindqvist's: a line cannot put her name, however spelled,
    under anyone's words; `--keep-staff` (the site's own export) lets it through."""
    post = make_post()
    dump = tmp_path / "impostor.jsonl"
    dump.write_text(hostile_line(post, name=name))
    with pytest.raises(CommandError, match="Line 1 is not a comment: the name of one of this site's authors"):
        run_import(dump)
    assert backup_documents(post) == []
    call_command("import_comments", "--keep-staff", str(dump), stdout=StringIO())
    [stored] = backup_documents(post)
    assert stored["author"]["name"] == name
