from django.core.management.base import BaseCommand

from cms import posts


class Command(BaseCommand):
    help = "Publish the scheduled posts whose time has come. Safe to run from cron, and again."

    def handle(self, *args, **options):
        published = posts.publish_due()
        self.stdout.write(f"Published {published} scheduled post{'s' if published != 1 else ''}.")
