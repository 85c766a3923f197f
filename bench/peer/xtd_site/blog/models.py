from django.db import models
from django.urls import reverse


class Post(models.Model):
    """A blog post; `body` is HTML (Slugline's rendered Markdown, imported as is)."""

    title = models.CharField(max_length=200)
    slug = models.SlugField(unique=True)
    body = models.TextField()
    published = models.DateTimeField()

    def __str__(self):
        return self.title

    def get_absolute_url(self):
        return reverse("post", args=[self.slug])
