"""Both viewer pages driven in headless Chromium (Debian's chromium + chromedriver, selenium): clicks, dialogs,
statuses, buffers, union, clear; KML sketching, save and open. Screenshots go to artifacts/screenshots/."""
import json
import pathlib
import re
import shutil
import subprocess
import tempfile
import time
import zipfile

import pytest
from pyproj import Transformer

from viewer_support import ARTIFACTS

selenium = pytest.importorskip("selenium")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SHOTS = ARTIFACTS / "screenshots"

STATUS = {
    "add": "Tap on the map to add buffers.",
    "created": "Buffer created.",
    "outside": "Tap within the projection's horizon (dotted: the area of use widened by 5°) to add buffer.",
    "invalid": "Enter a value between 0 and 300 to create a buffer.",
}


@pytest.fixture(scope="module")
def downloads():
    path = pathlib.Path(tempfile.mkdtemp(prefix="meridian-downloads-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def browser(downloads):
    if not (pathlib.Path(CHROMIUM).exists() and pathlib.Path(CHROMEDRIVER).exists()):
        pytest.fail("chromium/chromedriver missing: run scripts/install-deps.sh --browser")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,800", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                              "download.prompt_for_download": False})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # console messages, for the CSP check
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    SHOTS.mkdir(parents=True, exist_ok=True)
    yield driver
    driver.quit()


@pytest.fixture(autouse=True)
def no_content_security_policy_violations(browser):
    """After each test: the browser console reported no violation of the pages' content security policy (the
    viewer sends one with every response: scripts, styles, images and data from the viewer only, nothing inline)."""
    browser.get_log("browser")  # what earlier tests left
    yield
    violations = [e["message"] for e in browser.get_log("browser") if "Content Security Policy" in e["message"]]
    assert not violations, violations


def test_pages_load_under_their_content_security_policy(browser, viewer):
    for page in ("/", "/buffers.html", "/kml.html"):
        status_code, headers, _ = viewer.request("GET", page)
        assert status_code == 200
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
        assert "'unsafe-inline'" not in headers["Content-Security-Policy"]
        browser.get(viewer.url + page.lstrip("/"))
        wait(browser, lambda d: d.execute_script("return document.readyState") == "complete", message=page)
        if page != "/":
            wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#map g"), message=f"{page}: the map drawn")
            idle(browser)
        # The page's own check that its script ran: the status line is filled in by it.
        if page == "/buffers.html":
            wait(browser, lambda d: status(d) == STATUS["add"], message="page 1 script ran")


def wait(driver, condition, timeout=15, message=""):
    return WebDriverWait(driver, timeout).until(lambda d: condition(d), message)


def idle(driver):
    """Waits until the page has no API request in flight."""
    wait(driver, lambda d: d.execute_script("return document.body.dataset.pending") in ("0", None), message="requests")


def status(driver):
    return driver.find_element(By.ID, "status").text


def click_world(driver, x, y):
    """Clicks the map at a world coordinate (the page's MapView converts it to pixels)."""
    svg = driver.find_element(By.ID, "map")
    px, py = driver.execute_script("return window.meridianViewer.map.toScreen(arguments[0], arguments[1])", x, y)
    size = svg.size
    assert 0 <= px < size["width"] and 0 <= py < size["height"], (px, py, size)
    ActionChains(driver).move_to_element_with_offset(svg, int(px - size["width"] / 2), int(py - size["height"] / 2)) \
        .click().perform()


def count(driver, selector):
    return len(driver.find_elements(By.CSS_SELECTOR, selector))


def shot(driver, name):
    path = SHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


# Page 1 ---------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def extent(viewer):
    return viewer.get_json("/api/srs/32038")[1]["extent"]


def at(extent, fx, fy):
    return (extent["xmin"] + fx * (extent["xmax"] - extent["xmin"]), extent["ymin"] + fy * (extent["ymax"] - extent["ymin"]))


def add_point(driver, x, y, radius):
    click_world(driver, x, y)
    dialog = wait(driver, lambda d: d.find_element(By.ID, "radius-dialog") if d.find_element(By.ID, "radius-dialog")
                  .get_attribute("open") is not None else None, message="radius dialog")
    assert "Please enter a number between 0 and 300 miles." in dialog.text
    field = driver.find_element(By.ID, "radius")
    field.clear()
    field.send_keys(str(radius))
    driver.find_element(By.ID, "radius-done").click()
    idle(driver)


def test_page1_buffers_union_clear_and_messages(browser, viewer, extent):
    d = browser
    d.get(viewer.url + "buffers.html")
    wait(d, lambda d: d.execute_script("return document.body.dataset.ready") == "1", message="page ready")
    assert status(d) == STATUS["add"]
    assert count(d, "#boundary") == 1
    assert count(d, "#horizon") == 1
    assert "GeoNames" in d.find_element(By.ID, "attribution").text
    assert count(d, ".city") > 100
    shot(d, "page1-start")

    # Out of bounds: beyond the spatial reference's horizon, the area of use widened by 5° (about 26.0°N, 0.7°
    # beyond it, twice the boundary's height below it): the map zoomed out to show it, then back.
    zoom = {t: d.find_element(By.CSS_SELECTOR, f"#zoom button[title='{t}']") for t in ("Zoom in", "Zoom out")}
    for _ in range(4):
        zoom["Zoom out"].click()
    click_world(d, *at(extent, 0.5, -2.0))
    wait(d, lambda d: status(d) == STATUS["outside"], message="out-of-bounds status")
    shot(d, "page1-out-of-bounds")
    assert d.find_element(By.ID, "radius-dialog").get_attribute("open") is None
    # Between the red dashed area of use and the dotted horizon (about 0.5° south of the area of use): accepted,
    # as the command line accepts it; the dialog opens, and Cancel adds nothing.
    click_world(d, *at(extent, 0.5, -0.08))
    wait(d, lambda d: d.find_element(By.ID, "radius-dialog").get_attribute("open") is not None,
         message="radius dialog for a tap inside the horizon")
    d.find_element(By.ID, "radius-cancel").click()
    idle(d)
    assert count(d, "circle.tap-point") == 0
    for _ in range(4):
        zoom["Zoom in"].click()

    # Three overlapping points around Dallas–Fort Worth.
    for i, (fx, fy, r) in enumerate([(0.70, 0.50, 40), (0.76, 0.52, 35), (0.73, 0.58, 30)], start=1):
        add_point(d, *at(extent, fx, fy), r)
        wait(d, lambda d: count(d, "path.buffer.planar") == i, message=f"{i} buffers")
        assert status(d) == STATUS["created"]
    assert count(d, "circle.tap-point") == 3
    shot(d, "page1-three-buffers")

    # An invalid radius: the sample's message, nothing added.
    add_point(d, *at(extent, 0.3, 0.5), 500)
    assert status(d) == STATUS["invalid"]
    assert count(d, "path.buffer.planar") == 3 and count(d, "circle.tap-point") == 3
    add_point(d, *at(extent, 0.3, 0.5), "abc")
    assert status(d) == STATUS["invalid"]

    # Union: the three overlapping buffers become one polygon, and back.
    d.find_element(By.CSS_SELECTOR, "label.switch").click()
    wait(d, lambda d: count(d, "path.buffer.planar") == 1, message="unioned")
    assert d.find_element(By.ID, "union-label").text == "Union Enabled"
    shot(d, "page1-union")
    d.find_element(By.CSS_SELECTOR, "label.switch").click()
    wait(d, lambda d: count(d, "path.buffer.planar") == 3, message="separate again")

    # A fourth point far away: under union it is a second part of the one unioned polygon (as in the sample).
    add_point(d, *at(extent, 0.15, 0.3), 25)
    wait(d, lambda d: count(d, "path.buffer.planar") == 4, message="four buffers")
    d.find_element(By.CSS_SELECTOR, "label.switch").click()
    wait(d, lambda d: count(d, "path.buffer.planar") == 1, message="one unioned polygon")
    assert d.find_element(By.CSS_SELECTOR, "path.buffer.planar").get_attribute("d").count("M") == 2

    # Clear.
    d.find_element(By.ID, "clear").click()
    wait(d, lambda d: count(d, "path.buffer") == 0 and count(d, "circle.tap-point") == 0, message="cleared")
    assert status(d) == STATUS["add"]
    assert d.find_element(By.ID, "clear").get_attribute("disabled") is not None


def test_page1_pan_and_zoom_keep_clicks_accurate(browser, viewer, extent):
    d = browser
    d.get(viewer.url + "buffers.html")
    wait(d, lambda d: d.execute_script("return document.body.dataset.ready") == "1")
    before = d.execute_script("return window.meridianViewer.map.scale")
    d.find_element(By.CSS_SELECTOR, "#zoom button[title='Zoom in']").click()
    after = d.execute_script("return window.meridianViewer.map.scale")
    assert after > before * 1.5
    svg = d.find_element(By.ID, "map")
    ActionChains(d).move_to_element(svg).click_and_hold().move_by_offset(120, 40).release().perform()
    idle(d)
    assert status(d) == STATUS["add"]  # a drag is a pan, not a tap
    x, y = at(extent, 0.5, 0.5)
    add_point(d, x, y, 10)
    wait(d, lambda d: count(d, "path.buffer.planar") == 1)
    cx, cy = d.execute_script("const p = window.meridianViewer.state.points[0]; return [p.x, p.y]")
    assert abs(cx - x) < 3000 and abs(cy - y) < 3000  # within a pixel or two at this zoom
    d.find_element(By.ID, "clear").click()


def test_page1_export_geojson_and_kmz(browser, viewer, extent, downloads):
    d = browser
    d.get(viewer.url + "buffers.html")
    wait(d, lambda d: d.execute_script("return document.body.dataset.ready") == "1")
    add_point(d, *at(extent, 0.5, 0.5), 50)
    add_point(d, *at(extent, 0.2, 0.4), 20)
    wait(d, lambda d: count(d, "path.buffer.planar") == 2)
    d.find_element(By.ID, "export-geojson").click()
    path = downloads / "buffers.geojson"
    wait(d, lambda d: path.exists() and path.stat().st_size > 0 and not list(downloads.glob("*.crdownload")), 20, "download")
    assert "Exported buffers.geojson" in status(d)
    info = subprocess.run(["ogrinfo", "-ro", "-al", "-so", str(path)], capture_output=True, text=True, timeout=60)
    assert info.returncode == 0, info.stderr
    assert "Feature Count: 2" in info.stdout and "Polygon" in info.stdout
    collection = json.loads(path.read_text())
    assert sorted(f["properties"]["radiusMiles"] for f in collection["features"]) == [20, 50]
    lon, lat = collection["features"][0]["geometry"]["coordinates"][0][0]
    assert -104 < lon < -93 and 29 < lat < 36  # WGS84 degrees, in Texas
    d.find_element(By.ID, "export-kmz").click()
    kmz = downloads / "buffers.kmz"
    wait(d, lambda d: kmz.exists() and kmz.stat().st_size > 0 and not list(downloads.glob("*.crdownload")), 20, "download")
    info = subprocess.run(["ogrinfo", "-ro", "-al", "-so", str(kmz)], capture_output=True, text=True, timeout=60)
    assert info.returncode == 0 and "Feature Count: 2" in info.stdout, info.stdout + info.stderr


def test_page1_planar_and_geodesic_side_by_side(browser, viewer, extent):
    d = browser
    x, y = at(extent, 0.5, 0.5)
    d.get(viewer.url + "buffers.html")
    wait(d, lambda d: d.execute_script("return document.body.dataset.ready") == "1")
    add_point(d, x, y, 150)
    wait(d, lambda d: count(d, "path.buffer.planar") == 1)
    d.find_element(By.CSS_SELECTOR, "#mode option[value='both']").click()
    wait(d, lambda d: count(d, "path.buffer.geodesic") == 1 and count(d, "path.buffer.planar") == 1)
    shot(d, "page1-planar-vs-geodesic")
    # Both drawn, and different shapes (150 miles: the planar circle in State Plane is not the geodesic one).
    planar = d.find_element(By.CSS_SELECTOR, "path.buffer.planar").get_attribute("d")
    geodesic = d.find_element(By.CSS_SELECTOR, "path.buffer.geodesic").get_attribute("d")
    assert planar and geodesic and planar != geodesic


# Page 2 ---------------------------------------------------------------------------------------------------------


def choose(driver, title):
    wait(driver, lambda d: d.find_element(By.ID, "choice-dialog").get_attribute("open") is not None, message="menu")
    for b in driver.find_elements(By.CSS_SELECTOR, "#choices button"):
        if b.text.strip() == title:
            b.click()
            return
    raise AssertionError(f"no choice {title!r}")


def sketch(driver, kind, style, vertices):
    driver.find_element(By.ID, "add").click()
    choose(driver, kind)
    choose(driver, style)
    for x, y in vertices:
        click_world(driver, x, y)
    driver.find_element(By.ID, "done").click()


def test_page2_sketch_save_and_open(browser, viewer, downloads, fixtures):
    d = browser
    d.get(viewer.url + "kml.html")
    wait(d, lambda d: d.execute_script("return document.body.dataset.ready") == "1")
    assert d.find_element(By.ID, "save").get_attribute("disabled") is not None

    # The menus offer the sample's 7 icons and 14 colors.
    d.find_element(By.ID, "add").click()
    choose(d, "Point")
    wait(d, lambda d: count(d, "#choices button img") == 7)
    shot(d, "page2-icon-menu")
    d.find_element(By.ID, "choice-cancel").click()

    # Around Dallas (Web Mercator meters).
    sketch(d, "Point", "Star", [(-10775000, 3865000)])
    wait(d, lambda d: count(d, "g.placemark-point image") == 1)
    assert d.find_element(By.CSS_SELECTOR, "g.placemark-point image").get_attribute("href").endswith("/icons/star.png")
    sketch(d, "Polyline", "Red", [(-11500000, 3500000), (-10600000, 4200000), (-9800000, 3900000)])
    wait(d, lambda d: count(d, "path.placemark-line") == 1)
    assert d.find_element(By.CSS_SELECTOR, "path.placemark-line").get_attribute("stroke") == "#ff0000"
    sketch(d, "Polygon", "Blue", [(-12000000, 4500000), (-11000000, 4600000), (-11200000, 5300000), (-12100000, 5100000)])
    wait(d, lambda d: count(d, "path.placemark-polygon") == 1)
    assert d.find_element(By.CSS_SELECTOR, "path.placemark-polygon").get_attribute("fill") == "#0000ff"
    shot(d, "page2-sketched")

    # Too few vertices: Done refuses.
    d.find_element(By.ID, "add").click()
    choose(d, "Polygon")
    choose(d, "Green")
    click_world(d, -9000000, 4000000)
    d.find_element(By.ID, "done").click()
    assert "needs at least 3 vertices" in status(d)
    d.find_element(By.ID, "cancel-sketch").click()

    # Save: a KMZ made by the library.
    d.find_element(By.ID, "save").click()
    kmz = downloads / "Untitled.kmz"
    wait(d, lambda d: kmz.exists() and kmz.stat().st_size > 0 and not list(downloads.glob("*.crdownload")), 20, "download")
    with zipfile.ZipFile(kmz) as z:
        names = z.namelist()
        assert names[0].endswith(".kml")
        assert any(n.endswith("star.png") for n in names)
    info = subprocess.run(["ogrinfo", "-ro", "-al", "-so", str(kmz)], capture_output=True, text=True, timeout=60)
    assert info.returncode == 0, info.stderr
    assert "Feature Count: 3" in info.stdout
    detail = subprocess.run(["ogrinfo", "-ro", "-al", str(kmz)], capture_output=True, text=True, timeout=60).stdout
    assert "POINT" in detail and "LINESTRING" in detail and "POLYGON" in detail
    # The saved point is the sketched one, projected from Web Mercator to WGS84 (checked with pyproj).
    x, y = d.execute_script("return window.meridianViewer.state.placemarks[0].coordinates[0]")
    lon, lat = Transformer.from_crs("EPSG:3857", "EPSG:4326", always_xy=True).transform(x, y)
    match = re.search(r"POINT \(([-\d.]+) ([-\d.]+)", detail)
    assert match, detail
    assert abs(float(match.group(1)) - lon) < 1e-6 and abs(float(match.group(2)) - lat) < 1e-6
    assert -98 < lon < -95 and 32 < lat < 34  # near Dallas
    # The library reads its own KMZ back (meridian's KML reader, through the API the page uses for Open).
    status_code, _, opened = viewer.request("POST", "/api/kml/open", kmz.read_bytes(), "application/octet-stream")
    assert status_code == 200
    opened = json.loads(opened)
    assert [p["name"] for p in opened["placemarks"]] == ["Point 1", "Polyline 1", "Polygon 1"]
    assert opened["placemarks"][1]["style"]["lineColor"] == "#ff0000"
    assert opened["placemarks"][2]["style"]["fillColor"] == "#0000ff"
    assert opened["placemarks"][0]["style"]["icon"].startswith("data:image/png;base64,")

    # Reset, then Open a KMZ from the KML samples in Tests/Fixtures.
    d.find_element(By.ID, "reset").click()
    assert count(d, "path.placemark") == 0 and count(d, "g.placemark-point") == 0
    sample = fixtures / "kml" / "samples" / "openlayers" / "iceland.kmz"
    d.find_element(By.ID, "open").send_keys(str(sample))
    wait(d, lambda d: d.execute_script("return document.body.dataset.opened") not in (None, ""), 30, "opened")
    assert int(d.execute_script("return document.body.dataset.opened")) > 0
    assert count(d, "path.placemark.opened") + count(d, "g.placemark-point") > 0
    shot(d, "page2-opened-kmz")
