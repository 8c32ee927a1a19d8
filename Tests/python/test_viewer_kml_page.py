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



def test_a_geojson_and_a_csv_file_open_as_placemarks(browser, viewer, fixtures, tmp_path):
    # The Open button reads what the command line reads: the GeoNames cities as GeoJSON, two points as CSV, and a
    # CSV with a bad latitude refused with the reader's message naming its feature and line.
    d = browser
    points = tmp_path / "points.csv"
    points.write_text("name,lon,lat\nDallas,-96.797,32.7767\nFort Worth,-97.3308,32.7555\n")
    bad = tmp_path / "bad.csv"
    bad.write_text("lon,lat\n10,20\n10,95\n")
    d.get(viewer.url + "kml.html")
    wait(d, lambda d: d.execute_script("return document.body.dataset.ready") == "1")
    for path, count in ((fixtures / "basemap" / "cities" / "geonames_us_cities_pop250000.geojson", 94), (points, 2)):
        d.execute_script("delete document.body.dataset.opened")
        d.find_element(By.ID, "open").send_keys(str(path))
        wait(d, lambda d: d.execute_script("return document.body.dataset.opened") not in (None, ""), 30, "opened")
        assert d.execute_script("return document.body.dataset.opened") == str(count)
        text = d.find_element(By.ID, "status").text
        assert text.startswith(f"Opened {path.name}: {count} placemarks; tap one to edit it."), text
        assert len(d.find_elements(By.CSS_SELECTOR, "g.placemark-point")) == count
    shot(d, "page2-opened-csv")
    d.find_element(By.ID, "open").send_keys(str(bad))
    wait(d, lambda d: "Could not open" in d.find_element(By.ID, "status").text, 30, "refused")
    assert d.find_element(By.ID, "status").text == (
        "Could not open bad.csv: the file: feature 1 (line 3): latitude 95.0 is outside -90…90")

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
    wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".bm-land")) > 0, message="basemap drawn")

    def colours():
        return d.execute_script(
            "return [getComputedStyle(document.getElementById('map-wrap')).backgroundColor,"
            " getComputedStyle(document.querySelector('.bm-land')).fill]")

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


# Edit-then-save of an opened document --------------------------------------------------------------------------

KML_NS = "{http://www.opengis.net/kml/2.2}"
SAMPLE = "kml/samples/libkml/kml_kmlsamples.kml"  # Google's KML_Samples: nested folders, overlays, altitudes
# Selenium moves the pointer to a handle's centre in whole CSS pixels (at most 1 px off per axis); the handle is
# placed to 0.1 px and the page gets vertices rounded to 0.01 m: a dragged vertex lands within 1.1 px per axis.
DRAG_TOLERANCE_PX = 1.1


def placemark_index(d, name):
    return d.execute_script("return window.meridianViewer.state.placemarks.findIndex((p) => p.name === arguments[0])",
                            name)


def zoom_to(d, index, margin=120):
    """Fits the map to placemark `index`, at least 400 m across (what a user does with the wheel, done through the
    page's MapView)."""
    d.execute_script("""
        const p = window.meridianViewer.state.placemarks[arguments[0]];
        const xs = p.coordinates.map((c) => c[0]), ys = p.coordinates.map((c) => c[1]);
        const cx = (Math.min(...xs) + Math.max(...xs)) / 2, cy = (Math.min(...ys) + Math.max(...ys)) / 2;
        const hx = Math.max(200, (Math.max(...xs) - Math.min(...xs)) / 2), hy = Math.max(200, (Math.max(...ys) - Math.min(...ys)) / 2);
        window.meridianViewer.map.fit(cx - hx, cy - hy, cx + hx, cy + hy, arguments[1]);""", index, margin)


def click_screen(d, px, py):
    from selenium.webdriver.common.action_chains import ActionChains
    svg = d.find_element(By.ID, "map")
    size = svg.size
    ActionChains(d).move_to_element_with_offset(svg, int(px - size["width"] / 2), int(py - size["height"] / 2)) \
        .click().perform()


