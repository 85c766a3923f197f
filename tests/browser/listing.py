"""Which comments a page lists, read once the page has settled.

A click on a link starts a navigation; the address changes when the new document
commits, before its body is parsed. Reading the list at that moment finds nothing, or
still the old page. `expect_listed` waits, as Playwright's own `expect` does, until the
page lists the expected comments, and fails with the difference when it never does.
"""

from playwright.sync_api import TimeoutError as PlaywrightTimeout

COMMENT_LIST = "#comments .comment-list article.comment"
_SLUGS = "selector => [...document.querySelectorAll(selector)].map(a => a.dataset.slug)"


def listed(page, selector: str = COMMENT_LIST) -> list[str]:
    """The slugs of the comments the selector finds now, in page order."""
    return page.evaluate(_SLUGS, selector)


def expect_listed(page, expected: list[str], selector: str = COMMENT_LIST, timeout_ms: int = 10_000) -> None:
    """Wait until the page lists exactly `expected` (slugs, in order); across navigations."""
    try:
        page.wait_for_function(
            f"([selector, expected]) => JSON.stringify(({_SLUGS})(selector)) === JSON.stringify(expected)",
            arg=[selector, expected],
            timeout=timeout_ms,
        )
    except PlaywrightTimeout:
        pass
    assert listed(page, selector) == expected
