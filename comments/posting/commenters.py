"""A commenter's name and e-mail address cleaned as the site stores them: the one
cleaning the importers call (comments/transfer/importing.py, for Disqus and WordPress),
made of the same parts the comment form uses (comments/posting/names.py,
comments/addresses.py, Django's e-mail validation).

- The name: bidi controls and invisible characters dropped, line breaks and
  controls made spaces (`names.clean`); empty is the importer's to fill in.
- The name of one of the site's authors, however spelled (`names.is_taken`: look-alike
  letters too), is refused, unless the operator says the file is trusted
  (`import_comments --trust-names`): a file could otherwise put an editor's name
  under anyone's words.
- The e-mail address: refused with line breaks or control characters
  ("\\r\\nBcc: ...") or when it is not an address; otherwise normalised as mail is
  delivered to it (`addresses.normalise`); empty stays empty.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from comments import addresses
from comments.posting import names

# Why a line is refused: the import's report counts them by these words.
RESERVED_NAME = "the name of one of this site's authors (pass --trust-names if the file is trusted)"
CONTROL_IN_EMAIL = "an e-mail address with line breaks or control characters"
BAD_EMAIL = "an e-mail address that is not one"
EMAIL_MAX_LENGTH = 254


class Refused(ValueError):
    """A commenter the site does not store as given; the message says why."""


@dataclass(frozen=True)
class Commenter:
    name: str
    email: str


def clean_imported(*, name: str, email: str, trust_names: bool = False) -> Commenter:
    """The name and address of an imported comment as they are stored; Refused (with
    one of this module's reasons) when the line must not be imported."""
    name = names.clean(name or "")
    if name and not trust_names and names.is_taken(name):
        raise Refused(RESERVED_NAME)
    return Commenter(name=name, email=clean_email(email or ""))


def clean_email(email: str) -> str:
    """An address as stored ("" for none); Refused when it is not one."""
    if addresses.has_control_characters(email):
        raise Refused(CONTROL_IN_EMAIL)
    email = addresses.normalise(email)
    if not email:
        return ""
    try:
        validate_email(email)
    except ValidationError:
        raise Refused(BAD_EMAIL) from None
    if len(email) > EMAIL_MAX_LENGTH:
        raise Refused(BAD_EMAIL)
    return email
