"""The API reference page fits a phone and a desktop screen (issue 36, item 23): long
paths wrap and the examples scroll inside their boxes."""

import pytest

from tests.browser.test_browser_screenshots import WIDTHS, shoot


@pytest.mark.parametrize("device", WIDTHS)
def test_the_api_reference_fits_the_screen(open_page, screenshots, device):
    width = WIDTHS[device]
    page = open_page(width=width)
    page.goto("/api/v1/reference/")
    assert page.locator(".api-operation").count() >= 10
    shoot(page, screenshots, "api-reference", width)
