"""The viewer's JSON API over HTTP, against the built `meridian serve`: errors, limits, parallel clients, timing,
and buffers/boundaries checked against shapely and pyproj (independent references)."""
import concurrent.futures
import json
import math
import signal
import statistics
import time

import pytest
from pyproj import Transformer
from shapely.geometry import Point, Polygon

from viewer_support import Viewer, record

# Inside the EPSG:32038 area of use (98.48°W, 32.76°N, Palo Pinto County), US survey feet.
INSIDE = (1_700_000.0, 400_000.0)
US_FT = 1200 / 3937


def test_health_and_static_page(viewer):
    status, body = viewer.get_json("/api/health")
    assert status == 200 and body["ok"] is True
    status, headers, page = viewer.request("GET", "/buffers.html")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b"GeoNames" in page
    assert viewer.request("GET", "/no-such-file")[0] == 404


@pytest.mark.parametrize("body, fragment", [
    (b"{", "malformed JSON"),
    (b"not json at all", "malformed JSON"),
    (b"", "empty"),
    (b'{"points": 3, "radiiMiles": [1]}', "'points' must be an array"),
    (b'{"points": [{"x": 1}], "radiiMiles": [1]}', "missing field 'points[0].y'"),
    (b'{"points": [{"x": 1700000, "y": 400000}], "radiiMiles": [1], "union": "yes"}', "'union' must be true or false"),
])
def test_bad_json_gets_400_with_a_message(viewer, body, fragment):
    status, headers, answer = viewer.request("POST", "/api/buffer", body)
    assert status == 400
    assert headers["Content-Type"].startswith("application/json")
    assert fragment in json.loads(answer)["error"]


def test_oversized_body_is_refused_before_it_is_read(viewer):
    # Declares 9 MB (the limit is 8 MiB) and sends none of it: the server answers 413 at once.
    head = (b"POST /api/buffer HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
            b"Content-Length: 9000000\r\n\r\n" % viewer.port)
    answer = viewer.raw(head)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b'"error":"request body too large' in answer


def test_oversized_chunked_body_is_drained_then_refused(viewer):
    chunk = b"x" * 65536
    body = b"".join(b"%x\r\n" % len(chunk) + chunk + b"\r\n" for _ in range(130)) + b"0\r\n\r\n"  # 8.5 MB
    head = (b"POST /api/buffer HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" % viewer.port)
    answer = viewer.raw(head + body, timeout=30)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]


def test_limits_and_ranges(viewer):
    too_many = [{"x": INSIDE[0] + i, "y": INSIDE[1]} for i in range(5001)]
    status, body = viewer.post_json("/api/buffer", {"points": too_many, "radiiMiles": [1]})
    assert status == 413 and "limit 5000" in body["error"]
    for radius in (0, 300, -5, 1e9):
        status, body = viewer.post_json("/api/buffer", {"points": [dict(x=INSIDE[0], y=INSIDE[1])], "radiiMiles": [radius]})
        assert status == 422 and "between 0 and 300 miles" in body["error"], radius
    status, body = viewer.post_json("/api/buffer", {"points": [{"x": 9e6, "y": 0}], "radiiMiles": [5]})
    assert status == 422 and "outside the area of use" in body["error"]
    status, body = viewer.post_json("/api/contains", {"x": "a", "y": 1})
    assert status == 400
    assert viewer.get_json("/api/srs/123456789")[0] == 400
    assert viewer.get_json("/api/srs/999999")[0] == 404
    assert viewer.request("PUT", "/api/buffer", b"{}")[0] == 405


def test_buffer_matches_shapely(viewer):
    """A 25-mile planar buffer is the circle shapely (GEOS) draws around the same point in US survey feet."""
    radius_ft = 25 * 1609.344 / US_FT
    status, body = viewer.post_json("/api/buffer", {"points": [dict(x=INSIDE[0], y=INSIDE[1])], "radiiMiles": [25]})
    assert status == 200
    ring = body["polygons"][0]["parts"][0]["shell"]
    ours = Polygon(ring)
    reference = Point(*INSIDE).buffer(radius_ft, quad_segs=16)
    assert abs(ours.area - reference.area) / reference.area < 1e-6
    assert ours.symmetric_difference(reference).area / reference.area < 1e-6
    for x, y in ring:
        assert abs(math.hypot(x - INSIDE[0], y - INSIDE[1]) - radius_ft) < 0.02


