"""Geodesic buffers and measurements of the `meridian` CLI against GeographicLib's Python package (an independent
implementation of Karney's algorithms) and pyproj's scale factors.

Tolerances: vertices within 1 mm of the requested distance and sampled edge points within --max-deviation (the
engine's contract); areas and perimeters to 1e-9 relative (both sides use Karney's series, so they agree to
rounding); scale factors to 1e-10 (closed-form formula vs PROJ's numerical derivatives)."""
import json
import math
import subprocess

import pyproj
import pytest
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
    """A union leaves out circles whose boundary lies inside other circles (culling) and then fills the
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


def _line_distances(line, points, exact):
    """The geodesic distances (m) from lon/lat points to the polyline `line` (geodesic segments between its
    vertices). Candidate segments come from a planar screen (longitudes scaled by cos 32.5°, a generous 10 % +
    0.01° over the nearest: the scale varies by about ±3 % over these latitudes); on each candidate the distance
    along the geodesic segment (unimodal at these lengths) is minimised by a golden-section search to 0.1 mm along
    it, with pyproj's `Geod` (GeographicLib's C code), vectorised over all pairs. For the points flagged `exact`,
    GeographicLib's Python package (an independent implementation) then measures the distance from the point to the
    foot found on the nearest segment: a true distance to a point of the line, never less than the exact distance
    and longer by far less than a micrometre (0.1 mm along the segment changes it by ~1e-13 m)."""
    import numpy as np
    import shapely

    geod = pyproj.Geod(ellps="WGS84")
    k = math.cos(math.radians(32.5))
    a = np.array(line[:-1], dtype=float)
    b = np.array(line[1:], dtype=float)
    azimuth, _, length = geod.inv(a[:, 0], a[:, 1], b[:, 0], b[:, 1])
    tree = shapely.STRtree(shapely.linestrings(np.stack([a * [k, 1], b * [k, 1]], axis=1)))
    p = np.array(points, dtype=float)
    q = shapely.points(p * [k, 1])
    (qi, _), nearest = tree.query_nearest(q, return_distance=True)
    near = np.full(len(p), np.inf)
    np.minimum.at(near, qi, nearest)
    pi, si = tree.query(q, predicate="dwithin", distance=near * 1.1 + 0.01)

    def f(t, keep=slice(None)):
        lon, lat, _ = geod.fwd(a[si[keep], 0], a[si[keep], 1], azimuth[si[keep]], t)
        return geod.inv(p[pi[keep], 0], p[pi[keep], 1], lon, lat)[2]

    # A pair is dropped once its segment cannot hold the point's nearest foot: the distance changes by at most the
    # arc length along the segment, so the segment's minimum, which lies in [lo, hi], is at least min(fc, fd) −
    # (hi − lo), and the smallest distance found so far over all pairs (ub) is a true distance.
    result = np.full(len(p), np.inf)
    f0, f1 = f(np.zeros(len(si))), f(length[si])
    np.minimum.at(result, pi, np.minimum(f0, f1))
    keep = (f0 + f1 - length[si]) / 2 <= result[pi]
    pi, si = pi[keep], si[keep]
    g = (math.sqrt(5) - 1) / 2
    lo, hi = np.zeros(len(si)), length[si].copy()
    c, d = hi - g * (hi - lo), lo + g * (hi - lo)
    fc, fd = f(c), f(d)
    while len(si) and np.max(hi - lo) > 1e-4:
        left = fc < fd
        hi, lo = np.where(left, d, hi), np.where(left, lo, c)
        t = np.where(left, hi - g * (hi - lo), lo + g * (hi - lo))
        ft = f(t)
        c, d, fc, fd = np.where(left, t, d), np.where(left, c, t), np.where(left, ft, fd), np.where(left, fc, ft)
        np.minimum.at(result, pi, np.minimum(fc, fd))
        keep = np.minimum(fc, fd) - (hi - lo) <= result[pi]
        pi, si, lo, hi, c, d, fc, fd = (v[keep] for v in (pi, si, lo, hi, c, d, fc, fd))
    foot = np.where(fc < fd, c, d)
    pair = np.minimum(fc, fd)
    best = {}
    for j in np.argsort(pair)[::-1]:  # the nearest pair of each point last, so it stays
        best[pi[j]] = j
    for i in np.nonzero(np.asarray(exact))[0]:
        j = best[i]
        s_ = si[j]
        segment = WGS84.InverseLine(a[s_, 1], a[s_, 0], b[s_, 1], b[s_, 0])
        ts = [foot[j]] + [0.0] * int(lo[j] == 0) + [segment.s13] * int(hi[j] == length[s_])  # a foot at an end
        ons = [segment.Position(t) for t in ts]
        result[i] = min(WGS84.Inverse(p[i, 1], p[i, 0], on["lat2"], on["lon2"])["s12"] for on in ons)
    return result


def _line_cases():
    """Lines across Texas (lon/lat on WGS84), 1,000 vertices each: a smooth sine (its 100 km buffer
    folds on the inside of every bend: a radius of curvature of about 60 km at the crests), the same with ±0.002° of
    seeded noise on each latitude, and bench case G1's zigzag (0.3° high, 0.008° steps)."""
    import random

    lons = [-103 + 9 * i / 999 for i in range(1000)]
    smooth = [(x, 32.5 + 0.8 * math.sin(1.3 * (x + 103))) for x in lons]
    rng = random.Random(16)
    noisy = [(x, y + rng.uniform(-0.002, 0.002)) for x, y in smooth]
    zigzag = [(-104 + 8 * i / 999, 31.0 + 0.3 * (i % 2)) for i in range(1000)]
    return {"smooth": smooth, "noisy": noisy, "zigzag": zigzag}