def select_placemark(d, name, at):
    """Taps placemark `name` at a world position and checks the page now edits it."""
    index = placemark_index(d, name)
    assert index >= 0, name
    zoom_to(d, index)
    px, py = d.execute_script("return window.meridianViewer.map.toScreen(arguments[0], arguments[1])", *at)
    click_screen(d, px, py)
    wait(d, lambda d: d.execute_script("return document.body.dataset.editing") == str(index), message=f"editing {name}")
    return index


def file_placemarks(root):
    return {p.get("id"): p for p in root.iter(KML_NS + "Placemark")}


def tuples(placemark):
    text = " ".join(c.text for c in placemark.iter(KML_NS + "coordinates"))
    return [tuple(float(v) for v in t.split(",")) for t in text.split()]


def canonical(element):
    """An element as a comparable tree: tag, attributes, stripped text, children."""
    return (element.tag, sorted(element.attrib.items()), (element.text or "").strip(),
            [canonical(c) for c in element])


def test_opened_document_edit_then_save(browser, viewer, downloads, fixtures, tmp_path):
    import xml.etree.ElementTree as ET
    import zipfile

    from pyproj import Transformer
    from selenium.webdriver.common.action_chains import ActionChains

    from test_kml_interop import gdal_features, xsd_valid
    from test_viewer_browser import choose, click_world

    to3857 = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)
    source = fixtures / SAMPLE
    original = ET.parse(source).getroot()
    before = file_placemarks(original)
    d = browser
    d.get(viewer.url + "kml.html")
    wait(d, lambda d: d.execute_script("return document.body.dataset.ready") == "1")
    d.find_element(By.ID, "open").send_keys(str(source))
    wait(d, lambda d: d.execute_script("return document.body.dataset.opened") not in (None, ""), 30, "opened")
    assert d.find_element(By.ID, "save").get_attribute("disabled") is None  # an opened file can be saved again
    text = d.find_element(By.ID, "status").text
    # The file's Pentagon (holes), a placemark without geometry, 1 ground and 7 screen overlays: kept, and said so.
    assert "1 placemark the editor cannot change (a polygon with holes)" in text, text
    assert "1 placemark without a drawable geometry" in text and "8 overlays, network links" in text, text
    shot(d, "page2-edit-opened")

    # 1. The "Absolute" path (11 vertices at 2357 m): move vertex 3, insert one on edge 5→6, delete vertex 1.
    line = [(x, y) for x, y, _ in tuples(before["purple-line-placemark"])]
    merc = [to3857.transform(lon, lat) for lon, lat in line]
    seg = ((merc[0][0] + merc[1][0]) / 2, (merc[0][1] + merc[1][1]) / 2)
    select_placemark(d, "Absolute", seg)
    shot(d, "page2-edit-opened-selected")
    scale = d.execute_script("return window.meridianViewer.map.scale")
    drag(d, d.find_element(By.CSS_SELECTOR, "[data-vertex='3']"), 40, -30)
    drag(d, d.find_element(By.CSS_SELECTOR, "[data-midpoint='5']"), 0, 25)
    ActionChains(d).move_to_element(d.find_element(By.CSS_SELECTOR, "[data-vertex='1']")).click().perform()
    d.find_element(By.ID, "delete-vertex").click()
    assert len(sketch_coordinates(d)) == 11
    d.find_element(By.ID, "undo").click()
    assert len(sketch_coordinates(d)) == 12
    d.find_element(By.ID, "redo").click()
    assert len(sketch_coordinates(d)) == 11
    shot(d, "page2-edit-opened-vertices")
    d.find_element(By.ID, "done").click()
    # Expected, computed independently: pyproj's Web Mercator of the file's vertices, moved by the drags in pixels
    # through the page's scale (screen y grows downwards, world y upwards).
    moved = (merc[3][0] + 40 / scale, merc[3][1] + 30 / scale)
    inserted = ((merc[5][0] + merc[6][0]) / 2, (merc[5][1] + merc[6][1]) / 2 - 25 / scale)

    # 2. Delete "Building 41" (a polygon two folders deep): tap inside it.
    ring = [to3857.transform(x, y) for x, y, _ in tuples(before["b41"])]
    centre = (sum(x for x, _ in ring[:-1]) / (len(ring) - 1), sum(y for _, y in ring[:-1]) / (len(ring) - 1))
    select_placemark(d, "Building 41", centre)
    d.find_element(By.ID, "delete-placemark").click()

    # 2b. Move the first vertex of "Building 40" (a polygon whose ring the file closes): the saved ring's first and
    # closing vertices move together, the others stay the file's.
    b40 = tuples(before["b40"])
    b40_merc = [to3857.transform(x, y) for x, y, _ in b40]
    inside = ((b40_merc[0][0] + b40_merc[2][0]) / 2, (b40_merc[0][1] + b40_merc[2][1]) / 2)
    select_placemark(d, "Building 40", inside)
    assert len(sketch_coordinates(d)) == len(b40) - 1  # the closing vertex is not a second handle
    b40_scale = d.execute_script("return window.meridianViewer.map.scale")
    drag(d, d.find_element(By.CSS_SELECTOR, "[data-vertex='0']"), -30, 20)
    shot(d, "page2-edit-opened-polygon")
    d.find_element(By.ID, "done").click()
    b40_moved = (b40_merc[0][0] - 30 / b40_scale, b40_merc[0][1] - 20 / b40_scale)

    # 3. Restyle "Floating placemark" (shared style #downArrowIcon) with the palette's Circle.
    lon, lat, _ = tuples(before["floating-placemark"])[0]
    select_placemark(d, "Floating placemark", to3857.transform(lon, lat))
    d.find_element(By.ID, "restyle").click()
    choose(d, "Circle")
    d.find_element(By.ID, "done").click()

    # 4. The Pentagon (a polygon with holes) is not editable here: the page says so and offers only its deletion.
    ring = [to3857.transform(x, y) for x, y, _ in tuples(before["pentagon"])[:5]]
    edge = ((ring[0][0] * 3 + ring[1][0]) / 4, (ring[0][1] * 3 + ring[1][1]) / 4)  # inside the outer ring, near it
    pentagon = placemark_index(d, "The Pentagon")
    d.execute_script("window.meridianViewer.map.fit(...arguments[0], 60)",
                     [min(x for x, _ in ring), min(y for _, y in ring), max(x for x, _ in ring), max(y for _, y in ring)])
    click_screen(d, *d.execute_script("return window.meridianViewer.map.toScreen(arguments[0], arguments[1])", *edge))
    wait(d, lambda d: d.execute_script("return document.body.dataset.editing") == str(pentagon), message="pentagon")
    text = d.find_element(By.ID, "status").text
    assert "a polygon with holes" in text and "saved as it is" in text, text
    assert not d.find_element(By.ID, "delete-placemark").get_attribute("hidden")
    for hidden in ("delete-vertex", "undo", "redo", "restyle"):
        assert d.find_element(By.ID, hidden).get_attribute("hidden"), hidden
    shot(d, "page2-edit-opened-not-editable")
    d.find_element(By.ID, "done").click()

    # 5. Add a new point next to the restyled one.
    d.find_element(By.ID, "add").click()
    choose(d, "Point")
    choose(d, "Star")
    new_point = d.execute_script("return window.meridianViewer.map.toWorld(300, 200)")
    click_world(d, *new_point)
    d.find_element(By.ID, "done").click()
    shot(d, "page2-edit-opened-before-save")

    d.find_element(By.ID, "save").click()
    kmz = downloads / "kml_kmlsamples.kmz"
    wait(d, lambda d: kmz.exists() and kmz.stat().st_size > 0 and not list(downloads.glob("*.crdownload")), 30, "saved")
    assert "3 placemarks edited, 1 deleted, 1 added" in d.find_element(By.ID, "status").text
    shot(d, "page2-edit-opened-saved")
    with zipfile.ZipFile(kmz) as z:
        assert z.namelist()[0] == "doc.kml"
        doc = z.read("doc.kml")
        assert {"files/circle.png", "files/star.png"} <= set(z.namelist())
    ok, errors = xsd_valid(doc, fixtures, tmp_path)
    assert ok, errors
    saved = ET.fromstring(doc)
    after = file_placemarks(saved)

    # The edited path, read back by GDAL: vertex 1 gone, vertex 3 moved, one inserted after vertex 5; every
    # untouched vertex exactly the file's; all at the file's 2357 m.
    features = gdal_features(kmz, tmp_path)
    assert len(features) == len(gdal_features(source, tmp_path))  # one placemark deleted, one added
    paths = [f for f in features if f["properties"].get("Name") == "Absolute" and f["geometry"]["type"] == "LineString"]
    assert len(paths) == 1
    coordinates = paths[0]["geometry"]["coordinates"]
    edited = tuples(after["purple-line-placemark"])
    assert len(edited) == 11 and len(coordinates) == 11
    assert all(abs(a - b) <= 1e-9 for e, g in zip(edited, coordinates) for a, b in zip(e, g))
    original_tuples = tuples(before["purple-line-placemark"])
    assert edited[0] == original_tuples[0]
    # Saved path: file vertices 0, 2, (3 moved), 4, 5, (inserted), 6 … 10.
    for file_index, saved_index in zip([0, 2, 4, 5, 6, 7, 8, 9, 10], [0, 1, 3, 4, 6, 7, 8, 9, 10]):
        assert edited[saved_index] == original_tuples[file_index], (file_index, saved_index)
    for saved_index, (ex, ey) in [(2, moved), (5, inserted)]:
        x, y = to3857.transform(edited[saved_index][0], edited[saved_index][1])
        assert abs(x - ex) * scale <= DRAG_TOLERANCE_PX and abs(y - ey) * scale <= DRAG_TOLERANCE_PX, \
            (saved_index, (x - ex) * scale, (y - ey) * scale)
    assert all(t[2] == 2357 for t in edited)

    ring = tuples(after["b40"])
    assert len(ring) == len(b40) and ring[0] == ring[-1] and ring[1:-1] == b40[1:-1]
    x, y = to3857.transform(ring[0][0], ring[0][1])
    assert abs(x - b40_moved[0]) * b40_scale <= DRAG_TOLERANCE_PX and abs(y - b40_moved[1]) * b40_scale <= DRAG_TOLERANCE_PX
    assert ring[0][2] == 17  # its altitude kept

    # Deleted, restyled, added; everything else byte-equal in coordinates and styles.
    assert "b41" not in after and len(after) == len(before)  # one deleted, one added (without an id)
    floating = after["floating-placemark"]  # the palette's icon inline, overriding the shared style's IconStyle
    assert floating.find(KML_NS + "styleUrl").text == "#downArrowIcon"
    assert floating.find(f"{KML_NS}Style/{KML_NS}IconStyle/{KML_NS}Icon/{KML_NS}href").text == "files/circle.png"
    assert tuples(floating) == tuples(before["floating-placemark"])
    for pid, p in before.items():
        if pid in ("purple-line-placemark", "b41", "b40", "floating-placemark"):
            continue
        assert tuples(after[pid]) == tuples(p), pid
        for tag in ("styleUrl", "Style", "StyleMap"):
            a, b = p.find(KML_NS + tag), after[pid].find(KML_NS + tag)
            assert (a is None) == (b is None) and (a is None or canonical(a) == canonical(b)), (pid, tag)
    shared = {s.get("id"): canonical(s) for s in original.iter() if s.tag in (KML_NS + "Style", KML_NS + "StyleMap")}
    shared_after = {s.get("id"): canonical(s) for s in saved.iter() if s.tag in (KML_NS + "Style", KML_NS + "StyleMap")}
    assert all(shared_after.get(k) == v for k, v in shared.items() if k)
    # What the editor never shows survives: folders (nested), overlays, the nested Document.
    for tag in ("Folder", "Document", "GroundOverlay", "ScreenOverlay", "LookAt"):
        assert [e.get("id") for e in original.iter(KML_NS + tag)] == [e.get("id") for e in saved.iter(KML_NS + tag)], tag
    star = [p for p in saved.iter(KML_NS + "Placemark") if p.get("id") is None]
    assert len(star) == 1 and star[0].find(f"{KML_NS}Style/{KML_NS}IconStyle/{KML_NS}Icon/{KML_NS}href").text == "files/star.png"
    lon, lat = tuples(star[0])[0][:2]
    x, y = to3857.transform(lon, lat)
    assert abs(x - new_point[0]) * scale < DRAG_TOLERANCE_PX and abs(y - new_point[1]) * scale < DRAG_TOLERANCE_PX
