"""The KML page in headless Chromium: an opened file is drawn with its own styles (computed stroke colour and
width of a polygon outline and of a line, against the values the file states)."""
import pathlib

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from test_viewer_browser import browser, downloads, shot, wait  # noqa: F401 (fixtures; viewer is in conftest.py)

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


def test_dark_basemap_is_the_kml_pages_default_and_the_status_bar_does_not_cover_the_map(browser, viewer):
    d = browser
    d.get(viewer.url + "kml.html")
    wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".country")) > 0, message="basemap drawn")

    def colours():
        return d.execute_script(
            "return [getComputedStyle(document.getElementById('map-wrap')).backgroundColor,"
            " getComputedStyle(document.querySelector('.country')).fill]")

    def luminance(rgb):
        r, g, b = [int(v) for v in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3]]
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    water, land = colours()
    assert luminance(water) < 60 and luminance(land) < 90, (water, land)
    assert d.find_element(By.ID, "basemap").get_attribute("value") == "dark"
    shot(d, "page2-dark-basemap")
    Select(d.find_element(By.ID, "basemap")).select_by_value("light")
    water, land = colours()
    assert luminance(water) > 150 and luminance(land) > 150, (water, land)
    for page in ["kml.html", "buffers.html"]:
        d.get(viewer.url + page)
        wait(d, lambda d: d.find_element(By.ID, "status").text not in ("", "Loading…"), message="status")
        status_bottom, map_top = d.execute_script(
            "return [document.getElementById('status').getBoundingClientRect().bottom,"
            " document.getElementById('map').getBoundingClientRect().top]")
        assert map_top >= status_bottom - 0.5, (page, status_bottom, map_top)


def sketch_coordinates(d):
    return d.execute_script("const s = window.meridianViewer.state.sketch; return s && s.coordinates;")


def drag(d, element, dx, dy):
    from selenium.webdriver.common.action_chains import ActionChains
    ActionChains(d).move_to_element(element).click_and_hold().move_by_offset(dx // 2, dy // 2) \
        .move_by_offset(dx - dx // 2, dy - dy // 2).release().perform()


def test_sketch_editor_drag_insert_delete_undo_redo(browser, viewer):
    from test_viewer_browser import choose, click_world
    d = browser
    d.get(viewer.url + "kml.html")
    wait(d, lambda d: d.execute_script("return document.body.dataset.ready") == "1")
    d.find_element(By.ID, "add").click()
    choose(d, "Polygon")
    choose(d, "Red")
    world = [d.execute_script("return window.meridianViewer.map.toWorld(arguments[0], arguments[1])", px, py)
             for px, py in [(500, 300), (760, 300), (630, 130)]]
    for x, y in world:
        click_world(d, x, y)
    assert len(sketch_coordinates(d)) == 3
    # Drag vertex 0 by (+60, +40) px: it moves by that many pixels in world units (y flipped).
    scale = d.execute_script("return window.meridianViewer.map.scale")
    before = sketch_coordinates(d)
    drag(d, d.find_element(By.CSS_SELECTOR, "[data-vertex='0']"), 60, 40)
    after = sketch_coordinates(d)
    assert len(after) == 3
    assert abs((after[0][0] - before[0][0]) * scale - 60) < 3 and abs((before[0][1] - after[0][1]) * scale - 40) < 3
    assert after[1:] == before[1:]
    # Drag the midpoint handle of edge 1→2: a vertex is inserted between them, where it was dropped.
    drag(d, d.find_element(By.CSS_SELECTOR, "[data-midpoint='1']"), 0, -30)
    inserted = sketch_coordinates(d)
    assert len(inserted) == 4 and inserted[0] == after[0] and inserted[1] == after[1] and inserted[3] == after[2]
    mid = ((after[1][0] + after[2][0]) / 2, (after[1][1] + after[2][1]) / 2)
    assert abs((inserted[2][1] - mid[1]) * scale - 30) < 3
    shot(d, "page2-sketch-editor")
    # Delete the selected (inserted) vertex, then undo and redo each step.
    d.find_element(By.ID, "delete-vertex").click()
    assert sketch_coordinates(d) == after
    d.find_element(By.ID, "undo").click()
    assert sketch_coordinates(d) == inserted
    d.find_element(By.ID, "undo").click()
    assert sketch_coordinates(d) == after
    d.find_element(By.ID, "undo").click()
    assert sketch_coordinates(d) == before
    d.find_element(By.ID, "redo").click()
    assert sketch_coordinates(d) == after
    d.find_element(By.ID, "done").click()
    placemarks = d.execute_script("return window.meridianViewer.state.placemarks")
    assert placemarks[-1]["type"] == "polygon" and placemarks[-1]["coordinates"] == after
    assert d.find_element(By.ID, "save").get_attribute("disabled") is None


def test_city_labels_are_never_cut_by_the_map_edge(browser, viewer):
    d = browser
    for page in ["buffers.html", "kml.html"]:
        d.get(viewer.url + page)
        wait(d, lambda d: d.execute_script("return document.body.dataset.ready") == "1", message="ready")
        for _ in range(3):
            cut = d.execute_script("""
                const m = document.getElementById('map').getBoundingClientRect();
                return [...document.querySelectorAll('.city')].filter((g) => g.style.display !== 'none')
                  .map((g) => g.querySelector('text')).filter((t) => t && t.textContent)
                  .map((t) => [t.textContent, t.getBoundingClientRect()])
                  .filter(([, r]) => r.width > 0 && (r.left < m.left - 0.5 || r.right > m.right + 0.5
                                                     || r.top < m.top - 0.5 || r.bottom > m.bottom + 0.5))
                  .map(([name]) => name);""")
            assert cut == [], (page, cut)
            d.find_element(By.CSS_SELECTOR, "#zoom button").click()  # zoom in: more labels near the edges
