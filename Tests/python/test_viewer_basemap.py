"""The viewer's basemap and the pages' details, checked on the data (shapely, pyproj) and as drawn in headless
Chromium (pixels of a screenshot, computed styles): lakes are water and Mexico is land on both pages, every US
state is named, principal cities are named by their own names, the legend lists only the buffers drawn, Open… is
disabled while sketching, a successful redraw clears a warning, long names do not wrap the status line, and a file
opened under a Unicode name with a quote is saved under that name."""
import io
import itertools
import json
import pathlib
import urllib.parse

import numpy as np
import pytest
from pyproj import Transformer
from shapely.geometry import Point, Polygon

from test_viewer_browser import browser, choose, click_world, downloads, idle, shot, status, wait  # noqa: F401

from selenium.webdriver.common.by import By  # noqa: E402

SITE_DATA = pathlib.Path(__file__).resolve().parents[2] / "Sources" / "MeridianViewer" / "Site" / "data"
# The 50 states and the District of Columbia (independent of the data: the states of the Union).
STATES = {
    "Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware", "Florida",
    "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas", "Kentucky", "Louisiana", "Maine", "Maryland",
    "Massachusetts", "Michigan", "Minnesota", "Mississippi", "Missouri", "Montana", "Nebraska", "Nevada",
    "New Hampshire", "New Jersey", "New Mexico", "New York", "North Carolina", "North Dakota", "Ohio", "Oklahoma",
    "Oregon", "Pennsylvania", "Rhode Island", "South Carolina", "South Dakota", "Tennessee", "Texas", "Utah", "Vermont",
    "Virginia", "Washington", "West Virginia", "Wisconsin", "Wyoming", "District of Columbia",
}
# Points far (> 30 km) from any shore, in lon/lat.
LAKE_MICHIGAN = (-87.0, 43.6)
LAKE_SUPERIOR = (-87.5, 47.6)
GREAT_SALT_LAKE = (-112.5, 41.1)
MEXICO = (-102.3, 23.9)  # Zacatecas
CANADA = (-106.0, 54.0)  # Saskatchewan
GULF_OF_MEXICO = (-91.0, 26.0)
DATA_BUDGET = 2_600_000  # bytes, all four files (the size is reported in docs/viewer.md)


def load(name):
    return json.loads((SITE_DATA / name).read_text(encoding="utf-8"))


def vertices(steps, quantum):
    """The files' [x0, y0, dx1, dy1, ...] (in units of the quantum) as [(x0, y0), (x1, y1), ...]."""
    xs, ys = itertools.accumulate(steps[0::2]), itertools.accumulate(steps[1::2])
    return [(x * quantum, y * quantum) for x, y in zip(xs, ys)]


