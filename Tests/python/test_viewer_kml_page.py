"""The KML page in headless Chromium: an opened file is drawn with its own styles (computed stroke colour and
width of a polygon outline and of a line, against the values the file states)."""
import pathlib

from selenium.webdriver.common.by import By

from test_viewer_browser import browser, downloads, shot, viewer, wait  # noqa: F401 (fixtures)

STYLED_KML = """<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>Styled</name>
<Style id="area"><LineStyle><color>ff00ff00</color><width>3</width></LineStyle>
  <PolyStyle><color>7f0000ff</color></PolyStyle></Style>
<Style id="road"><LineStyle><color>ffff0000</color><width>5</width></LineStyle></Style>
<Placemark><name>Area</name><styleUrl>#area</styleUrl><Polygon><outerBoundaryIs><LinearRing>
  <coordinates>-10,40 10,40 10,55 -10,55 -10,40</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark>
<Placemark><name>Road</name><styleUrl>#road</styleUrl><LineString>
  <coordinates>-20,30 20,60</coordinates></LineString></Placemark>
</Document></kml>
"""


def computed(driver, selector, *properties):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); const s = getComputedStyle(e);"
        "return arguments[1].map((p) => s.getPropertyValue(p));", selector, list(properties))


def test_opened_styles_are_the_files(browser, viewer, tmp_path):
    d = browser
    path = tmp_path / "styled.kml"
    path.write_text(STYLED_KML)
    d.get(viewer.url + "kml.html")
    wait(d, lambda d: d.find_element(By.ID, "open") is not None, message="page")
    d.find_element(By.ID, "open").send_keys(str(path))
    wait(d, lambda d: d.execute_script("return document.body.dataset.opened") not in (None, ""), 30, "opened")
    # KML colours are aabbggrr: ff00ff00 is opaque green, 7f0000ff half-transparent red, ffff0000 opaque blue.
    stroke, width, fill = computed(d, "path.placemark-polygon.opened", "stroke", "stroke-width", "fill")
    assert (stroke, width) == ("rgb(0, 255, 0)", "3px")
    assert fill == "rgb(255, 0, 0)"
    fill_opacity = float(computed(d, "path.placemark-polygon.opened", "fill-opacity")[0])
    assert abs(fill_opacity - 0x7f / 255) < 0.01
    stroke, width = computed(d, "path.placemark-line.opened", "stroke", "stroke-width")
    assert (stroke, width) == ("rgb(0, 0, 255)", "5px")
    shot(d, "page2-opened-styles")


def test_favicon_is_served_and_linked(browser, viewer):
    for page in ["", "buffers.html", "kml.html"]:
        status, _, html = viewer.request("GET", "/" + page)
        assert status == 200 and b'rel="icon" href="/favicon.svg"' in html, page
    status, headers, icon = viewer.request("GET", "/favicon.svg")
    assert status == 200 and headers["Content-Type"] == "image/svg+xml" and icon.startswith(b"<svg")


def test_radius_takes_plain_decimals_and_refuses_invisible_buffers(browser, viewer):
    from test_viewer_browser import STATUS, add_point, count, status
    d = browser
    extent = viewer.get_json("/api/srs/32038")[1]["extent"]
    x = extent["xmin"] + 0.5 * (extent["xmax"] - extent["xmin"])
    y = extent["ymin"] + 0.5 * (extent["ymax"] - extent["ymin"])
    d.get(viewer.url + "buffers.html")
    wait(d, lambda d: d.execute_script("return document.body.dataset.ready") == "1", message="page ready")
    for text in ["0x10", "1e2", "1E1", "1e-300", "+5", "5 mi", "Infinity", "-3", "0"]:
        add_point(d, x, y, text)
        assert status(d) == STATUS["invalid"], text
        assert count(d, ".tap-point") == 0, text
    for text in ["0.0000000000000001", "0.001", "0.0099"]:
        add_point(d, x, y, text)
        assert "too small to see" in status(d), text
        assert count(d, ".tap-point") == 0, text
    for text in ["12", "12.5", ".5", "0.01"]:
        add_point(d, x, y, text)
        assert status(d) == STATUS["created"], text
    assert count(d, ".tap-point") == 4
