"""Every output vertex of the commands that write coordinates, in every output format, against an independent
computation by the peer stack (pyproj for projections, shapely/GEOS for planar buffers, GeographicLib for geodesic
distances). These guard the writers and readers: a shift of a few metres anywhere in a writer fails them.

Tolerances (each far below the 28 m a writer bug would move a vertex, and each justified by what limits it):
- Projected coordinates (US survey feet of EPSG:32038): 1e-4 ft (0.03 mm). Meridian's buffer vertices are GEOS's
  bit for bit (x + r·cos a_k, y + r·sin a_k), so the only differences are the projected centres: pyproj's wheel
  bundles its own PROJ, and both PROJ builds use the Helmert "NAD27 to WGS 84 (6)" here, agreeing to well under
  1e-6 ft. WKT and GeoJSON write shortest round-trip decimals, so the text adds nothing.
- Longitude/latitude: 1e-9° (0.1 mm), for the same reason (the inverse projection of the vertices by the two PROJ
  builds agrees to about 1e-12°).
- Text that rounds by design adds half a unit of its last digit: `project`'s CSV (%.9f degrees, %.4f feet) and the
  SVG picture (%.2f pixels, about 20 ft a pixel at 800 px across EPSG:32038's area of use).
- Geodesic buffers: every vertex at the requested distance from its centre within 1 mm by GeographicLib's inverse
  problem (the command's documented accuracy).
- Unions: the vertex sets are compared (same count; every vertex within 1e-4 ft of a vertex of shapely's union, and
  the reverse), because the two GEOS builds may start a ring at another vertex.
"""
import io
import json
import math
import pathlib
import re
import subprocess
import xml.etree.ElementTree as ET
import zipfile

import numpy as np
import pytest
import shapely
from geographiclib.geodesic import Geodesic
from pyproj import Transformer
from shapely import wkt as shapely_wkt

US_FT = 1200 / 3937          # metres per US survey foot (exact)
MILE = 1609.344               # metres per international mile (exact)
FT_TOL = 1e-4                 # projected coordinates, US survey feet (see the module's docstring)
DEG_TOL = 1e-9                # longitude/latitude, degrees
KML_NS = "{http://www.opengis.net/kml/2.2}"
N = 40

TO_TX = Transformer.from_crs("EPSG:4326", "EPSG:32038", always_xy=True)
TO_WGS = Transformer.from_crs("EPSG:32038", "EPSG:4326", always_xy=True)


def _run(meridian, *args, stdin=None):
    out = subprocess.run([meridian, *args], capture_output=True, text=True, timeout=120, input=stdin)
    assert out.returncode == 0, out.stderr
    return out


# Reference geometry ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def case(tmp_path_factory):
    """40 points in north Texas with radii of 0.5-3 miles (so that some buffers overlap), as CSV (lon,lat), and
    shapely's buffers of their pyproj-projected centres in EPSG:32038."""
    folder = tmp_path_factory.mktemp("vertices")
    rng = np.random.default_rng(20261201)
    lon = rng.uniform(-97.6, -97.0, N)
    lat = rng.uniform(32.6, 33.0, N)
    r_mi = rng.uniform(0.5, 3.0, N)
    lines = ["id,lon,lat,r_mi"] + [f"{i},{x!r},{y!r},{r!r}" for i, (x, y, r) in
                                   enumerate(zip(lon.tolist(), lat.tolist(), r_mi.tolist()))]
    (folder / "points.csv").write_text("\n".join(lines) + "\n")
    x, y = TO_TX.transform(lon, lat)
    r_ft = r_mi * MILE / US_FT
    buffers = [shapely.Point(px, py).buffer(r, quad_segs=16) for px, py, r in zip(x, y, r_ft)]
    return {"folder": folder, "lon": lon, "lat": lat, "r_mi": r_mi, "x": x, "y": y, "buffers": buffers,
            "union": shapely.union_all(buffers)}


def _rings(polygon):
    """The rings of a shapely (multi)polygon as (n, 2) arrays, shell first, in order, oriented as Meridian writes
    them (shells counter-clockwise, holes clockwise; GEOS builds a point's buffer clockwise)."""
    parts = [shapely.geometry.polygon.orient(p, 1.0) for p in getattr(polygon, "geoms", [polygon])]
    out = []
    for p in parts:
        out.append(np.asarray(p.exterior.coords)[:, :2])
        out.extend(np.asarray(r.coords)[:, :2] for r in p.interiors)
    return out