def crossings(ring, x, y):
    """How many edges of a ring a ray from (x, y) towards +x crosses (the even-odd rule, as the browser fills)."""
    xs, ys = np.array([v[0] for v in ring], float), np.array([v[1] for v in ring], float)
    x2, y2 = np.roll(xs, -1), np.roll(ys, -1)
    straddles = (ys > y) != (y2 > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        at = xs + (y - ys) * (x2 - xs) / (y2 - ys)
    return int(np.count_nonzero(straddles & (at > x)))


def covered(layers, name, point):
    """Whether a layer's rings cover a point by the even-odd rule the pages fill with."""
    q = layers["quantum"]
    total = sum(crossings(vertices(r, q), point.x, point.y) for r in layers.get(name, []) if len(r) >= 8)
    return total % 2 == 1


def painted(layers, point):
    """What the painter's order land < lakes < islands < ponds leaves at a point: "land", "water" or None (sea)."""
    result = None
    for name, what in [("land", "land"), ("lakes", "water"), ("islands", "land"), ("ponds", "water")]:
        if covered(layers, name, point):
            result = what
    return result or "water"


@pytest.mark.parametrize("overview, detail, crs", [
    ("texas-32038.json", "texas-32038-detail.json", "EPSG:32038"),
    ("world-3857.json", "world-3857-detail.json", "EPSG:3857"),
])
def test_lakes_are_water_and_neighbours_land_in_every_band(overview, detail, crs):
    to_map = Transformer.from_crs("EPSG:4326", crs, always_xy=True)
    over, det = load(overview), load(detail)
    region = Polygon(list(zip(det["region"][0::2], det["region"][1::2])))
    for name, lonlat, expected in [("Lake Michigan", LAKE_MICHIGAN, "water"), ("Lake Superior", LAKE_SUPERIOR, "water"),
                                   ("Great Salt Lake", GREAT_SALT_LAKE, "water"), ("Mexico", MEXICO, "land"),
                                   ("Canada", CANADA, "land"), ("Gulf of Mexico", GULF_OF_MEXICO, "water")]:
        point = Point(*to_map.transform(*lonlat))
        assert painted(over["layers"], point) == expected, (overview, name)
        if region.contains(point):
            assert painted(det["layers"], point) == expected, (detail, name)


def test_every_state_is_named_and_the_data_is_small():
    for name in ["texas-32038.json", "world-3857.json"]:
        names = {s["n"] for s in load(name)["states"]}
        assert names == STATES, (name, STATES ^ names)
    countries = {c["n"] for c in load("texas-32038.json")["countries"]}
    assert {"Mexico", "Canada"} <= countries
    sizes = {p.name: p.stat().st_size for p in SITE_DATA.glob("*.json")}
    assert set(sizes) == {"texas-32038.json", "texas-32038-detail.json", "world-3857.json", "world-3857-detail.json"}
    assert sum(sizes.values()) < DATA_BUDGET, sizes


def test_principal_cities_by_their_own_names():
    for name in ["texas-32038.json", "world-3857.json"]:
        cities = [c["n"] for c in load(name)["cities"]]
        assert "Memphis" in cities and "Boston" in cities, name
        for section in ["New South Memphis", "South Boston", "West Raleigh"]:
            assert section not in cities, (name, section)
        assert len(cities) == len(set(cities)) or name == "texas-32038.json", name
    texas = [c["n"] for c in load("texas-32038.json")["cities"]]
    assert texas.index("Houston") < texas.index("Dallas") < texas.index("Waco")  # by population


# In the browser ---------------------------------------------------------------------------------------------------


def ready(d, viewer, page):
    d.get(viewer.url + page)
    wait(d, lambda d: d.execute_script("return document.body.dataset.ready") == "1", message=f"{page} ready")


def fit_lonlat(d, crs, west, south, east, north):
    """Fits the page's map to a lon/lat box (projected here with pyproj) and waits for the basemap's band."""
    to_map = Transformer.from_crs("EPSG:4326", crs, always_xy=True)
    xs, ys = zip(*[to_map.transform(lon, lat) for lon in (west, east) for lat in (south, north)])
    d.execute_script("window.meridianViewer.map.fit(...arguments)", min(xs), min(ys), max(xs), max(ys), 10)
    idle(d)


def colour_at(d, crs, lonlat):
    """The colour drawn at a lon/lat point (the most common in a 5 x 5 pixel block), labels hidden."""
    from PIL import Image
    x, y = Transformer.from_crs("EPSG:4326", crs, always_xy=True).transform(*lonlat)
    px, py = d.execute_script("""
        const [px, py] = window.meridianViewer.map.toScreen(arguments[0], arguments[1]);
        const r = document.getElementById('map').getBoundingClientRect();
        return [px + r.left, py + r.top];""", x, y)
    image = Image.open(io.BytesIO(d.get_screenshot_as_png())).convert("RGB")
    block = [image.getpixel((int(px) + i, int(py) + j)) for i in range(-2, 3) for j in range(-2, 3)]
    return max(set(block), key=block.count)


def css_colour(d, selector, prop):
    rgb = d.execute_script("return getComputedStyle(document.querySelector(arguments[0]))[arguments[1]]", selector, prop)
    return tuple(int(v) for v in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3])


