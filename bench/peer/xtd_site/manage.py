#!/usr/bin/env python
"""The peer site's manage.py (run it with var/peer-venv/bin/python)."""

import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "xtd_site.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
