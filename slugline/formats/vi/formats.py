"""Vietnamese dates for reading mid-sentence ("Bởi Lan, 29 tháng 11 năm 2026"):
Django's own formats start with a capital "Ngày", as if every date began a line.
The rest of Django's Vietnamese formats stand (FORMAT_MODULE_PATH in settings.py)."""

DATE_FORMAT = r"j \t\há\n\g n \nă\m Y"
DATETIME_FORMAT = r"H:i, \n\gà\y j \t\há\n\g n \nă\m Y"

# Django's Vietnamese formats group no digits (NUMBER_GROUPING 0), so "10,000" in a
# message would read "10000"; Vietnamese writes "10.000" (THOUSAND_SEPARATOR is Django's ".").
NUMBER_GROUPING = 3