def close(a, b, tolerance=3):
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def hide_labels(d):
    d.execute_script("document.querySelector('#map .layer.labels').style.display = 'none'")


@pytest.mark.parametrize("page, crs", [("kml.html", "EPSG:3857"), ("buffers.html", "EPSG:32038")])
def test_lakes_render_as_water_and_mexico_as_land(browser, viewer, page, crs):
    d = browser
    ready(d, viewer, page)
    for theme in (["dark", "light"] if page == "kml.html" else ["light"]):
        if page == "kml.html":
            d.execute_script("const s = document.getElementById('basemap'); s.value = arguments[0];"
                             "s.dispatchEvent(new Event('change'))", theme)
        for box, detail in [((-125, 15, -66, 50), "0"), ((-90, 41, -84, 46.5), "1")]:  # the US, then Lake Michigan
            fit_lonlat(d, crs, *box)
            wait(d, lambda d: d.execute_script("return document.body.dataset.basemapDetail") == detail, message="band")
            hide_labels(d)
            water = css_colour(d, ".bm-water", "fill")
            land = css_colour(d, ".bm-land", "fill")
            assert water != land
            assert close(colour_at(d, crs, LAKE_MICHIGAN), water), (page, theme, box)
            if detail == "0":
                assert close(colour_at(d, crs, MEXICO), land), (page, theme)
                assert close(colour_at(d, crs, GULF_OF_MEXICO), water), (page, theme)
            shot(d, f"basemap-{page.split('.')[0]}-{theme}-{detail}")


def test_memphis_is_labelled_by_its_name(browser, viewer):
    d = browser
    ready(d, viewer, "kml.html")
    fit_lonlat(d, "EPSG:3857", -92.5, 33.5, -87.5, 36.8)
    labelled = d.execute_script("""return [...document.querySelectorAll('#map .city')]
        .filter((g) => g.style.display !== 'none').map((g) => g.dataset.name);""")
    assert "Memphis" in labelled
    assert not d.find_elements(By.CSS_SELECTOR, '.city[data-name="New South Memphis"]')


# The page details ---------------------------------------------------------------------------------------------------


def legend(d):
    return {name: d.execute_script(f"return getComputedStyle(document.querySelector('#legend .{name}')).display")
            != "none" for name in ["planar-only", "geodesic-only"]}


def test_legend_lists_only_the_buffers_drawn_and_a_redraw_clears_a_warning(browser, viewer):
    from test_viewer_browser import STATUS, add_point, at, count
    d = browser
    extent = viewer.get_json("/api/srs/32038")[1]["extent"]
    ready(d, viewer, "buffers.html")
    assert legend(d) == {"planar-only": False, "geodesic-only": False}
    d.find_element(By.CSS_SELECTOR, "#mode option[value='geodesic']").click()
    add_point(d, *at(extent, 0.5, 0.5), 40)
    wait(d, lambda d: count(d, "path.buffer.geodesic") == 1, message="geodesic buffer")
    assert legend(d) == {"planar-only": False, "geodesic-only": True}
    assert "Planar buffer" not in d.find_element(By.ID, "legend").text
    d.find_element(By.CSS_SELECTOR, "#mode option[value='both']").click()
    wait(d, lambda d: count(d, "path.buffer.planar") == 1, message="both")
    assert legend(d) == {"planar-only": True, "geodesic-only": True}
    d.find_element(By.CSS_SELECTOR, "#mode option[value='planar']").click()
    wait(d, lambda d: count(d, "path.buffer.geodesic") == 0, message="planar only")
    assert legend(d) == {"planar-only": True, "geodesic-only": False}
    # A rejected radius warns; the next successful drawing (the Union toggle here) replaces the warning.
    add_point(d, *at(extent, 0.3, 0.5), 500)
    assert status(d) == STATUS["invalid"]
    d.find_element(By.CSS_SELECTOR, "label.switch").click()
    idle(d)
    wait(d, lambda d: status(d) != STATUS["invalid"], message="warning cleared")
    assert d.find_element(By.ID, "status").get_attribute("data-kind") == ""
    d.find_element(By.ID, "clear").click()
    assert legend(d) == {"planar-only": False, "geodesic-only": False}


