"""The buffers page's premises layer in headless Chromium: premises Shift-clicked and loaded from CSV files, the
ones within a buffer highlighted, the points in breach marked, and the table of pairs — checked against shapely and
GeographicLib (independent references) and against `meridian near` run on the same points."""
import csv
import math
import subprocess

from pyproj import Transformer
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_viewer_browser import (  # noqa: F401 (fixtures; viewer is in conftest.py)
    add_point, at, browser, count, downloads, idle, no_content_security_policy_violations, shot, status, wait)
from viewer_support import MILE, US_FT, near_reference


def shift_click_world(driver, x, y):
    """Shift-clicks the map at a world coordinate: adds a premise."""
    svg = driver.find_element(By.ID, "map")
    px, py = driver.execute_script("return window.meridianViewer.map.toScreen(arguments[0], arguments[1])", x, y)
    size = svg.size
    assert 0 <= px < size["width"] and 0 <= py < size["height"], (px, py, size)
    ActionChains(driver).key_down(Keys.SHIFT) \
        .move_to_element_with_offset(svg, int(px - size["width"] / 2), int(py - size["height"] / 2)) \
        .click().key_up(Keys.SHIFT).perform()
    idle(driver)


def page_state(driver):
    return driver.execute_script("""const s = window.meridianViewer.state;
        return {points: s.points, premises: s.premises, near: s.near};""")


