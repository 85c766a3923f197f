from django.core.management.base import BaseCommand, CommandError

from cms import demo, posts


class Command(BaseCommand):
    help = "Create deterministic demo authors, posts and threaded comments."

    def add_arguments(self, parser):
        parser.add_argument("--posts", type=int, default=None,
                            help=f"how many posts (default {len(demo.ARTICLES)}, one per demo article)")
        parser.add_argument("--comments", type=int, default=None,
                            help="comments per post (default: a long-tailed mix)")
        parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
        parser.add_argument("--force", action="store_true", help="add content to a non-empty database")
        parser.add_argument("--if-empty", action="store_true",
                            help="on a non-empty database, say so and exit successfully")

    def handle(self, *args, **options):
        if (options["posts"] or 0) < 0 or (options["comments"] or 0) < 0:
            raise CommandError("--posts and --comments take a number from 0 up.")
        if not options["force"] and not posts.is_empty():
            message = "The database already has posts; seed_demo added nothing (use --force to add more)."
            if options["if_empty"]:
                self.stdout.write(message)
                return
            raise CommandError(message)
        seeded = demo.seed(num_posts=options["posts"], comments_per_post=options["comments"], seed=options["seed"])
        self.stdout.write(self.style.SUCCESS(
            f"Seeded {seeded.authors} authors, {seeded.posts} posts and {seeded.comments} comments."
        ))
        self.stdout.write(
            f"To log in as the demo editor, {demo.EDITOR}: .venv/bin/python manage.py demo_login"
        )
