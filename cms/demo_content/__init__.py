"""What the demo is made of, language by language: an article, a commenter, and a
voice (how one language's readers talk: who they are and the remarks and replies
their discussions draw on).

Each language's content sits in one module beside this one (english, vietnamese,
hindi, indonesian), written in that language (the others are not translated from the
English posts); cms.demo turns them all into a site.
"""

from __future__ import annotations

from dataclasses import dataclass

from comments.api import CommentAuthor


@dataclass(frozen=True)
class Article:
    """A demo post. `talk` holds exchanges in its comments: each line answers the one
    before it, and starts with its speaker: "A: ", "B: ", "C: " (commenters) or
    "@: " (the post's author). `language` is the code of the language it is written in,
    and its discussion's."""

    slug: str
    title: str
    author: str
    tags: tuple[str, ...]
    excerpt: str
    body: str
    talk: tuple[tuple[str, ...], ...] = ()
    language: str = "en"


@dataclass(frozen=True)
class Commenter:
    """Someone in the demo's discussions; `called` is the name others address them by
    ("@Hà" for Nguyễn Thu Hà), when it is not the first word of their name."""

    name: str
    email: str = ""
    user_id: int | None = None
    called: str = ""

    @property
    def first_name(self) -> str:
        return self.called or self.name.split()[0]

    def as_author(self) -> CommentAuthor:
        # The demo's members are its authors: staff.
        return CommentAuthor(id=self.user_id, name=self.name, email=self.email, staff=self.user_id is not None)


@dataclass(frozen=True)
class Voice:
    """One language's readers: who comments, the remarks (`praise` among them, which
    nobody answers) and replies each discussion draws from without repeats, and long
    back-and-forths between two people for long discussions. `mixed` holds the lines
    written partly in another language on purpose (Hinglish under a Hindi post), and
    `given_name_last` says that people go by the last word of their name."""

    language: str
    commenters: tuple[Commenter, ...]
    praise: tuple[str, ...]
    remarks: tuple[str, ...]
    agreements: tuple[str, ...]
    thanks: tuple[str, ...]
    follow_ups: tuple[str, ...]
    doubts: tuple[str, ...]
    debates: tuple[tuple[str, ...], ...]
    mixed: frozenset[str] = frozenset()
    given_name_last: bool = False

    @property
    def replies(self) -> dict[str, tuple[str, ...]]:
        return {"agree": self.agreements, "thanks": self.thanks, "follow_up": self.follow_ups, "doubt": self.doubts}

    def host(self, *, name: str, user_id: int | None) -> Commenter:
        """The post's author, as they take part in its discussion."""
        called = name.split()[-1] if self.given_name_last else ""
        return Commenter(name=name, user_id=user_id, called=called)
