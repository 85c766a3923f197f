from typing import Any

from django.core.management.base import BaseCommand

from infra.mongo import ensure_all_indexes


class Command(BaseCommand):
    help = "Create every MongoDB collection's indexes. Safe to run again."

    def handle(self, *args: Any, **options: Any) -> None:
        names = ensure_all_indexes()
        self.stdout.write(f"Indexes in place: {', '.join(names)}.")
