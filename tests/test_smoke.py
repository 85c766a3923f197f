def test_home_lists_a_published_post(client, make_post):
    """The home page shows a published post's title."""
    make_post(title="Hello Slugline")
    response = client.get("/")
    assert response.status_code == 200
    assert b"Hello Slugline" in response.content
