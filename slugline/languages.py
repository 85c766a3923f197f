"""The site's languages (issue 20): which ones there are and which is the default.

Pure: settings.py calls `default_language` on the environment's LANGUAGE_CODE, so a
typo stops the site at start-up with a sentence saying what to set, instead of every
page quietly falling back to English.
"""

from django.core.exceptions import ImproperlyConfigured

# Each language's name in its own language: the switcher shows them as they are.
LANGUAGES = [
    ("en", "English"),
    ("vi", "Tiếng Việt"),
    ("hi", "हिन्दी"),
    ("id", "Bahasa Indonesia"),
]
UNKNOWN_LANGUAGE = "LANGUAGE_CODE is {value!r}; the site's languages are: {known}."


def default_language(value: str, languages=LANGUAGES) -> str:
    """`value` as a language code of `languages` (case and "_" forgiven: "VI", "en_US"
    is not one, "en" is); ImproperlyConfigured for anything else."""
    code = value.strip().lower().replace("_", "-")
    known = [known_code for known_code, _name in languages]
    if code not in known:
        raise ImproperlyConfigured(UNKNOWN_LANGUAGE.format(value=value, known=", ".join(known)))
    return code