def test_open_is_disabled_while_sketching(browser, viewer):
    d = browser
    ready(d, viewer, "kml.html")
    label = d.find_element(By.ID, "open-label")

    def looks_enabled():
        style = d.execute_script("const s = getComputedStyle(arguments[0]); return [s.opacity, s.pointerEvents]", label)
        return float(style[0]) > 0.9 and style[1] != "none" and d.find_element(By.ID, "open").is_enabled()

    assert looks_enabled()
    d.find_element(By.ID, "add").click()
    choose(d, "Polyline")
    choose(d, "Red")
    assert not looks_enabled()
    assert label.get_attribute("aria-disabled") == "true"
    # A click on it does nothing: the label takes no pointer events, so the file input is not activated.
    hit = d.execute_script("const r = arguments[0].getBoundingClientRect();"
                           "return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === arguments[0]", label)
    assert not hit
    d.find_element(By.ID, "cancel-sketch").click()
    assert looks_enabled()


def test_long_names_are_shortened_and_unicode_names_are_saved_as_given(browser, viewer, downloads, tmp_path):
    d = browser
    ready(d, viewer, "kml.html")
    before = d.execute_script("return [document.getElementById('status').getBoundingClientRect().height,"
                              " document.getElementById('map').getBoundingClientRect().height]")
    kml = ('<kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark><name>P</name>'
           '<Point><coordinates>-97,32</coordinates></Point></Placemark></Document></kml>')
    long_file = tmp_path / ("x" * 236 + ".kml")
    long_file.write_text(kml)
    d.find_element(By.ID, "open").send_keys(str(long_file))
    wait(d, lambda d: d.execute_script("return document.body.dataset.opened") == "1", 30, "opened")
    after = d.execute_script("const s = document.getElementById('status');"
                             "return [s.getBoundingClientRect().height, document.getElementById('map').getBoundingClientRect().height,"
                             " s.scrollWidth > s.clientWidth, getComputedStyle(s).textOverflow, s.title]")
    assert after[0] == before[0] and after[1] == before[1], (before, after)
    assert after[2] and after[3] == "ellipsis"
    assert "x" * 236 in after[4]  # the whole text stays in the tooltip
    shot(d, "page2-long-name")

    name = 'quote"name Überprüfung 東京'
    unicode_file = tmp_path / f"{name}.kml"
    unicode_file.write_text(kml)
    d.find_element(By.ID, "reset").click()
    d.find_element(By.ID, "open").send_keys(str(unicode_file))
    wait(d, lambda d: d.execute_script("return document.body.dataset.opened") == "1", 30, "opened")
    for old in downloads.glob("*.kmz"):
        old.unlink()
    d.find_element(By.ID, "save").click()
    saved = downloads / "quote_name Überprüfung 東京.kmz"
    wait(d, lambda d: saved.exists() and saved.stat().st_size > 0 and not list(downloads.glob("*.crdownload")), 20,
         f"download of {saved.name}: {[p.name for p in downloads.iterdir()]}")
    assert d.execute_script("return document.body.dataset.saved") == saved.name
    # The header the browser got, as the API sends it (one request more, over HTTP).
    import base64
    body = json.dumps({"name": name, "placemarks": [], "source": {"data": base64.b64encode(kml.encode()).decode(), "edits": []}})
    code, headers, _ = viewer.request("POST", "/api/kml", body.encode())
    assert code == 200
    disposition = headers["Content-Disposition"]
    assert disposition.startswith('attachment; filename="quote_name Uberprufung _.kmz"; filename*=UTF-8\'\'')
    assert urllib.parse.unquote(disposition.split("''", 1)[1]) == saved.name