def test_union_drops_the_polygon_count(viewer):
    points = [{"x": INSIDE[0] + dx, "y": INSIDE[1]} for dx in (0, 100_000, 200_000)]
    _, separate = viewer.post_json("/api/buffer", {"points": points, "radiiMiles": [15], "union": False})
    _, unioned = viewer.post_json("/api/buffer", {"points": points, "radiiMiles": [15], "union": True})
    assert len(separate["polygons"]) == 3
    assert len(unioned["polygons"]) == 1 and len(unioned["polygons"][0]["parts"]) == 1
    union_area = Polygon(unioned["polygons"][0]["parts"][0]["shell"]).area
    reference = Point(points[0]["x"], points[0]["y"]).buffer(15 * 1609.344 / US_FT, 16)
    for p in points[1:]:
        reference = reference.union(Point(p["x"], p["y"]).buffer(15 * 1609.344 / US_FT, 16))
    assert abs(union_area - reference.area) / reference.area < 1e-6


def test_area_of_use_boundary_agrees_with_pyproj(viewer):
    status, srs = viewer.get_json("/api/srs/32038")
    assert status == 200 and srs["name"] == "NAD27 / Texas North Central"
    a = srs["areaOfUse"]
    assert (a["west"], a["south"], a["east"], a["north"]) == (-103.07, 31.72, -94.0, 34.58)
    to_ft = Transformer.from_crs("EPSG:4326", "EPSG:32038", always_xy=True)
    shell = srs["boundary"]["parts"][0]["shell"]
    boundary = Polygon(shell)
    # The box's corners, projected by pyproj, lie on the boundary (within 30 ft: pyproj's wheel may choose another
    # NAD27 <-> WGS84 operation than the system PROJ; both are Helmert-class, metres apart).
    for lon, lat in [(-103.07, 31.72), (-94.0, 31.72), (-94.0, 34.58), (-103.07, 34.58)]:
        x, y = to_ft.transform(lon, lat)
        assert boundary.exterior.distance(Point(x, y)) < 30, (lon, lat)
    dallas = to_ft.transform(-96.797, 32.7767)
    assert viewer.post_json("/api/contains", {"x": dallas[0], "y": dallas[1]})[1]["inside"] is True
    # The rule is the projection's horizon (the area of use widened by 5°): Houston, 2° south of the box, is inside;
    # Miami, 13.8° east of it, is not.
    houston = to_ft.transform(-95.3698, 29.7604)
    assert viewer.post_json("/api/contains", {"x": houston[0], "y": houston[1]})[1]["inside"] is True
    miami = to_ft.transform(-80.1918, 25.7617)
    assert viewer.post_json("/api/contains", {"x": miami[0], "y": miami[1]})[1]["inside"] is False


def test_round_trip_of_a_1000_point_buffer_request(viewer):
    """Times POST /api/buffer for 1,000 points (separate and unioned); records the figures."""
    _, srs = viewer.get_json("/api/srs/32038")
    e = srs["extent"]
    points = []
    for i in range(1000):  # a 40 x 25 grid well inside the area of use
        fx, fy = 0.1 + 0.8 * (i % 40) / 39, 0.15 + 0.7 * (i // 40) / 24
        points.append({"x": e["xmin"] + fx * (e["xmax"] - e["xmin"]), "y": e["ymin"] + fy * (e["ymax"] - e["ymin"])})
    figures = {}
    for union in (False, True):
        times = []
        for _ in range(3):
            start = time.perf_counter()
            status, _, body = viewer.request("POST", "/api/buffer",
                                             json.dumps({"points": points, "radiiMiles": [5], "union": union}).encode())
            times.append(time.perf_counter() - start)
            assert status == 200
        answer = json.loads(body)
        assert len(answer["polygons"]) == (1 if union else 1000)
        figures["unioned" if union else "separate"] = {
            "median_seconds": round(statistics.median(times), 3), "runs": len(times),
            "response_bytes": len(body), "vertices": answer["vertexCount"]}
    record("buffer_1000_points", figures)
    # An anti-hang limit only (the machine is shared); the speed itself is a benchmark figure, recorded above.
    assert figures["separate"]["median_seconds"] < 120 and figures["unioned"]["median_seconds"] < 120


def test_many_parallel_clients(viewer):
    """64 requests from 32 concurrent loopback clients (buffers, pages, bad JSON): all answered correctly, and the
    server stays responsive."""
    body = json.dumps({"points": [dict(x=INSIDE[0], y=INSIDE[1]), dict(x=INSIDE[0] + 80_000, y=INSIDE[1])],
                       "radiiMiles": [20], "union": True}).encode()

    def one(i):
        start = time.perf_counter()
        if i % 4 == 0:
            status, _, _ = viewer.request("POST", "/api/buffer", b"{broken")
            expected = 400
        elif i % 4 == 1:
            status, _, _ = viewer.request("GET", "/data/texas-32038.json")
            expected = 200
        else:
            status, _, _ = viewer.request("POST", "/api/buffer", body)
            expected = 200
        return status == expected, time.perf_counter() - start

    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=32) as pool:
        results = list(pool.map(one, range(64)))
    wall = time.perf_counter() - start
    assert all(ok for ok, _ in results)
    latencies = sorted(t for _, t in results)
    # Still responsive afterwards.
    t = time.perf_counter()
    assert viewer.get_json("/api/health")[0] == 200
    health = time.perf_counter() - t
    record("parallel_clients", {"clients": 32, "requests": 64, "all_correct": True, "wall_seconds": round(wall, 3),
                                "median_latency_seconds": round(statistics.median(latencies), 3),
                                "max_latency_seconds": round(latencies[-1], 3),
                                "health_after_seconds": round(health, 4)})
    assert health < 30  # anti-hang: the server still answers (its latency is recorded, not judged, above)