@pytest.mark.parametrize("name", ["smooth", "noisy", "zigzag"])
def test_line_buffer_vertices_on_the_true_boundary(meridian, name):
    """A long line buffered at 100 km must keep the accuracy contract everywhere: the polygon valid (shapely),
    every vertex 100 km (±1 mm) from the line (its count printed), every edge within maxDeviation (200 m, sampled at
    a quarter, half and three quarters). The smooth and noisy lines once came back as GEOS's union of the
    straight-edged pieces (the crossings moved onto the true boundary gave an invalid polygon), their crossing
    vertices up to 143 m off."""
    import numpy as np
    import shapely
    from shapely.geometry import shape

    line = [(round(x, 9), round(y, 9)) for x, y in _line_cases()[name]]
    feature = {"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": line}}
    stdin = json.dumps({"type": "FeatureCollection", "features": [feature]})
    result = json.loads(run(meridian, ["buffer", "--geodesic", "--distance", "100km", "-o", "-"], stdin))
    geometry = result["features"][0]["geometry"]
    polygon = shape(geometry)
    assert polygon.is_valid, shapely.is_valid_reason(polygon)
    vertices, samples = [], []
    for ring in rings(geometry):
        vertices += ring[:-1]
        samples += [(ax + t * (bx - ax), ay + t * (by - ay)) for (ax, ay), (bx, by) in zip(ring, ring[1:])
                    for t in (0.25, 0.5, 0.75)]
    errors = np.abs(_line_distances(line, vertices + samples, [True] * len(vertices) + [False] * len(samples)) - 100e3)
    off = [(*v, e) for v, e in zip(vertices, errors) if e > 1e-3]
    worst_vertex, worst_edge = errors[:len(vertices)].max(), errors[len(vertices):].max()
    print(f"{name} line at 100 km: {len(vertices)} vertices, {len(off)} more than 1 mm off, worst vertex error "
          f"{worst_vertex:.3e} m, worst sampled edge deviation {worst_edge:.3f} m")
    assert not off, f"{len(off)} of {len(vertices)} vertices more than 1 mm off, e.g. {off[:3]}"
    assert worst_edge <= 200, worst_edge


@pytest.mark.parametrize("line, distance", [
    ([(0.0, 0.0), (1.0, 1.0)], 1.0),                                            # once: 393 GB asked, SIGABRT
    ([(-97.0 + 0.01 * i, 32.0 + 0.01 * i + 0.003 * (i % 2)) for i in range(300)], 10.0),  # 300 vertices, 420 km
])
def test_short_distance_buffers_of_long_diagonal_lines(meridian, line, distance):
    """A long diagonal line buffered by a few metres: the segment index once asked for a cell every half distance
    over the whole bounding box (5 × 10¹⁰ cells for a 157 km line at 1 m: "failed to allocate 393871712032 bytes",
    exit 134). The buffer is now made, and it keeps the accuracy contract: every vertex at the distance (±1 mm,
    GeographicLib), every edge within the default maxDeviation (0.2 % of the distance)."""
    import numpy as np

    stdin = json.dumps({"type": "Feature", "properties": {},
                        "geometry": {"type": "LineString", "coordinates": line}})
    result = json.loads(run(meridian, ["buffer", "--geodesic", "--distance", f"{distance}m", "-o", "-"], stdin))
    geometry = result["features"][0]["geometry"]
    vertices, samples = [], []
    for ring in rings(geometry):
        vertices += ring[:-1]
        samples += [(ax + t * (bx - ax), ay + t * (by - ay)) for (ax, ay), (bx, by) in zip(ring, ring[1:])
                    for t in (0.25, 0.5, 0.75)]
    errors = np.abs(_line_distances(line, vertices + samples, [True] * len(vertices) + [False] * len(samples))
                    - distance)
    assert errors[:len(vertices)].max() <= 1e-3, errors[:len(vertices)].max()
    assert errors[len(vertices):].max() <= 0.002 * distance, errors[len(vertices):].max()
