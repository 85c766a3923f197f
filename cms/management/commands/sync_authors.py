from django.core.management.base import BaseCommand

from cms.authors import sync_all_authors


class Command(BaseCommand):
    help = (
        "Bring every author copy in posts and comments (and the posts' comment summaries) "
        "in line with the authors' profiles. Finishes an interrupted rename; safe to run again."
    )

    def handle(self, *args, **options):
        repaired = sync_all_authors()
        self.stdout.write(
            f"Repaired {repaired.posts} posts, {repaired.comments} comments "
            f"and {repaired.summaries} comment summaries."
        )
