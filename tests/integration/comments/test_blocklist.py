"""comments/moderation/blocklist.py: blocked words and domains and bans, in their own collection."""

from comments.moderation import blocklist


def test_entries_are_stored_normalised_and_once(mongo_db):
    """Values are trimmed and lower-cased (a domain loses its "@"); adding one twice keeps one."""
    assert blocklist.add_entry(kind=blocklist.WORD, value="  Cheap   PILLS ", added_by="bruno")
    assert not blocklist.add_entry(kind=blocklist.WORD, value="cheap pills")
    assert blocklist.add_entry(kind=blocklist.DOMAIN, value="@Spam.Example")
    assert [(e.kind, e.value, e.added_by) for e in blocklist.find_entries()] == [
        ("domain", "spam.example", ""), ("word", "cheap pills", "bruno"),
    ]
    assert mongo_db.comment_blocklist.count_documents({}) == 2


def test_the_unique_index_guards_against_two_editors_at_once(mongo_db):
    """The collection has a unique {kind, value} index."""
    info = mongo_db.comment_blocklist.index_information()["kind_value"]
    assert info["key"] == [("kind", 1), ("value", 1)] and info["unique"]


def test_screen_reads_terms_and_only_the_bans_of_the_commenter(mongo_db, commands):
    """One query gives the words, the domains and whether this user, e-mail or IP is banned."""
    blocklist.add_entry(kind=blocklist.WORD, value="casino")
    blocklist.add_entry(kind=blocklist.DOMAIN, value="spam.example")
    blocklist.add_entry(kind=blocklist.BAN_EMAIL, value="Bad@Example.org")
    blocklist.add_entry(kind=blocklist.BAN_USER, value="7")
    commands.reset()
    clean = blocklist.screen(user_id=8, email="good@example.org", ip="192.0.2.1")
    assert commands.names == ["find"]
    assert clean.words == ("casino",) and clean.domains == ("spam.example",) and not clean.banned
    assert blocklist.screen(user_id=None, email="bad@example.ORG", ip=None).banned
    assert blocklist.screen(user_id=7, email="", ip=None).banned


def test_removing_an_entry_lifts_it(mongo_db):
    """remove_entry takes an entry off by id; an unknown or malformed id removes nothing."""
    blocklist.add_entry(kind=blocklist.BAN_IP, value="192.0.2.1")
    entry = blocklist.find_entries()[0]
    assert not blocklist.remove_entry(entry_id="not-an-id")
    assert blocklist.remove_entry(entry_id=str(entry.id))
    assert not blocklist.screen(user_id=None, email="", ip="192.0.2.1").banned
    assert not blocklist.remove_entry(entry_id=str(entry.id))
