"""The comments app in a project that is not Slugline: a recipe site with the five lines
(tests/hosts/recipes/recipes_site/settings.py), each recipe a discussion. Everything a
reader does, through the recipe's own URLs."""

import re

import pytest
from bson import ObjectId
from django.contrib.staticfiles import finders
from django.templatetags.static import static
from django.test import Client

from comments.host import get_host
from comments.model_host import discussion_key
from comments.stores import discussion_state
from comments.templatetags.comments import SCRIPTS, STYLESHEET
from recipes.models import Recipe
from tests.command_log import registered
from tests.page_reading import page, submit

RECIPE = "/recipes/pho/"
COMMENTS = "/recipes/pho/comments/"


@pytest.fixture
def recipe():
    return Recipe.objects.create(slug="pho", title="Phở bò")


def posted(client, page_url=RECIPE, **fields) -> str:
    """Post the form of `page_url` without JavaScript; the new comment's slug."""
    response = submit(client, page_url, **fields)
    assert response.status_code == 303, response.content.decode()[:1000]
    landed = page(client.get(response["Location"]))
    return next(c["slug"] for c in landed.comments if c["text"] == fields.get("text", "A fine post."))


def test_a_comment_without_javascript_is_a_form_post_and_a_redirect_to_the_recipe(client, recipe):
    response = submit(client, RECIPE, text="Star anise, always.")
    assert response.status_code == 303
    assert response["Location"].split("#")[0].rstrip("?").startswith(("/recipes/pho/",))
    assert [c["text"] for c in page(client.get(RECIPE)).comments] == ["Star anise, always."]


def test_a_comment_in_place_answers_the_drawn_comment(client, recipe):
    shown = page(client.get(RECIPE))
    data = {**shown.inputs, **shown.textareas, "name": "Rosa", "email": "rosa@example.com", "text": "Lime!"}
    response = client.post(shown.form_action, data, headers={"Slugline-In-Place": "1", "Slugline-Page": RECIPE})
    assert response.status_code in (200, 201), response.content[:500]
    # Placed on the recipe's page the script sent (the link after it is the script's fallback).
    assert 'class="posted"' in response.content.decode() and 'data-placed="yes"' in response.content.decode()
    assert [c["text"] for c in page(client.get(RECIPE)).comments] == ["Lime!"]


def test_a_reply_and_its_permalink_under_the_recipes_url(client, recipe):
    parent = posted(client, text="Which noodles?")
    permalink = f"{COMMENTS}{parent}/"
    reply_page = page(client.get(permalink))
    assert reply_page.form_action.startswith(COMMENTS)
    reply = posted(client, page_url=permalink, text="Flat rice noodles.", parent=parent)
    shown = page(client.get(f"{COMMENTS}{reply}/"))
    assert [c["text"] for c in shown.comments][-2:] == ["Which noodles?", "Flat rice noodles."]
    assert shown.comments[-1]["depth"] == "1"


def test_the_views_page_through_threaded_and_newest(client, recipe, settings):
    settings.COMMENTS_PER_PAGE = 2
    for text in ("One", "Two", "Three"):
        posted(client, text=text)
    threaded = page(client.get(f"{COMMENTS}?view=threaded"))
    assert [c["text"] for c in threaded.comments] == ["One", "Two"]
    following = threaded.rel("next")
    assert following and [c["text"] for c in page(client.get(following)).comments] == ["Three"]
    assert [c["text"] for c in page(client.get(f"{COMMENTS}?view=newest")).comments] == ["Three", "Two"]


def test_a_vote_and_a_flag(client, recipe):
    slug = posted(client, text="Fish sauce first.")
    reader = Client(REMOTE_ADDR="192.0.2.8")  # not its author, who may not vote on it
    response = reader.post(f"{COMMENTS}{slug}/vote/", {"vote": "up", "next": RECIPE})
    assert response.status_code == 303
    article = next(c for c in page(reader.get(RECIPE)).comments if c["slug"] == slug)
    assert article["html_attrs"]["data-votes-up"] == "1"
    flag = Client(REMOTE_ADDR="192.0.2.9").post(f"{COMMENTS}{slug}/flag/", {"reason": "spam"})
    assert flag.status_code == 303


def test_its_author_edits_then_deletes_their_comment(client, recipe):
    slug = posted(client, text="Too much salt.")
    edit = client.post(f"{COMMENTS}{slug}/edit/", {"text": "Just enough salt."})
    assert edit.status_code == 303
    assert [c["text"] for c in page(client.get(RECIPE)).comments] == ["Just enough salt."]
    assert client.post(f"{COMMENTS}{slug}/delete/", {"confirm": "yes"}).status_code == 303
    assert page(client.get(RECIPE)).comments == []


def test_the_apps_pages_use_its_own_layout_without_the_blogs_name(client, recipe):
    slug = posted(client, text="Basil.")
    html = client.get(f"{COMMENTS}{slug}/").content.decode()
    assert 'class="comments-page' in html and "Slugline" not in re.sub(r"Slugline-\w+", "", html)


def test_the_pages_link_the_apps_stylesheet_and_scripts_once_where_staticfiles_finds_them(client, recipe):
    """The recipe page's template has only `{% comment_section recipe %}`: the section
    links the app's files itself, once; the app's own layout links them in its <head>;
    django.contrib.staticfiles (in every startproject) finds them in the app."""
    html = client.get(RECIPE).content.decode()
    permalink = client.get(f"{COMMENTS}{posted(client, text='Cardamom.')}/").content.decode()
    for name in (STYLESHEET, *SCRIPTS):
        assert html.count(f'"{static(name)}"') == 1, name
        assert permalink.split("</head>")[0].count(f'"{static(name)}"') == permalink.count(static(name)) == 1
        assert finders.find(name), name
    assert html.index(static(STYLESHEET)) < html.index('<section id="comments"')


def test_the_discussion_is_the_recipes_key_and_maps_back_to_it(client, recipe):
    posted(client)
    key = discussion_key("recipes.recipe", recipe.pk)
    assert isinstance(key, ObjectId)
    assert discussion_state.names([key]) == {key: ("recipes.recipe", str(recipe.pk))}
    [found] = get_host().get_many([key])
    assert found.instance == recipe and found.title == "Phở bò"
    assert get_host().get(key).slug == "pho"


def test_an_unknown_recipe_is_404(client, recipe):
    assert client.get("/recipes/nope/comments/").status_code == 404


def test_a_discussion_model_that_is_not_installed_stops_the_site_at_start_up(settings):
    from comments import checks

    assert checks.loadable_host(None) == []
    settings.COMMENTS_DISCUSSION_MODEL = "recipes.Nope"
    assert [error.id for error in checks.loadable_host(None)] == ["comments.E007"]


def test_the_page_titles_take_the_site_name_from_the_setting(client, recipe, settings):
    slug = posted(client, text="Coriander.")
    settings.COMMENTS_SITE_NAME = "Bếp nhà"
    title = re.search(r"<title>(.*?)</title>", client.get(f"{COMMENTS}{slug}/").content.decode()).group(1)
    assert title.endswith(" · Bếp nhà")


COMMANDS = registered()  # at import, before the session's client is made


def test_reading_a_recipe_page_again_writes_nothing(client, recipe):
    assert client.get(RECIPE).status_code == 200  # records the recipe's model and pk once
    COMMANDS.reset()
    for _ in range(3):
        assert client.get(RECIPE).status_code == 200
    assert COMMANDS.count and COMMANDS.writes == []
