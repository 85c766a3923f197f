"""What the comment form does with the text as sent: the server judges its length
(no `maxlength` cuts a long paste; the whole text comes back with the limit and its
length, their digits grouped as the reader's language writes them), and a form whose
bytes are not UTF-8 is refused with a message beside the field, never stored damaged
and never a 500."""

from __future__ import annotations

import pytest
from django.utils import translation

from comments.posting.forms import NOT_UTF8, TOO_LONG
from comments.stores import get_store
from tests.page_reading import page, post_url, submit

pytestmark = pytest.mark.usefixtures("each_store")

LIMIT = 10_000
TAIL = " The tail that maxlength used to cut."
LONG = ("Start. " + "word " * 2_100)[:10_050 - len(TAIL)] + TAIL


@pytest.fixture(autouse=True)
def _default_limit(settings):
    settings.COMMENTS_MAX_LENGTH = LIMIT


def test_the_textarea_has_no_maxlength_and_says_the_limit(client, make_post):
    post = make_post()
    html = client.get(post_url(post)).content.decode()
    textarea = html[html.index('<textarea name="text"'):].split(">", 1)[0]
    assert "maxlength" not in textarea and f'data-limit="{LIMIT}"' in textarea
    assert 'aria-describedby="id_text-count"' in textarea
    assert page(client.get(post_url(post))).text_of("text-count") == ["At most 10,000 characters."]


@pytest.mark.parametrize(("language", "limit", "length"), [("en", "10,000", "10,050"), ("vi", "10.000", "10.050")])
def test_an_over_long_text_comes_back_whole_with_grouped_numbers(client, make_post, language, limit, length):
    assert len(LONG) == 10_050
    post = make_post()
    client.cookies.load({"django_language": language})
    response = submit(client, post_url(post), text=LONG)
    assert response.status_code == 400
    shown = page(response)
    assert shown.textareas["text"] == LONG
    with translation.override(language):
        expected = translation.gettext(TOO_LONG) % {"limit_value": limit, "show_value": length}
    assert shown.text_of("field-error") == [expected]
    assert limit in expected and length in expected
    if language != "en":
        assert expected != TOO_LONG % {"limit_value": limit, "show_value": length}
    assert list(get_store().iter_documents()) == []


@pytest.mark.parametrize("field", ["text", "name"])
def test_percent_encoded_bytes_that_are_not_utf8_are_refused_beside_the_field(client, make_post, field):
    post = make_post()
    shown = page(client.get(post_url(post)))
    fields = {**shown.inputs, "text": "Fine words", "name": "Rosa", "email": ""}
    fields.pop(field)
    body = "&".join(f"{name}={value}" for name, value in _encoded(fields)) + f"&{field}=caf%E9%20%ED%A0%80"
    response = client.post(shown.form_action, data=body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert NOT_UTF8 in page(response).text_of("field-error")
    assert list(get_store().iter_documents()) == []


def _encoded(fields: dict[str, str]):
    from urllib.parse import quote_plus

    return [(quote_plus(name), quote_plus(value)) for name, value in fields.items()]
