"""POST /api/near over HTTP, against the built `meridian serve`: the premises within each point's buffer radius,
planar distances checked against shapely and geodesic ones against GeographicLib (independent references), bad
input answered 422 with one line, the limits, and the security headers every response carries."""
import json
import random

import pytest
from pyproj import Transformer

from viewer_support import near_reference


def scatter(seed, n, x=(1_600_000, 2_000_000), y=(300_000, 600_000)):
    rng = random.Random(seed)
    return [{"x": rng.uniform(*x), "y": rng.uniform(*y)} for _ in range(n)]


@pytest.mark.parametrize("mode", ["planar", "geodesic"])
def test_pairs_match_the_references(viewer, mode):
    """150 points (three batches) with their own radii and 400 premises: the same pairs, ranks and order as
    shapely's (planar, US survey feet) or GeographicLib's (geodesic, Clarke 1866) distances give, to 1e-9 mi."""
    points, premises = scatter(1, 150), scatter(2, 400)
    radii = [random.Random(3 + i).uniform(1, 12) for i in range(len(points))]
    status, answer = viewer.post_json("/api/near", {"mode": mode, "points": points, "radiiMiles": radii,
                                                    "premises": premises})
    assert status == 200, answer
    expected = near_reference(points, radii, premises, mode == "geodesic")
    got = [(q["point"], q["premise"], q["distance"], q["rank"]) for q in answer["pairs"]]
    assert len(expected) > 300
    assert [(i, j, r) for i, j, _, r in got] == [(i, j, r) for i, j, _, r in expected]
    assert max(abs(a[2] - b[2]) for a, b in zip(got, expected)) < 2e-9
    assert answer["pointsInBreach"] == sorted({q[0] for q in expected})
    assert answer["premisesInReach"] == sorted({q[1] for q in expected})
    assert all(abs(a["x"] - b["x"]) < 1e-6 and abs(a["y"] - b["y"]) < 1e-6 for a, b in zip(answer["premises"], premises))


def test_csv_premises_in_degrees_are_projected_into_the_map(viewer):
    """lon,lat rows are WGS84, projected into EPSG:32038 (within 30 ft of pyproj's: its wheel may pick another NAD27
    datum shift than the system's PROJ)."""
    places = [(-96.797, 32.7767), (-97.3308, 32.7555), (-97.1467, 31.5493)]  # Dallas, Fort Worth, Waco
    text = "name,lat,lon\n" + "".join(f"p{k},{lat},{lon}\n" for k, (lon, lat) in enumerate(places))
    status, answer = viewer.post_json("/api/near", {"points": [], "radiiMiles": [],
                                                    "premisesCSV": {"name": "towns.csv", "text": text}})
    assert status == 200, answer
    to_feet = Transformer.from_crs("EPSG:4326", "EPSG:32038", always_xy=True)
    for got, (lon, lat) in zip(answer["premises"], places):
        x, y = to_feet.transform(lon, lat)
        assert abs(got["x"] - x) < 30 and abs(got["y"] - y) < 30, (got, x, y)
    assert answer["pairs"] == []


@pytest.mark.parametrize("body, status, message", [
    ({"points": [], "radiiMiles": [], "premises": [{"x": 9e6, "y": 0}]}, 422,
     "premise 0 is outside the area of use of NAD27 / Texas North Central (W -103.07, S 31.72, E -94, N 34.58; 5° "
     "beyond it are accepted): tap within the projection's horizon"),
    ({"points": [], "radiiMiles": [], "premisesCSV": {"name": "homes.csv", "text": "id,addr\n1,Main St\n"}}, 422,
     "homes.csv: line 1: the CSV header needs lon,lat (or longitude,latitude) or x,y columns; it has id,addr"),
    ({"points": [], "radiiMiles": [], "premisesCSV": {"name": "homes.csv", "text": "x,y\n1700000,400000\n1,2,3\n"}},
     422, "homes.csv: CSV line 3: the row has 3 fields, the header has 2"),
    ({"points": [], "radiiMiles": [], "premisesCSV": {"name": "homes.csv", "text": "lat,lon\n32,-97\nNaN,-97\n"}},
     422, "homes.csv: line 3: '-97','NaN' is not a finite coordinate pair"),
    ({"points": [], "radiiMiles": [], "premisesCSV": {"name": "homes.geojson", "text": '{"type": "Point"}'}}, 422,
     "homes.geojson is GeoJSON, not CSV: premises are read from a CSV file with x,y or lon,lat columns"),
    ({"points": [{"x": 1_700_000, "y": 400_000}], "radiiMiles": [-1], "premises": []}, 422,
     "radius 0 is -1.0: enter a value between 0 and 300 miles"),
    ({"points": [{"x": 1_700_000, "y": 400_000}], "radiiMiles": [5], "premises": [{"x": "a", "y": 1}]}, 400,
     "field 'premises[0].x' must be a number"),
    ({"points": [], "radiiMiles": [], "mode": "flat"}, 400, 'mode must be "planar" or "geodesic", got "flat"'),
])
def test_bad_input_gets_one_line(viewer, body, status, message):
    got, answer = viewer.post_json("/api/near", body)
    assert (got, answer) == (status, {"error": message})


def test_limits_and_security_headers(viewer):
    # Premises: at most 5,000 per request, tapped and read together.
    text = "x,y\n" + "1700000,400000\n" * 4001
    status, answer = viewer.post_json("/api/near", {"points": [], "radiiMiles": [], "premises": scatter(4, 1000),
                                                    "premisesCSV": {"name": "many.csv", "text": text}})
    assert (status, answer) == (413, {"error": "too many premises: 5001 (limit 5000)"})
    # Pairs: at most 20,000 per answer (150 x 150 within reach of each other would be 22,500).
    crowd = scatter(5, 150, x=(1_700_000, 1_710_000), y=(400_000, 410_000))
    status, answer = viewer.post_json("/api/near", {"points": crowd, "radiiMiles": [50], "premises": crowd})
    assert (status, answer) == (413, {"error": "more than 20000 point–premise pairs are within reach (the limit): "
                                               "use smaller radii, fewer points or fewer premises"})
    # The body: bounded like every POST's.
    head = (b"POST /api/near HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
            b"Content-Length: 9000000\r\n\r\n" % viewer.port)
    assert viewer.raw(head).startswith(b"HTTP/1.1 413")
    # Every answer carries the viewer's headers, the refusals too; a cross-site form post is refused.
    for body in ({"points": crowd[:2], "radiiMiles": [1], "premises": crowd[:3]}, {"points": []}):
        status, headers, _ = viewer.request("POST", "/api/near", json.dumps(body).encode())
        assert status in (200, 400)
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
        assert headers["X-Content-Type-Options"] == "nosniff" and headers["X-Frame-Options"] == "DENY"
    assert viewer.request("POST", "/api/near", b"points=1", content_type="text/plain")[0] == 415