def test_sigint_stops_cleanly_and_port_is_reusable(meridian):
    first = Viewer(meridian)
    port = first.port
    status, err = first.stop(signal.SIGINT)
    assert status == 0 and "Stopped." in err
    # A busy port is a clean failure (exit 1, message), not a crash.
    holder = Viewer(meridian)
    import subprocess
    busy = subprocess.run([meridian, "serve", "--port", str(holder.port)], capture_output=True, text=True, timeout=20)
    assert busy.returncode == 1 and "cannot listen" in busy.stderr
    holder.stop()
    bad = subprocess.run([meridian, "serve", "--port", "99999"], capture_output=True, text=True, timeout=20)
    assert bad.returncode == 2
    assert port > 0


def test_the_kml_page_opens_geojson_and_csv_through_the_command_lines_readers(viewer, meridian, fixtures, tmp_path):
    import csv
    import io
    import subprocess

    # The GeoNames cities (GeoJSON, as carried in the fixtures) and the same cities as a CSV of lon,lat points:
    # each opens as one placemark per city, named, where pyproj puts it in Web Mercator (the page's 2 decimals).
    source = fixtures / "basemap" / "cities" / "geonames_us_cities_pop250000.geojson"
    cities = json.loads(source.read_text())["features"]
    table = io.StringIO()
    rows = csv.writer(table, lineterminator="\n")
    rows.writerow(["name", "lon", "lat", "population"])
    for f in cities:
        rows.writerow([f["properties"]["name"], *f["geometry"]["coordinates"], f["properties"]["population"]])
    to3857 = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)
    for body, name in ((source.read_bytes(), "GeoJSON"), (table.getvalue().encode(), "CSV")):
        status, _, answer = viewer.request("POST", "/api/kml/open", body, "application/octet-stream")
        assert status == 200, answer[:300]
        opened = json.loads(answer)
        assert opened["name"] == name and opened["skipped"] == 0
        assert [p["name"] for p in opened["placemarks"]] == [f["properties"]["name"] for f in cities]
        for p, f in zip(opened["placemarks"], cities):
            x, y = to3857.transform(*f["geometry"]["coordinates"])
            (g,) = p["geometries"]
            assert p["edit"] == "point" and abs(g["x"] - x) <= 0.01 and abs(g["y"] - y) <= 0.01, (p, f)

    # A bad row is refused with the message the command line gives for the same file, the file named as "the file".
    bad = tmp_path / "bad.csv"
    bad.write_text("name,lon,lat\na,10,20\nb,10,95\n")
    status, _, answer = viewer.request("POST", "/api/kml/open", bad.read_bytes(), "application/octet-stream")
    cli = subprocess.run([meridian, "op", "convex-hull", str(bad)], capture_output=True, text=True, timeout=60)
    prefix = f"meridian op: {bad}: "
    assert cli.returncode == 1 and cli.stderr.startswith(prefix + "feature 1 (line 3): latitude 95"), cli.stderr
    assert status == 422
    assert json.loads(answer)["error"] == "the file: " + cli.stderr.strip().removeprefix(prefix)
