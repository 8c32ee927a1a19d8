"""Geodesic buffers and measurements of the `meridian` CLI against GeographicLib's Python package (an independent
implementation of Karney's algorithms) and pyproj's scale factors.

Tolerances: vertices within 1 mm of the requested distance and sampled edge points within --max-deviation (the
engine's contract); areas and perimeters to 1e-9 relative (both sides use Karney's series, so they agree to
rounding); scale factors to 1e-10 (closed-form formula vs PROJ's numerical derivatives)."""
import json
import math
import subprocess

import pyproj
from geographiclib.geodesic import Geodesic

WGS84 = Geodesic.WGS84


def run(meridian, args, stdin):
    out = subprocess.run([meridian, *args], input=stdin, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def rings(geometry):
    if geometry["type"] == "Polygon":
        return geometry["coordinates"]
    return [ring for polygon in geometry["coordinates"] for ring in polygon]


def test_buffer_vertices_and_edges_against_geographiclib(meridian):
    centres = [(179.9, -17.5, 300e3), (0.0, 89.5, 100e3), (-180.0, 0.0, 1e3), (12.5, 41.9, 2e6), (45.0, -89.99, 5e4)]
    features = [{"type": "Feature", "properties": {"r": r}, "geometry": {"type": "Point", "coordinates": [x, y]}}
                for x, y, r in centres]
    stdin = json.dumps({"type": "FeatureCollection", "features": features})
    result = json.loads(run(meridian, ["buffer", "--geodesic", "--distance-field", "r", "-o", "-"], stdin))
    worst_vertex = worst_edge = 0.0
    for (x, y, r), feature in zip(centres, result["features"]):
        assert feature["properties"]["r"] == r
        max_deviation = 0.002 * r
        for ring in rings(feature["geometry"]):
            for (ax, ay), (bx, by) in zip(ring, ring[1:]):
                if abs(ay) != 90:
                    e = abs(WGS84.Inverse(y, x, ay, ax)["s12"] - r)
                    worst_vertex = max(worst_vertex, e)
                    assert e <= 1e-3, (x, y, r, ax, ay, e)
                if (ax == bx and abs(ax) == 180) or (ay == by and abs(ay) == 90):
                    continue  # a cut line (RFC 7946), not boundary
                for k in range(1, 8):
                    t = k / 8
                    qx, qy = ax + t * (bx - ax), ay + t * (by - ay)
                    dev = abs(WGS84.Inverse(y, x, qy, qx)["s12"] - r)
                    worst_edge = max(worst_edge, dev / max_deviation)
                    assert dev <= max_deviation, (x, y, r, qx, qy, dev)
    print(f"geographiclib: worst vertex error {worst_vertex:.3e} m, worst edge deviation {worst_edge:.4f} of maxDeviation")


def test_measure_against_geographiclib(meridian):
    ring = [[-10.0, 40.0], [20.0, 35.0], [25.0, 60.0], [170.0, 80.0], [-10.0, 40.0]]
    line = [[179.0, 10.0], [-179.0, 11.0], [-170.0, -5.0]]
    stdin = json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [ring]}},
        {"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": line}}]})
    doc = json.loads(run(meridian, ["measure", "--geodesic", "--json"], stdin))
    polygon = WGS84.Polygon()
    for x, y in ring[:-1]:
        polygon.AddPoint(y, x)
    _, perimeter, area = polygon.Compute(False, True)
    assert math.isclose(doc["features"][0]["area_m2"], abs(area), rel_tol=1e-9)
    assert math.isclose(doc["features"][0]["perimeter_m"], perimeter, rel_tol=1e-9)
    length = sum(WGS84.Inverse(a[1], a[0], b[1], b[0])["s12"] for a, b in zip(line, line[1:]))
    assert math.isclose(doc["features"][1]["length_m"], length, rel_tol=1e-12)


def test_texas_scale_factor_formula_matches_pyproj():
    """The Swift Texas test uses Snyder's closed form for the LCC scale factor of EPSG:32038; PROJ agrees."""
    a, b = 6378206.4, 6356583.8
    e2 = 1 - (b / a) ** 2
    e = math.sqrt(e2)

    def m(phi):
        return math.cos(phi) / math.sqrt(1 - e2 * math.sin(phi) ** 2)

    def t(phi):
        return math.tan(math.pi / 4 - phi / 2) / ((1 - e * math.sin(phi)) / (1 + e * math.sin(phi))) ** (e / 2)

    p1, p2 = math.radians(33 + 58 / 60), math.radians(32 + 8 / 60)
    n = (math.log(m(p1)) - math.log(m(p2))) / (math.log(t(p1)) - math.log(t(p2)))
    f = m(p1) / (n * t(p1) ** n)
    proj = pyproj.Proj("EPSG:32038")
    for lat in (31.3, 31.72, 32.5, 33.3, 34.58, 35.1):
        phi = math.radians(lat)
        k = n * f * t(phi) ** n / m(phi)
        factors = proj.get_factors(-97.5, lat)
        # PROJ's factors come from numerical differentiation: its meridional and parallel scales of this conformal
        # projection differ from each other by ~1e-11, so 1e-10 is PROJ's own resolution here.
        assert abs(factors.meridional_scale - k) < 1e-10
        assert abs(factors.parallel_scale - k) < 1e-10


