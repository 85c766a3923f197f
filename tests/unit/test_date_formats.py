"""Dates in each language as the pages write them (slugline/formats/, our catalogs):
Hindi month names spelt right, Vietnamese dates that read well mid-sentence."""

from datetime import datetime, timezone

import pytest
from django.utils import translation
from django.utils.formats import date_format

MONTHS = [datetime(2026, month, 29, 10, 5, tzinfo=timezone.utc) for month in (9, 11, 12)]


@pytest.mark.parametrize("moment, month", list(zip(MONTHS, ["सितंबर", "नवंबर", "दिसंबर"], strict=True)))
def test_hindi_month_names_are_spelt_right(moment, month):
    """Django's hi catalog has सितमबर, नवमबर, दिसमबर (the anusvara lost)."""
    with translation.override("hi"):
        assert date_format(moment, "DATE_FORMAT") == f"29 {month} 2026"
        assert date_format(moment, "DATETIME_FORMAT") == f"29 {month} 2026, 10:05"


def test_vietnamese_dates_have_no_capital_mid_line():
    with translation.override("vi"):
        assert date_format(MONTHS[1], "DATE_FORMAT") == "29 tháng 11 năm 2026"
        assert date_format(MONTHS[1], "DATETIME_FORMAT") == "10:05, ngày 29 tháng 11 năm 2026"


def test_english_dates_are_as_before():
    with translation.override("en"):
        assert date_format(MONTHS[1], "DATE_FORMAT") == "29 November 2026"
