"""Relative times ("3 मिनट पहले") come from Django's humanize catalogs, and Hindi's
lacks those under a day, Hindi's and Vietnamese's those over a day ("2 दिन पहले"). Naming the same texts here (count and unit joined by a
no-break space, as in django.contrib.humanize) puts them in the site's catalogs
under locale/, which Django reads before its own (LOCALE_PATHS). Nothing calls
these: they are here for makemessages.
"""

from django.utils.translation import gettext_lazy, ngettext_lazy, npgettext_lazy

HUMANIZE_TIMES = (
    ngettext_lazy("a second ago", "%(count)s seconds ago", "count"),
    ngettext_lazy("a minute ago", "%(count)s minutes ago", "count"),
    ngettext_lazy("an hour ago", "%(count)s hours ago", "count"),
    ngettext_lazy("a second from now", "%(count)s seconds from now", "count"),
    ngettext_lazy("a minute from now", "%(count)s minutes from now", "count"),
    ngettext_lazy("an hour from now", "%(count)s hours from now", "count"),
)

# Over a day: "%(delta)s ago" around units such as "2 days" or "1 month, 2 weeks"
# (written out: makemessages reads only literal strings).
HUMANIZE_DELTAS = (
    gettext_lazy("%(delta)s ago"),
    gettext_lazy("%(delta)s from now"),
    npgettext_lazy("naturaltime-past", "%(num)d year", "%(num)d years", "num"),
    npgettext_lazy("naturaltime-past", "%(num)d month", "%(num)d months", "num"),
    npgettext_lazy("naturaltime-past", "%(num)d week", "%(num)d weeks", "num"),
    npgettext_lazy("naturaltime-past", "%(num)d day", "%(num)d days", "num"),
    npgettext_lazy("naturaltime-past", "%(num)d hour", "%(num)d hours", "num"),
    npgettext_lazy("naturaltime-past", "%(num)d minute", "%(num)d minutes", "num"),
    npgettext_lazy("naturaltime-future", "%(num)d year", "%(num)d years", "num"),
    npgettext_lazy("naturaltime-future", "%(num)d month", "%(num)d months", "num"),
    npgettext_lazy("naturaltime-future", "%(num)d week", "%(num)d weeks", "num"),
    npgettext_lazy("naturaltime-future", "%(num)d day", "%(num)d days", "num"),
    npgettext_lazy("naturaltime-future", "%(num)d hour", "%(num)d hours", "num"),
    npgettext_lazy("naturaltime-future", "%(num)d minute", "%(num)d minutes", "num"),
)
