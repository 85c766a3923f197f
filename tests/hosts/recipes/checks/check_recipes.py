"""The comments app in a project that is not Slugline: a recipe site with the five lines
(tests/hosts/recipes/recipes_site/settings.py), each recipe a discussion."""

import pytest
from bson import ObjectId

from comments.model_host import discussion_key
from comments.stores import discussion_state
from recipes.models import Recipe
from tests.page_reading import page, submit

RECIPE = "/recipes/pho/"
COMMENTS = "/recipes/pho/comments/"


@pytest.fixture
def recipe():
    return Recipe.objects.create(slug="pho", title="Phở bò")


def posted(client, **fields):
    response = submit(client, RECIPE, **fields)
    assert response.status_code == 303, response.content.decode()[:2000]
    return response


def test_a_comment_posted_without_javascript_lands_on_the_recipe(client, recipe):
    response = posted(client, text="Star anise, always.")
    assert response["Location"].startswith(COMMENTS) or response["Location"].startswith(RECIPE)
    shown = page(client.get(RECIPE))
    assert [c["text"] for c in shown.comments] == ["Star anise, always."]


def test_the_discussion_is_the_recipes_key_and_maps_back_to_it(client, recipe):
    posted(client)
    key = discussion_key("recipes.recipe", recipe.pk)
    assert isinstance(key, ObjectId)
    assert discussion_state.names([key]) == {key: ("recipes.recipe", str(recipe.pk))}
    from comments.host import get_host

    [found] = get_host().get_many([key])
    assert found.instance == recipe and found.title == "Phở bò"