def _to_wgs84(ring):
    lon, lat = TO_WGS.transform(ring[:, 0], ring[:, 1])
    return np.column_stack([lon, lat])


def _assert_ring_equal(ours, expected, tol, what):
    ours = np.asarray(ours, dtype=float)[:, :2]
    assert ours.shape == expected.shape, f"{what}: {ours.shape[0]} vertices, expected {expected.shape[0]}"
    worst = np.abs(ours - expected).max()
    assert worst <= tol, f"{what}: a vertex is {worst:.3g} away from the reference (tolerance {tol:g})"


def _assert_vertex_sets_equal(ours, expected, tol, what):
    """Same number of vertices, and every vertex of each set within tol of one of the other's."""
    a = np.concatenate([np.asarray(r, dtype=float)[:-1, :2] for r in ours])
    b = np.concatenate([np.asarray(r, dtype=float)[:-1, :2] for r in expected])
    assert len(a) == len(b), f"{what}: {len(a)} vertices, expected {len(b)}"
    for p, q in ((a, b), (b, a)):
        order = np.argsort(q[:, 0])
        qs = q[order]
        worst = 0.0
        for v in p:
            lo = np.searchsorted(qs[:, 0], v[0] - tol, "left")
            hi = np.searchsorted(qs[:, 0], v[0] + tol, "right")
            d = np.abs(qs[lo:hi] - v).max(axis=1).min() if hi > lo else math.inf
            worst = max(worst, d)
        assert worst <= tol, f"{what}: a vertex is {worst:.3g} from every reference vertex (tolerance {tol:g})"


def _geojson_polygon_rings(geometry):
    assert geometry["type"] in ("Polygon", "MultiPolygon")
    polygons = [geometry["coordinates"]] if geometry["type"] == "Polygon" else geometry["coordinates"]
    return [np.asarray(r, dtype=float) for p in polygons for r in p]


def _kml_polygons(root):
    """Rings of every Polygon in a KML tree, grouped per Placemark, shell first."""
    out = []
    for pm in root.iter(KML_NS + "Placemark"):
        rings = []
        for poly in pm.iter(KML_NS + "Polygon"):
            for boundary in ("outerBoundaryIs", "innerBoundaryIs"):
                for b in poly.findall(KML_NS + boundary):
                    text = b.find(f"{KML_NS}LinearRing/{KML_NS}coordinates").text
                    rings.append(np.array([[float(v) for v in t.split(",")][:2] for t in text.split()]))
        if rings:
            out.append(rings)
    return out


def _kml_points(root):
    pts = []
    for point in root.iter(KML_NS + "Point"):
        text = point.find(KML_NS + "coordinates").text
        pts.append([float(v) for v in text.strip().split(",")][:2])
    return np.array(pts)


