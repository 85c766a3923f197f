"""Vietnamese dates for reading mid-sentence ("Bởi Lan, 29 tháng 11 năm 2026"):
Django's own formats start with a capital "Ngày", as if every date began a line.
The rest of Django's Vietnamese formats stand (FORMAT_MODULE_PATH in settings.py)."""

DATE_FORMAT = r"j \t\há\n\g n \nă\m Y"
DATETIME_FORMAT = r"H:i, \n\gà\y j \t\há\n\g n \nă\m Y"
