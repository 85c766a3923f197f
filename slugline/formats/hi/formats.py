"""Hindi dates use Django's formats ("29 नवंबर 2026"); the month names they use come
from our catalog, not Django's, whose `hi` catalog misspells three of them (सितमबर,
नवमबर, दिसमबर for सितंबर, नवंबर, दिसंबर). Named here so that `make messages` keeps
those entries in locale/hi/LC_MESSAGES/django.po."""

from django.utils.translation import gettext_noop

CORRECTED_MONTHS = (gettext_noop("September"), gettext_noop("November"), gettext_noop("December"))

# Django has no Hindi date-and-time format, so its default ("N j, Y, P": "नवम्बर. 29,
# 2026, 10:05 बजे", in English order with an abbreviated month) would be used.
DATETIME_FORMAT = "j F Y, H:i"

# Django's Hindi formats group no digits; Hindi groups as Indian English does: the
# last three, then by two ("10,000", "12,34,567").
NUMBER_GROUPING = (3, 2, 0)
