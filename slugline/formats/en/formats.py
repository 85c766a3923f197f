"""English dates as the site has always written them ("30 November 2026"), where
Django's own English formats would say "Nov. 30, 2026". Other languages use Django's
formats for them (FORMAT_MODULE_PATH in settings.py)."""

DATE_FORMAT = "j F Y"
DATETIME_FORMAT = "j F Y, H:i e"
