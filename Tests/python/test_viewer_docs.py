"""`meridian serve --docs` serves the DocC site that scripts/docs.sh builds into .build/docs (scripts/test.sh builds
it before this harness runs; the `docs_site` fixture builds it when it is missing or stale) at /docs/: one page and its data over HTTP, the viewer's file rules (only files of the
site, by exact path) and the page as DocC's JavaScript renders it in headless Chromium."""
import json
import pathlib

import pytest

from viewer_support import ROOT, Viewer

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


@pytest.fixture(scope="module")
def docs_viewer(meridian, docs_site):
    v = Viewer(meridian, "--docs", str(docs_site))
    yield v
    status, err = v.stop()
    assert status == 0, err


def test_landing_page_and_its_data_are_served_under_docs(docs_viewer):
    status, headers, body = docs_viewer.request("GET", "/docs/documentation/meridian/")
    assert status == 200
    assert headers["Content-Type"].startswith("text/html")
    assert b'var baseUrl = "/docs/"' in body  # built for /docs/: its scripts and data load from there
    status, headers, body = docs_viewer.request("GET", "/docs/data/documentation/meridian.json")
    assert status == 200
    assert headers["Content-Type"].startswith("application/json")
    page = json.loads(body)
    assert page["metadata"]["title"] == "Meridian"
    topics = {i for section in page["topicSections"] for i in section["identifiers"]}
    # The landing page links the articles and the other modules (merged into the same site).
    assert "doc://Meridian/documentation/Meridian/GettingStarted" in topics
    assert "doc://MeridianCore/documentation/MeridianCore" in topics
    status, _, _ = docs_viewer.request("GET", "/docs/documentation/meridiancore/point/")
    assert status == 200


def test_docs_redirects_and_refuses_what_is_not_a_site_file(docs_viewer):
    status, headers, _ = docs_viewer.request("GET", "/docs/documentation/meridian")  # folder without slash
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    reply = docs_viewer.raw(b"GET /docs HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n" % docs_viewer.port)
    assert reply.startswith(b"HTTP/1.1 301") and b"Location: /docs/" in reply
    for target in (b"/docs/../Package.swift", b"/docs/%2e%2e/Package.swift", b"/docs/..%2fPackage.swift",
                   b"/docs/no-such-page.html"):
        reply = docs_viewer.raw(b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n"
                                % docs_viewer.port)
        assert reply.split(b"\r\n", 1)[0] in (b"HTTP/1.1 404 Not Found", b"HTTP/1.1 400 Bad Request"), (target, reply[:80])
        assert b"swift-tools-version" not in reply


def test_viewer_without_docs_answers_404_with_the_way_to_build_them(meridian):
    v = Viewer(meridian)
    try:
        status, _, body = v.request("GET", "/docs/documentation/meridian/")
        assert status == 404 and b"scripts/docs.sh" in body
    finally:
        status, err = v.stop()
        assert status == 0, err


def test_serve_refuses_a_docs_folder_without_a_site(meridian, tmp_path):
    import subprocess
    out = subprocess.run([meridian, "serve", "--port", "0", "--docs", str(tmp_path)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 1
    assert str(tmp_path) in out.stderr and "scripts/docs.sh" in out.stderr


@pytest.mark.browser
def test_browser_renders_the_getting_started_article(docs_viewer):
    selenium = pytest.importorskip("selenium")  # noqa: F841 (installed by scripts/python-env.sh)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait
    if not (pathlib.Path(CHROMIUM).exists() and pathlib.Path(CHROMEDRIVER).exists()):
        pytest.fail("chromium/chromedriver missing: run scripts/install-deps.sh --browser")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.set_page_load_timeout(30)
        driver.get(docs_viewer.url + "docs/documentation/meridian/gettingstarted")
        # DocC renders the article from its JSON: the title and a symbol link to another module's page.
        WebDriverWait(driver, 30).until(lambda d: "Getting started" in d.find_element("tag name", "body").text,
                                        "the article did not render")
        links = [a.get_attribute("href") or "" for a in driver.find_elements("tag name", "a")]
        assert any(h.endswith("/docs/documentation/meridiancore/spatialreference") for h in links), links
    finally:
        driver.quit()
