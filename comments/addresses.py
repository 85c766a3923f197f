"""E-mail addresses as they are delivered: the one normalisation every part of the
comments app uses before it compares, counts, stores or bans an address (the rate
limits on confirmation mail, the outbox's keys, subscriptions, confirmed addresses,
bans and blocked domains).

- The whole address: NFKC (full-width and other compatibility forms become the
  letters they stand for), default-ignorable code points (zero-width spaces, bidi
  controls) dropped, surrounding whitespace trimmed.
- The domain: IDNA (UTS #46, non-transitional), so any spelling of a domain becomes
  the ASCII form mail is delivered to: lower case, Punycode for non-ASCII labels
  ("dave@ｔarget.test" is "dave@target.test", "rosa@Bücher.example" is
  "rosa@xn--bcher-kva.example"), without a trailing dot.
- The local part (before the last "@"): lower-cased too. RFC 5321 lets a mail
  server tell "Rosa" from "rosa", but the providers people use do not, and the site
  always compared addresses without case; so a different case can never pass for a
  different mailbox (to dodge a limit or a ban). Dots and "+tags" are kept: what
  they mean is each provider's own rule, and guessing it wrong would merge
  different people's mailboxes.

Pure functions, no I/O.
"""

from __future__ import annotations

import unicodedata

from comments.internal import unicode_text

# Characters that never belong in an address (header injection: "\r\nBcc: ...").
_CONTROL = {"Cc", "Zl", "Zp"}


def normalise_domain(domain: str) -> str:
    """A domain (of an address, or as an editor blocks it: "@Spamco.test") as mail
    is delivered to it; a domain IDNA refuses is kept in NFKC lower case (it matches
    only itself)."""
    text = unicode_text.drop_invisible(unicodedata.normalize("NFKC", str(domain))).strip()
    text = text.lstrip("@").rstrip(".")
    return unicode_text.domain_to_ascii(text) or text.lower()


def normalise(email: str) -> str:
    """One spelling per mailbox (see the module docstring); "" for an empty value."""
    text = unicode_text.drop_invisible(unicodedata.normalize("NFKC", str(email))).strip()
    local, at, domain = text.rpartition("@")
    if not at:
        return text.lower()
    return f"{local.strip().lower()}@{normalise_domain(domain)}"


def domain_of(email: str) -> str:
    """The normalised domain of an address ("" when it has none)."""
    local, at, domain = normalise(email).rpartition("@")
    return domain if at else ""


def has_control_characters(value: str) -> bool:
    """Whether `value` carries line breaks or other control characters (an address
    with "\\r\\nBcc:" in it), which no address may."""
    return any(unicodedata.category(ch) in _CONTROL for ch in str(value))