def test_union_of_many_dense_circles_is_valid_and_on_the_true_boundary(meridian):
    """2,000 random 5 km circles in a 5° × 4° box of Texas, unioned: near-tangent pairs and small holes beside thin
    lenses are certain at this density (such a spot once gave an invalid ring). The union must be valid for shapely
    (GEOS) as a whole, and every vertex must lie 5 km (±1 mm) from its nearest centre (GeographicLib), that is on
    the true union's boundary; a sample of edge points within maxDeviation (0.2 % = 10 m) of it."""
    import random

    import shapely
    from shapely.geometry import shape

    rng = random.Random(2_000)
    # Rounded as written to the CSV, so the check measures from the centres Meridian reads.
    centres = [(round(rng.uniform(-100, -95), 6), round(rng.uniform(30, 34), 6)) for _ in range(2000)]
    csv = "lon,lat\n" + "".join(f"{x:.6f},{y:.6f}\n" for x, y in centres)
    result = json.loads(run(meridian, ["buffer", "--geodesic", "--distance", "5km", "--union", "-o", "-"], csv))
    geometry = result["features"][0]["geometry"]
    union = shape(geometry)
    assert union.is_valid, shapely.is_valid_reason(union)
    cell = {}  # centres by 0.1° cell, to find the nearest few quickly
    for x, y in centres:
        cell.setdefault((int(x * 10), int(y * 10)), []).append((x, y))

    def nearest(qx, qy):
        near = [c for i in (-1, 0, 1) for j in (-1, 0, 1) for c in cell.get((int(qx * 10) + i, int(qy * 10) + j), [])]
        # Only centres that can be within 5.5 km (a degree of latitude is ≥ 110.5 km, of longitude here ≥ 92 km).
        near = [(x, y) for x, y in near if ((x - qx) * 92e3) ** 2 + ((y - qy) * 110.5e3) ** 2 < 5.5e3 ** 2]
        return min(WGS84.Inverse(y, x, qy, qx)["s12"] for x, y in near)

    worst_vertex = worst_edge = 0.0
    vertices = 0
    for ring in rings(geometry):
        for k, ((ax, ay), (bx, by)) in enumerate(zip(ring, ring[1:])):
            e = abs(nearest(ax, ay) - 5000)
            worst_vertex = max(worst_vertex, e)
            vertices += 1
            assert e <= 1e-3, (ax, ay, e)
            if k % 10 == 0:
                dev = abs(nearest((ax + bx) / 2, (ay + by) / 2) - 5000)
                worst_edge = max(worst_edge, dev)
                assert dev <= 10, (ax, ay, bx, by, dev)
    print(f"dense union: {vertices} vertices, worst vertex error {worst_vertex:.3e} m, worst sampled edge deviation {worst_edge:.3f} m")


def test_union_culls_covered_circles_and_fills_the_holes_they_cover(meridian):
    """Issue 16: a union leaves out circles whose boundary lies inside other circles (culling) and then fills the
    holes those circles covered. Three "flowers" (5 km, 50 km and 300 km): a centre circle and five petals at 1.5 r
    from it, at 72° steps, which cover its boundary (each covers ±41° of it) but leave a hole around its centre. With
    the centre the union has no hole; without it (the petals alone) each flower has one. Plus 3,000 circles of
    6 km in a 3° square (heavy overlap, about four deep: most are culled; some holes remain). Every vertex must lie
    r (±1 mm, GeographicLib) from its nearest centre: a hole left open where a culled circle lies would have its vertices inside that
    circle, and a culled circle that was not covered would leave other circles' vertices inside it."""
    import random

    import shapely
    from shapely.geometry import shape

    flowers = []
    for lon, lat, r in [(-100.0, 31.0, 5e3), (-98.0, 33.0, 50e3), (-75.0, 45.0, 300e3)]:
        flowers.append((lon, lat, r))
        for k in range(5):
            d = WGS84.Direct(lat, lon, 72 * k + 10, 1.5 * r)
            flowers.append((round(d["lon2"], 9), round(d["lat2"], 9), r))
    rng = random.Random(16)
    dense = [(round(rng.uniform(-90, -87), 6), round(rng.uniform(38, 41), 6), 6e3) for _ in range(3000)]

    def union(circles):
        csv = "lon,lat,r\n" + "".join(f"{x:.9f},{y:.9f},{r}\n" for x, y, r in circles)
        result = json.loads(run(meridian, ["buffer", "--geodesic", "--distance-field", "r", "--union", "-o", "-"], csv))
        geometry = result["features"][0]["geometry"]
        polygon = shape(geometry)
        assert polygon.is_valid, shapely.is_valid_reason(polygon)
        worst = 0.0
        for ring in rings(geometry):
            for ax, ay in ring[:-1]:
                near = sorted(circles, key=lambda c: (c[0] - ax) ** 2 + (c[1] - ay) ** 2)[:12]
                e = min(WGS84.Inverse(y, x, ay, ax)["s12"] - r for x, y, r in near)
                worst = max(worst, abs(e))
                assert abs(e) <= 1e-3, (ax, ay, e)
        parts = list(getattr(polygon, "geoms", [polygon]))
        return len(parts), sum(len(p.interiors) for p in parts), worst

    assert union(flowers)[:2] == (3, 0)
    petals = [c for i, c in enumerate(flowers) if i % 6 != 0]
    assert union(petals)[:2] == (3, 3)
    parts, holes, worst = union(dense)
    print(f"culled union: 3,000 circles of 6 km: {parts} parts, {holes} holes, worst vertex error {worst:.3e} m")