def _kml_root(path_or_bytes):
    data = path_or_bytes if isinstance(path_or_bytes, bytes) else pathlib.Path(path_or_bytes).read_bytes()
    if data[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            data = z.read(z.namelist()[0])
    return ET.fromstring(data)


# meridian buffer ------------------------------------------------------------------------------------------------

BUFFER_ARGS = ("--srs", "EPSG:32038", "--distance-field", "r_mi", "--unit", "mi")


def test_buffer_wkt_every_vertex(meridian, case):
    out = case["folder"] / "b.wkt"
    _run(meridian, "buffer", str(case["folder"] / "points.csv"), *BUFFER_ARGS, "-o", str(out))
    lines = [line for line in out.read_text().splitlines() if line.strip()]
    assert len(lines) == N
    for i, (line, ref) in enumerate(zip(lines, case["buffers"])):
        ours = _rings(shapely_wkt.loads(line))
        expected = _rings(ref)
        assert len(ours) == len(expected) == 1
        _assert_ring_equal(ours[0], expected[0], FT_TOL, f"WKT buffer {i}")


def test_buffer_union_wkt_every_vertex(meridian, case):
    out = case["folder"] / "u.wkt"
    _run(meridian, "buffer", str(case["folder"] / "points.csv"), *BUFFER_ARGS, "--union", "-o", str(out))
    lines = [line for line in out.read_text().splitlines() if line.strip()]
    assert len(lines) == 1
    ours = shapely_wkt.loads(lines[0])
    assert len(_rings(ours)) == len(_rings(case["union"]))
    assert len(getattr(case["union"], "geoms", [0])) > 1  # the case has separate parts …
    assert len(_rings(case["union"])) < N                 # … and overlaps
    _assert_vertex_sets_equal(_rings(ours), _rings(case["union"]), FT_TOL, "WKT union")


@pytest.mark.parametrize("target", ["stdout", "b.geojson"])
def test_buffer_geojson_every_vertex(meridian, case, target):
    args = [] if target == "stdout" else ["-o", str(case["folder"] / target)]
    out = _run(meridian, "buffer", str(case["folder"] / "points.csv"), *BUFFER_ARGS, *args)
    text = out.stdout if target == "stdout" else (case["folder"] / target).read_text()
    features = json.loads(text)["features"]
    assert len(features) == N
    for i, (f, ref) in enumerate(zip(features, case["buffers"])):
        assert f["properties"]["id"] == i
        ours = _geojson_polygon_rings(f["geometry"])
        assert len(ours) == 1
        _assert_ring_equal(ours[0], _to_wgs84(_rings(ref)[0]), DEG_TOL, f"GeoJSON buffer {i}")


def test_buffer_geojson_text_sequence_every_vertex(meridian, case):
    """.geojsons (RFC 8142): one record per feature, 0x1E before and a line feed after each."""
    out = case["folder"] / "b.geojsons"
    _run(meridian, "buffer", str(case["folder"] / "points.csv"), *BUFFER_ARGS, "-o", str(out))
    data = out.read_bytes()
    records = data.split(b"\x1e")
    assert records[0] == b"" and len(records) == N + 1 and all(r.endswith(b"\n") for r in records[1:])
    for i, (record, ref) in enumerate(zip(records[1:], case["buffers"])):
        f = json.loads(record)
        assert f["type"] == "Feature" and f["properties"]["id"] == i
        _assert_ring_equal(_geojson_polygon_rings(f["geometry"])[0], _to_wgs84(_rings(ref)[0]), DEG_TOL,
                           f"GeoJSON sequence buffer {i}")


def test_buffer_csv_with_wkt_every_vertex(meridian, case):
    """CSV out: the input's columns and a wkt column with the buffer in EPSG:32038."""
    import csv as csvmodule
    out = case["folder"] / "b.csv"
    _run(meridian, "buffer", str(case["folder"] / "points.csv"), *BUFFER_ARGS, "-o", str(out))
    rows = list(csvmodule.reader(out.open(newline="")))
    assert rows[0] == ["id", "lon", "lat", "r_mi", "wkt"] and len(rows) == N + 1
    for i, (row, ref) in enumerate(zip(rows[1:], case["buffers"])):
        assert row[0] == str(i) and float(row[1]) == case["lon"][i] and float(row[3]) == case["r_mi"][i]
        _assert_ring_equal(_rings(shapely_wkt.loads(row[4]))[0], _rings(ref)[0], FT_TOL, f"CSV buffer {i}")


def test_streamed_buffers_failing_late_leave_no_file(meridian, tmp_path):
    """A feature outside the area of use in the third batch of 4,096: exit 1 naming it, and no output file although
    two batches had been written (the temporary file is removed)."""
    rows = ["lon,lat"] + [f"{-97 - i * 1e-5!r},33.0" for i in range(10_000)]
    rows[9_001] = "-80.0,33.0"
    (tmp_path / "p.csv").write_text("\n".join(rows) + "\n")
    for ext in ("wkt", "geojsons", "csv", "geojson"):
        target = tmp_path / f"out.{ext}"
        out = subprocess.run([meridian, "buffer", str(tmp_path / "p.csv"), "--srs", "EPSG:32038", "--distance", "1km",
                              "-o", str(target)], capture_output=True, text=True, timeout=120)
        assert out.returncode == 1, out.stderr
        assert "feature 9000 (line 9002)" in out.stderr and "outside the area of use" in out.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == ["p.csv"]


def test_buffer_union_geojson_every_vertex(meridian, case):
    out = _run(meridian, "buffer", str(case["folder"] / "points.csv"), *BUFFER_ARGS, "--union")
    features = json.loads(out.stdout)["features"]
    assert len(features) == 1 and features[0]["properties"]["count"] == N
    expected = [_to_wgs84(r) for r in _rings(case["union"])]
    _assert_vertex_sets_equal(_geojson_polygon_rings(features[0]["geometry"]), expected, DEG_TOL, "GeoJSON union")


# Projected spatial references whose operation to WGS84 is "inverse projection, radians to degrees": Meridian runs
# PROJ's projection step alone there (`BareInverse`), which must still give pyproj's longitudes/latitudes. The area
# is (west, south, east, north) in degrees, inside each one's area of use.
BARE_INVERSE_CASES = {
    "EPSG:5070": (-120.0, 26.0, -72.0, 48.0),    # CONUS Albers (NAD83), P5's spatial reference
    "ESRI:102003": (-120.0, 26.0, -72.0, 48.0),  # USA Contiguous Albers, another cone
    "EPSG:32614": (-101.5, 20.0, -96.5, 60.0),   # UTM 14N (WGS 84)
    "EPSG:3857": (-170.0, -80.0, 170.0, 80.0),   # Web Mercator
}


@pytest.mark.parametrize("srs", sorted(BARE_INVERSE_CASES))
def test_buffer_geojson_from_bare_inverse_projections_every_vertex(meridian, tmp_path, srs):
    """Buffers (one per point, and their union) of 60 points given in `srs`, written as GeoJSON: every vertex
    against shapely's buffers in `srs` taken to WGS84 by pyproj."""
    w, s_, e, n = BARE_INVERSE_CASES[srs]
    rng = np.random.default_rng(20261202)
    lon, lat = rng.uniform(w, e, 60), rng.uniform(s_, n, 60)
    to_srs = Transformer.from_crs("EPSG:4326", srs, always_xy=True)
    to_wgs = Transformer.from_crs(srs, "EPSG:4326", always_xy=True)
    x, y = to_srs.transform(lon, lat)
    # Pairs 2 km apart so that some of the 1.5 km buffers overlap.
    x[1::2] = x[0::2] + 2000.0
    y[1::2] = y[0::2]
    (tmp_path / "p.csv").write_text("id,x,y\n" + "".join(f"{i},{a!r},{b!r}\n" for i, (a, b) in
                                                          enumerate(zip(x.tolist(), y.tolist()))))
    refs = [shapely.Point(a, b).buffer(1500.0, quad_segs=16) for a, b in zip(x, y)]

    def wgs(ring):
        lo, la = to_wgs.transform(ring[:, 0], ring[:, 1])
        return np.column_stack([lo, la])

    _run(meridian, "buffer", str(tmp_path / "p.csv"), "--srs", srs, "--distance", "1.5km", "-o", str(tmp_path / "b.geojson"))
    features = json.loads((tmp_path / "b.geojson").read_text())["features"]
    assert len(features) == 60
    for i, (f, ref) in enumerate(zip(features, refs)):
        ours = _geojson_polygon_rings(f["geometry"])
        assert len(ours) == 1
        _assert_ring_equal(ours[0], wgs(_rings(ref)[0]), DEG_TOL, f"{srs} GeoJSON buffer {i}")
    _run(meridian, "buffer", str(tmp_path / "p.csv"), "--srs", srs, "--distance", "1.5km", "--union",
         "-o", str(tmp_path / "u.geojson"))
    union = json.loads((tmp_path / "u.geojson").read_text())["features"][0]["geometry"]
    expected = [wgs(r) for r in _rings(shapely.union_all(refs))]
    assert len(expected) < 60  # the pairs overlap
    _assert_vertex_sets_equal(_geojson_polygon_rings(union), expected, DEG_TOL, f"{srs} GeoJSON union")


@pytest.mark.parametrize("extension", ["kml", "kmz"])
def test_buffer_kml_every_vertex(meridian, case, extension):
    out = case["folder"] / f"b.{extension}"
    _run(meridian, "buffer", str(case["folder"] / "points.csv"), *BUFFER_ARGS, "-o", str(out))
    root = _kml_root(out)
    polygons = _kml_polygons(root)
    assert len(polygons) == N
    for i, (rings, ref) in enumerate(zip(polygons, case["buffers"])):
        assert len(rings) == 1
        _assert_ring_equal(rings[0], _to_wgs84(_rings(ref)[0]), DEG_TOL, f"{extension} buffer {i}")
    points = _kml_points(root)
    # The points went to EPSG:32038 and back: the reference makes the same round trip.
    _assert_ring_equal(points, np.column_stack(TO_WGS.transform(case["x"], case["y"])), DEG_TOL,
                       f"{extension} points")


def test_buffer_svg_every_vertex(meridian, case):
    """The SVG draws projected coordinates scaled to 800 px (north up) with a 3 % margin around everything drawn:
    the area of use (PROJ's box, 64 vertices per edge, projected), the buffers and the points."""
    out = case["folder"] / "b.svg"
    _run(meridian, "buffer", str(case["folder"] / "points.csv"), *BUFFER_ARGS, "-o", str(out))
    root = ET.fromstring(out.read_bytes())
    ns = "{http://www.w3.org/2000/svg}"
    paths = [p.get("d") for p in root.iter(ns + "path")]
    circles = np.array([[float(c.get("cx")), float(c.get("cy"))] for c in root.iter(ns + "circle")])
    assert len(paths) == N + 1 and len(circles) == N

    # The area of use exactly as the command builds it, projected by pyproj.
    from pyproj import CRS
    w, s, e, n = CRS("EPSG:32038").area_of_use.bounds
    k = 64
    t = np.arange(k) / k
    box = np.concatenate([np.column_stack([w + (e - w) * t, np.full(k, s)]),
                          np.column_stack([np.full(k, e), s + (n - s) * t]),
                          np.column_stack([e + (w - e) * t, np.full(k, n)]),
                          np.column_stack([np.full(k, w), n + (s - n) * t])])
    ax, ay = TO_TX.transform(box[:, 0], box[:, 1])
    area = np.column_stack([ax, ay])
    everything = np.concatenate([area, *[_rings(b)[0] for b in case["buffers"]],
                                 np.column_stack([case["x"], case["y"]])])
    x_min, y_min = everything.min(axis=0)
    x_max, y_max = everything.max(axis=0)
    margin = 0.03 * max(x_max - x_min, y_max - y_min)
    scale = 800 / (x_max - x_min + 2 * margin)
    x0, y1 = x_min - margin, y_max + margin

    def px(xy):
        return np.column_stack([(xy[:, 0] - x0) * scale, (y1 - xy[:, 1]) * scale])

    # Half a unit of the 2 printed decimals, plus the reference's own error (1e-4 ft is 5e-8 px).
    tol = 0.005 + 1e-6

    def parse(d):
        assert d.startswith("M") and d.endswith("Z")
        return np.array([[float(v) for v in pair.split(",")] for pair in d[1:-1].split("L")])

    area_px = parse(paths[0])
    assert len(area_px) == 4 * k + 1
    # The command orients the box counter-clockwise; pyproj's box runs the same way (south edge west to east).
    _assert_ring_equal(area_px[:-1], px(area), tol, "SVG area of use")
    for i, (d, ref) in enumerate(zip(paths[1:], case["buffers"])):
        _assert_ring_equal(parse(d), px(_rings(ref)[0]), tol, f"SVG buffer {i}")
    _assert_ring_equal(circles, px(np.column_stack([case["x"], case["y"]])), tol, "SVG points")


@pytest.mark.parametrize("extension", ["geojson", "wkt"])
def test_geodesic_buffer_every_vertex_at_the_distance(meridian, case, extension):
    out = case["folder"] / f"g.{extension}"
    _run(meridian, "buffer", "--geodesic", str(case["folder"] / "points.csv"), "--distance-field", "r_mi",
         "--unit", "mi", "-o", str(out))
    if extension == "wkt":
        rings = [_rings(shapely_wkt.loads(line)) for line in out.read_text().splitlines() if line.strip()]
    else:
        rings = [_geojson_polygon_rings(f["geometry"]) for f in json.loads(out.read_text())["features"]]
    assert len(rings) == N
    geod = Geodesic.WGS84
    for i, polygon in enumerate(rings):
        assert len(polygon) == 1
        ring = polygon[0]
        assert len(ring) > 16
        radius = case["r_mi"][i] * MILE
        worst = max(abs(geod.Inverse(case["lat"][i], case["lon"][i], lat, lon, Geodesic.DISTANCE)["s12"] - radius)
                    for lon, lat in ring)
        assert worst <= 1e-3, f"geodesic {extension} buffer {i}: a vertex is {worst:.3g} m off the circle"


# meridian project -----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    """Points, lines and polygons (with a hole) in WGS84 inside EPSG:32038's area of use, as GeoJSON and as WKT in
    both spatial references."""
    folder = tmp_path_factory.mktemp("project")
    rng = np.random.default_rng(7)
    geoms = []
    for i in range(12):
        cx, cy = rng.uniform(-101, -95), rng.uniform(32, 34)
        if i % 3 == 0:
            geoms.append(shapely.Point(cx, cy))
        elif i % 3 == 1:
            geoms.append(shapely.LineString(np.column_stack([cx + rng.uniform(-0.2, 0.2, 7),
                                                             cy + rng.uniform(-0.2, 0.2, 7)])))
        else:
            a = np.linspace(0, 2 * np.pi, 9)[:-1]
            shell = np.column_stack([cx + 0.3 * np.cos(a), cy + 0.2 * np.sin(a)])
            hole = np.column_stack([cx + 0.1 * np.cos(-a), cy + 0.05 * np.sin(-a)])
            geoms.append(shapely.Polygon(shell, [hole]))
    features = [{"type": "Feature", "properties": {"i": i}, "geometry": json.loads(shapely.to_geojson(g))}
                for i, g in enumerate(geoms)]
    (folder / "shapes.geojson").write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    (folder / "shapes.wkt").write_text("\n".join(shapely.to_wkt(g, rounding_precision=-1) for g in geoms) + "\n")
    projected = [shapely.transform(g, lambda c: np.column_stack(TO_TX.transform(c[:, 0].tolist(), c[:, 1].tolist()))) for g in geoms]
    (folder / "shapes_tx.wkt").write_text(
        "\n".join(shapely.to_wkt(g, rounding_precision=-1) for g in projected) + "\n")
    assert all(shapely.from_wkt(shapely.to_wkt(g, rounding_precision=-1)).equals_exact(g, 0) for g in projected)
    return folder, geoms, projected


def _back_to_wgs84(projected):
    """Geometries in EPSG:32038 brought back to WGS84 by pyproj (the reference for input given in feet)."""
    return [shapely.transform(g, lambda c: np.column_stack(TO_WGS.transform(c[:, 0].tolist(), c[:, 1].tolist()))) for g in projected]


def _coords(g):
    return np.asarray(shapely.get_coordinates(g))


def test_project_geojson_to_wkt_every_vertex(meridian, shapes):
    folder, geoms, projected = shapes
    out = _run(meridian, "project", str(folder / "shapes.geojson"), "--to", "EPSG:32038")
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    assert len(lines) == len(geoms)
    for i, (line, ref) in enumerate(zip(lines, projected)):
        ours = shapely_wkt.loads(line)
        assert ours.geom_type == ref.geom_type
        _assert_ring_equal(_coords(ours), _coords(ref), FT_TOL, f"project WKT {i}")


@pytest.mark.parametrize("source", ["shapes.wkt", "shapes_tx.wkt"])
def test_project_wkt_to_geojson_every_vertex(meridian, shapes, source):
    folder, geoms, projected = shapes
    srs = "EPSG:4326" if source == "shapes.wkt" else "EPSG:32038"
    if source == "shapes_tx.wkt":
        geoms = _back_to_wgs84(projected)
    out = case_out = folder / f"{source}.geojson"
    _run(meridian, "project", str(folder / source), "--from", srs, "--to", "EPSG:4326", "-o", str(case_out))
    features = json.loads(out.read_text())["features"]
    assert len(features) == len(geoms)
    for i, (f, ref) in enumerate(zip(features, geoms)):
        ours = shapely.geometry.shape(f["geometry"])
        assert ours.geom_type == ref.geom_type
        _assert_ring_equal(_coords(ours), _coords(ref), DEG_TOL, f"project GeoJSON {i} from {source}")


def test_project_csv_every_vertex(meridian, case):
    """lon,lat → x,y (%.4f ft), and back x,y → lon,lat (%.9f degrees); other columns kept."""
    folder = case["folder"]
    out = folder / "p_tx.csv"
    _run(meridian, "project", str(folder / "points.csv"), "--to", "EPSG:32038", "-o", str(out))
    rows = [line.split(",") for line in out.read_text().splitlines()]
    assert rows[0] == ["id", "x", "y", "r_mi"]
    xy = np.array([[float(r[1]), float(r[2])] for r in rows[1:]])
    assert [int(r[0]) for r in rows[1:]] == list(range(N))
    _assert_ring_equal(xy, np.column_stack([case["x"], case["y"]]), 0.5e-4 + FT_TOL, "project CSV to x,y")

    back = _run(meridian, "project", str(out), "--from", "EPSG:32038", "--to", "EPSG:4326").stdout
    rows = [line.split(",") for line in back.splitlines()]
    assert rows[0] == ["id", "lon", "lat", "r_mi"]
    lonlat = np.array([[float(r[1]), float(r[2])] for r in rows[1:]])
    ex, ey = TO_WGS.transform(xy[:, 0], xy[:, 1])
    _assert_ring_equal(lonlat, np.column_stack([ex, ey]), 0.5e-9 + DEG_TOL, "project CSV to lon,lat")


# meridian kml create --------------------------------------------------------------------------------------------

def _assert_kml_matches(root, geoms, what):
    placemarks = list(root.iter(KML_NS + "Placemark"))
    assert len(placemarks) == len(geoms)
    for i, (pm, ref) in enumerate(zip(placemarks, geoms)):
        texts = [c.text for c in pm.iter(KML_NS + "coordinates")]
        ours = np.concatenate([np.array([[float(v) for v in t.split(",")][:2] for t in text.split()])
                               for text in texts])
        _assert_ring_equal(ours, _coords(ref), DEG_TOL, f"{what} placemark {i}")


@pytest.mark.parametrize("extension", ["kml", "kmz"])
def test_kml_create_from_geojson_every_vertex(meridian, shapes, extension):
    folder, geoms, _ = shapes
    out = folder / f"created.{extension}"
    _run(meridian, "kml", "create", str(folder / "shapes.geojson"), "-o", str(out), "--overwrite")
    _assert_kml_matches(_kml_root(out), geoms, f"kml create {extension}")


def test_kml_create_from_projected_wkt_every_vertex(meridian, shapes):
    folder, _, projected = shapes
    geoms = _back_to_wgs84(projected)
    out = folder / "created_tx.kml"
    _run(meridian, "kml", "create", str(folder / "shapes_tx.wkt"), "--in-srs", "EPSG:32038", "-o", str(out),
         "--overwrite")
    _assert_kml_matches(_kml_root(out), geoms, "kml create from WKT in EPSG:32038")


def test_kml_create_from_csv_every_vertex(meridian, case):
    out = case["folder"] / "created_points.kml"
    _run(meridian, "kml", "create", str(case["folder"] / "points.csv"), "-o", str(out), "--overwrite")
    _assert_kml_matches(_kml_root(out), [shapely.Point(x, y) for x, y in zip(case["lon"], case["lat"])],
                        "kml create from CSV")


# The viewer's export --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("union", [False, True])
@pytest.mark.parametrize("fmt", ["geojson", "kmz"])
def test_viewer_export_every_vertex(viewer, case, fmt, union):
    body = {"wkid": 32038, "points": [{"x": x, "y": y} for x, y in zip(case["x"].tolist(), case["y"].tolist())],
            "radiiMiles": case["r_mi"].tolist(), "union": union, "mode": "planar", "format": fmt}
    status, _, data = viewer.request("POST", "/api/buffer/export", json.dumps(body).encode())
    assert status == 200, data[:300]
    if fmt == "geojson":
        polygons = [_geojson_polygon_rings(f["geometry"]) for f in json.loads(data)["features"]]
    else:
        polygons = _kml_polygons(_kml_root(data))
    if union:
        assert len(polygons) == 1
        expected = [_to_wgs84(r) for r in _rings(case["union"])]
        _assert_vertex_sets_equal(polygons[0], expected, DEG_TOL, f"viewer {fmt} union")
    else:
        assert len(polygons) == N
        for i, (rings, ref) in enumerate(zip(polygons, case["buffers"])):
            assert len(rings) == 1
            _assert_ring_equal(rings[0], _to_wgs84(_rings(ref)[0]), DEG_TOL, f"viewer {fmt} buffer {i}")


def test_viewer_export_geodesic_every_vertex_at_the_distance(viewer, case):
    body = {"wkid": 32038, "points": [{"x": x, "y": y} for x, y in zip(case["x"].tolist(), case["y"].tolist())],
            "radiiMiles": case["r_mi"].tolist(), "union": False, "mode": "geodesic", "format": "geojson"}
    status, _, data = viewer.request("POST", "/api/buffer/export", json.dumps(body).encode())
    assert status == 200, data[:300]
    features = json.loads(data)["features"]
    assert len(features) == N
    # Geodesic circles on the datum of EPSG:32038 (NAD27, Clarke 1866), exported in WGS84: both brought back to
    # NAD27 longitude/latitude by pyproj (the same Helmert shift both PROJ builds use).
    to_nad27 = Transformer.from_crs("EPSG:4326", "EPSG:4267", always_xy=True)
    centre = Transformer.from_crs("EPSG:32038", "EPSG:4267", always_xy=True).transform(case["x"], case["y"])
    clarke = Geodesic(6378206.4, 1 / 294.978698213898)
    for i, f in enumerate(features):
        ring = _geojson_polygon_rings(f["geometry"])[0]
        lon, lat = to_nad27.transform(ring[:, 0], ring[:, 1])
        radius = case["r_mi"][i] * MILE
        worst = max(abs(clarke.Inverse(centre[1][i], centre[0][i], b, a, Geodesic.DISTANCE)["s12"] - radius)
                    for a, b in zip(lon, lat))
        assert worst <= 1e-3, f"viewer geodesic buffer {i}: a vertex is {worst:.3g} m off the circle"


# A union larger than one batch (meridian buffer unions more than 65,536 points a batch of clusters at a time) ------

def _union_by_components(polygons):
    """shapely's union_all of each group of intersecting polygons (what shapely 2.1's disjoint_subset_union_all
    does; this venv has 2.0): one union_all of 70,000 circles takes GEOS 30 s, the groups 2 s."""
    a, b = shapely.STRtree(polygons).query(polygons, predicate="intersects")
    parent = list(range(len(polygons)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in zip(a.tolist(), b.tolist()):
        ri, rj = find(i), find(j)
        if ri != rj:
            parent[ri] = rj
    groups = {}
    for i in range(len(polygons)):
        groups.setdefault(find(i), []).append(i)
    parts = []
    for members in groups.values():
        u = polygons[members[0]] if len(members) == 1 else shapely.union_all(polygons[members])
        parts.extend(getattr(u, "geoms", [u]))
    return shapely.MultiPolygon(parts)


def test_union_streamed_in_batches_matches_shapely(meridian, tmp_path):
    """70,000 points (two batches): the streamed MULTIPOLYGON has shapely's parts, holes and vertices, and its area
    within 1e-9 (different GEOS builds note at the 1e-9 ft level); the GeoJSON is the same polygon in WGS84 (every
    part's vertex count equal, area after pyproj's projection back within 1e-9 relative)."""
    rng = np.random.default_rng(70_000)
    r = 200.0
    n = 70_000
    side = (n * np.pi * (2 * r) ** 2) ** 0.5
    xy = rng.uniform(-side / 2, side / 2, (n, 2)) + (2_300_000.0, 450_000.0)
    (tmp_path / "p.csv").write_text("x,y\n" + "".join(f"{x!r},{y!r}\n" for x, y in xy.tolist()))
    for ext in ("wkt", "geojson"):
        _run(meridian, "buffer", str(tmp_path / "p.csv"), "--srs", "EPSG:32038", "--distance", str(r), "--union",
             "--allow-outside-area", "-o", str(tmp_path / f"u.{ext}"))
    peer = _union_by_components(shapely.buffer(shapely.points(xy), r, quad_segs=16))
    ours = shapely.from_wkt((tmp_path / "u.wkt").read_text())
    assert ours.is_valid
    assert len(ours.geoms) == len(peer.geoms) > 10_000
    assert sum(len(p.interiors) for p in ours.geoms) == sum(len(p.interiors) for p in peer.geoms)
    assert shapely.get_num_coordinates(ours) == shapely.get_num_coordinates(peer)
    assert abs(ours.area - peer.area) <= 1e-9 * peer.area
    doc = json.loads((tmp_path / "u.geojson").read_text())
    geometry = doc["features"][0]["geometry"]
    assert geometry["type"] == "MultiPolygon" and doc["features"][0]["properties"]["count"] == n
    lonlat = shapely.geometry.shape(geometry)
    assert shapely.get_num_coordinates(lonlat) == shapely.get_num_coordinates(ours)
    back = shapely.transform(lonlat, lambda c: np.column_stack(TO_TX.transform(c[:, 0], c[:, 1])))
    assert abs(back.area - ours.area) <= 1e-9 * ours.area
