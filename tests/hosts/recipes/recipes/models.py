from django.db import models
from django.urls import reverse


class Recipe(models.Model):
    slug = models.SlugField(unique=True)
    title = models.CharField(max_length=200)

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("recipe", args=[self.slug])
