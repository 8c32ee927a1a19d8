"""The viewer's pages are registered once, in Site/js/pages.js: in headless Chromium, every page's navigation links
home (except the home page) and every other registered page, and the home page has one card for each."""
import pathlib
import re

from selenium.webdriver.common.by import By

from test_viewer_browser import browser, downloads, no_content_security_policy_violations  # noqa: F401 (fixtures)

SITE = pathlib.Path(__file__).resolve().parents[2] / "Sources" / "MeridianViewer" / "Site"


def registered():
    """The hrefs of the entries of `pages` in js/pages.js, in order (each entry starts a line with its href)."""
    return re.findall(r'^\s*href: "([^"]+)"', (SITE / "js" / "pages.js").read_text(), re.MULTILINE)


def test_every_page_of_the_site_is_registered():
    pages = sorted("/" + p.name for p in SITE.glob("*.html") if p.name != "index.html")
    assert sorted(registered()) == pages


def test_every_page_links_every_registered_page_and_the_home_page_has_their_cards(browser, viewer):
    d, pages = browser, registered()
    assert pages
    for path in ["/"] + pages:
        d.get(viewer.url + path.lstrip("/"))
        links = [a.get_attribute("href") for a in d.find_elements(By.CSS_SELECTOR, "header.bar nav a")]
        expected = ([] if path == "/" else ["/"]) + [p for p in pages if p != path]
        assert links == [viewer.url + p.lstrip("/") for p in expected], path
    d.get(viewer.url)
    cards = d.find_elements(By.CSS_SELECTOR, "main.cards a.card")
    assert [c.get_attribute("href") for c in cards] == [viewer.url + p.lstrip("/") for p in pages]
    assert all(c.find_element(By.TAG_NAME, "h2").text and c.find_element(By.TAG_NAME, "p").text for c in cards)
