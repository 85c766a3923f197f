"""Relative times ("3 मिनट पहले") come from Django's humanize catalogs, and Hindi's
lacks those under a day. Naming the same texts here (count and unit joined by a
no-break space, as in django.contrib.humanize) puts them in the site's catalogs
under locale/, which Django reads before its own (LOCALE_PATHS). Nothing calls
these: they are here for makemessages.
"""

from django.utils.translation import ngettext_lazy

HUMANIZE_TIMES = (
    ngettext_lazy("a second ago", "%(count)s seconds ago", "count"),
    ngettext_lazy("a minute ago", "%(count)s minutes ago", "count"),
    ngettext_lazy("an hour ago", "%(count)s hours ago", "count"),
    ngettext_lazy("a second from now", "%(count)s seconds from now", "count"),
    ngettext_lazy("a minute from now", "%(count)s minutes from now", "count"),
    ngettext_lazy("an hour from now", "%(count)s hours from now", "count"),
)
