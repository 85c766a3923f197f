"""The deploy check on SITE_URL (slugline/checks.py): mail links must name the site."""

import pytest

from slugline import checks


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000", "http://localhost:8137", "http://[::1]:8000",
                                 "http://127.0.1.1"])
def test_a_loopback_site_url_is_a_deploy_warning(settings, url):
    settings.SITE_URL = url
    [warning] = checks.site_url(None)
    assert warning.id == "cms.W002" and url in warning.msg


@pytest.mark.parametrize("url", ["https://blog.example.com", "http://10.0.0.5:8000"])
def test_the_site_s_own_address_passes(settings, url):
    settings.SITE_URL = url
    assert checks.site_url(None) == []