def cli_pairs(meridian, tmp_path, points, premises, geodesic):
    """`meridian near` on the page's points (LEFT, with their radii) and premises (RIGHT), in miles."""
    left, right, out = tmp_path / "points.csv", tmp_path / "premises.csv", tmp_path / "near.csv"
    with left.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "x", "y", "radius_mi"])
        w.writerows([i, repr(p["x"]), repr(p["y"]), repr(p["radius"])] for i, p in enumerate(points))
    with right.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "x", "y"])
        w.writerows([j, repr(p["x"]), repr(p["y"])] for j, p in enumerate(premises))
    run = subprocess.run([meridian, "near", *(["--geodesic"] if geodesic else []), str(left), str(right),
                          "--in-srs", "EPSG:32038", "--distance-field", "radius_mi", "--unit", "mi", "-o", str(out)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    rows = list(csv.DictReader(out.open()))
    column, per_unit = ("distance_m", 1 / MILE) if geodesic else ("distance_us_ft", US_FT / MILE)
    return [(int(r["id_left"]), int(r["id_right"]), float(r[column]) * per_unit, int(r["rank"])) for r in rows]


def table(driver):
    return [[td.text for td in tr.find_elements(By.CSS_SELECTOR, "td") if td.is_displayed()]
            for tr in driver.find_elements(By.CSS_SELECTOR, "#near-rows tr")]


def check_against_references(driver, meridian, tmp_path, mode):
    """The page's answer for `mode` equals `meridian near` on its points and premises, and the reference library's
    pairs; its highlighted premises and points in breach are those of the pairs."""
    state = page_state(driver)
    answer = state["near"][mode]
    page = [(q["point"], q["premise"], q["distance"], q["rank"]) for q in answer["pairs"]]
    cli = cli_pairs(meridian, tmp_path, state["points"], state["premises"], mode == "geodesic")
    assert [q[:2] + q[3:] for q in page] == [q[:2] + q[3:] for q in cli]
    assert all(abs(a[2] - b[2]) < 2e-9 for a, b in zip(page, cli)), (page, cli)
    reference = near_reference(state["points"], [t["radius"] for t in state["points"]], state["premises"],
                               mode == "geodesic")
    assert [q[:2] for q in page] == [q[:2] for q in reference]
    assert all(abs(a[2] - b[2]) < 1e-8 for a, b in zip(page, reference)), (page, reference)
    return page


def test_premises_within_a_buffer_are_highlighted_and_listed_as_meridian_near_lists_them(browser, viewer, meridian,
                                                                                           tmp_path):
    d = browser
    extent = viewer.get_json("/api/srs/32038")[1]["extent"]
    d.get(viewer.url + "buffers.html")
    wait(d, lambda d: d.execute_script("return document.body.dataset.ready") == "1", message="page ready")
    assert "Shift-click adds a premise" in d.find_element(By.CSS_SELECTOR, ".toolbar").text
    assert not d.find_element(By.ID, "near-panel").is_displayed()

    # Two points north and south-east of Dallas, 30 and 20 miles; the premises are placed from where the clicks
    # landed (a click lands within a pixel or two, about 0.6 mi at this zoom: the margins below are wider).
    add_point(d, *at(extent, 0.66, 0.5), 30)
    add_point(d, *at(extent, 0.70, 0.30), 20)
    wait(d, lambda d: count(d, "path.buffer.planar") == 2, message="two buffers")
    (x0, y0), (x1, y1) = [(p["x"], p["y"]) for p in page_state(d)["points"]]

    # Premises by Shift-click: 20 mi east of point 1 (within), 45 mi north of it (outside both), 12 mi west of
    # point 2 (within); one beyond the horizon is refused with its own message.
    mile = MILE / US_FT
    for x, y in [(x0 + 20 * mile, y0), (x0, y0 + 45 * mile), (x1 - 12 * mile, y1)]:
        shift_click_world(d, x, y)
        assert status(d) == "Premise added."
    assert count(d, "circle.tap-point") == 2 and count(d, "g.premise") == 3
    for _ in range(4):
        d.find_element(By.CSS_SELECTOR, "#zoom button[title='Zoom out']").click()
    shift_click_world(d, *at(extent, 0.5, -2.0))
    assert status(d) == "Tap within the projection's horizon (dotted: the area of use widened by 5°) to add a premise."
    for _ in range(4):
        d.find_element(By.CSS_SELECTOR, "#zoom button[title='Zoom in']").click()
    assert count(d, "g.premise") == 3

    # A CSV of x,y in EPSG:32038 feet and one of lon,lat in WGS84 (projected by the API; pyproj may pick another
    # NAD27 datum shift than the system's PROJ, metres apart): 21.2 and 80 mi from point 1, 19.9 mi south of point 2.
    xy = tmp_path / "premises-feet.csv"
    xy.write_text(f"name,x,y\r\nnorth-east,{x0 + 15 * mile!r},{y0 + 15 * mile!r}\r\nfar,{x0 + 80 * mile!r},{y0!r}\r\n")
    d.find_element(By.ID, "premises-file").send_keys(str(xy))
    wait(d, lambda d: status(d) == "Loaded 2 premises from premises-feet.csv.", message="x,y CSV loaded")
    lon, lat = Transformer.from_crs("EPSG:32038", "EPSG:4326", always_xy=True).transform(x1, y1 - 19.9 * mile)
    lonlat = tmp_path / "premises-degrees.csv"
    lonlat.write_text(f"lon,lat\n{lon!r},{lat!r}\n")
    d.find_element(By.ID, "premises-file").send_keys(str(lonlat))
    wait(d, lambda d: status(d) == "Loaded 1 premise from premises-degrees.csv.", message="lon,lat CSV loaded")
    idle(d)
    assert count(d, "g.premise") == 6

    page = check_against_references(d, meridian, tmp_path, "planar")
    within = sorted({q[1] for q in page})
    breach = sorted({q[0] for q in page})
    assert within == [0, 2, 3, 5] and breach == [0, 1]  # the premises placed within a radius, and both points
    highlighted = sorted(int(g.get_attribute("data-index")) for g in d.find_elements(By.CSS_SELECTOR, "g.premise.in-reach"))
    assert highlighted == within
    assert sorted(int(c.get_attribute("data-index")) for c in d.find_elements(By.CSS_SELECTOR, "circle.tap-point.breach")) \
        == breach
    assert table(d) == [[str(i + 1), f"P{j + 1}", f"{miles:.3f}"] for i, j, miles, _ in page]
    assert d.find_element(By.ID, "near-summary").text == "4 of 6 premises within a buffer; in breach: points 1, 2."
    assert all(e.is_displayed() for e in d.find_elements(By.CSS_SELECTOR, "#legend .near-only"))
    shot(d, "page1-premises-planar")

    # Geodesic: the same question on the ellipsoid, answered again by the API.
    d.find_element(By.CSS_SELECTOR, "#mode option[value='geodesic']").click()
    wait(d, lambda d: count(d, "path.buffer.geodesic") == 2, message="geodesic buffers")
    idle(d)
    geodesic = check_against_references(d, meridian, tmp_path, "geodesic")
    assert page_state(d)["near"]["planar"] is None
    assert table(d) == [[str(i + 1), f"P{j + 1}", f"{miles:.3f}"] for i, j, miles, _ in geodesic]

    # Both: the planar pairs, then the geodesic ones, with their mode.
    d.find_element(By.CSS_SELECTOR, "#mode option[value='both']").click()
    wait(d, lambda d: count(d, "path.buffer.planar") == 2 and count(d, "path.buffer.geodesic") == 2, message="both")
    idle(d)
    assert table(d) == [[str(i + 1), f"P{j + 1}", f"{miles:.3f}", m]
                        for m, pairs in [("planar", page), ("geodesic", geodesic)] for i, j, miles, _ in pairs]
    shot(d, "page1-premises-both")

    # A bad file: one line naming it and its line; the premises stay as they were.
    bad = tmp_path / "bad.csv"
    bad.write_text("x,y\n1700000,400000\n1700000,north\n")
    d.find_element(By.ID, "premises-file").send_keys(str(bad))
    wait(d, lambda d: "bad.csv" in status(d), message="bad file refused")
    assert status(d) == "Could not load the premises: bad.csv: line 3: '1700000','north' is not a finite coordinate pair"
    assert count(d, "g.premise") == 6

    # Clear removes the points and the premises.
    d.find_element(By.ID, "clear").click()
    wait(d, lambda d: count(d, "g.premise") == 0 and count(d, "circle.tap-point") == 0, message="cleared")
    assert not d.find_element(By.ID, "near-panel").is_displayed()
