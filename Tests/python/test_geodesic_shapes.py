"""`meridian op ellipse|sector` (GeometryEngine.geodesicEllipse/geodesicSector) against GeographicLib's Python
package, an independent implementation of Karney's geodesics.

The curve (documented on GeometryEngine.geodesicEllipse): the points at geodesic distance r(phi) from the centre
along azimuth A + phi, A = 90 + axis direction, r(phi) the radius of the plane ellipse with the given semi-axes
(the longer along A). Every output vertex is checked by solving the inverse problem centre -> vertex with
GeographicLib: its azimuth gives phi, and its distance must equal r(phi) within 1 mm (geod_direct and GeographicLib
agree to ~15 nm; the WKT round trip of degrees with 17 digits adds ~1e-9 m, so 1 mm is a generous bound that still
catches any error in the curve, e.g. a swapped axis or a sweep in the wrong sense, which move vertices by metres to
kilometres). Edges: the geodesic distance between consecutive vertices is at most --max-segment-length (plus 1 um
for the printed digits). Counts: at most --max-point-count distinct vertices (10 at the least).
"""
import math
import subprocess

import pyproj
import pytest
import shapely
from geographiclib.geodesic import Geodesic
from shapely import wkt as shapely_wkt

WGS84 = Geodesic.WGS84
VERTEX_TOLERANCE = 1e-3  # m
LENGTH_SLACK = 1e-6  # m


def run(meridian, args, stdin, code=0):
    out = subprocess.run([meridian, "op", *args], input=stdin, capture_output=True, text=True, timeout=120)
    assert out.returncode == code, out.stderr
    return out


def shapes(meridian, op, centre, *options, srs="EPSG:4326"):
    out = run(meridian, [op, "--in-srs", srs, *options], f"POINT ({centre[0]!r} {centre[1]!r})\n").stdout
    lines = out.splitlines()
    assert len(lines) == 1, out
    return shapely_wkt.loads(lines[0])


def radius(a, b, phi_deg):
    """The plane ellipse's radius in the direction phi (degrees from the major axis), a >= b."""
    p = math.radians(phi_deg)
    return a * b / math.hypot(b * math.cos(p), a * math.sin(p))


def parameter(a, b, phi_deg):
    """The ellipse parameter t (x = a cos t, y = b sin t) of the direction phi, continuous with phi."""
    p = math.radians(phi_deg)
    t = math.atan2(a * math.sin(p), b * math.cos(p))
    return t + 2 * math.pi * round((p - t) / (2 * math.pi))


def check_on_curve(centre, vertex, a, b, axis_azimuth):
    """Distance error (m) of one lon/lat vertex from the curve, and its direction phi in [0, 360)."""
    inv = WGS84.Inverse(centre[1], centre[0], vertex[1], vertex[0])
    phi = (inv["azi1"] - axis_azimuth) % 360
    return abs(inv["s12"] - radius(a, b, phi)), phi


def parts(g):
    return list(g.geoms) if hasattr(g, "geoms") else [g]


def paths(g):
    out = []
    for p in parts(g):
        if p.geom_type == "Polygon":
            out.append(list(p.exterior.coords))
            out += [list(r.coords) for r in p.interiors]
        elif p.geom_type == "LineString":
            out.append(list(p.coords))
        else:
            out.append([p.coords[0]])
    return out


def longest_edge(path):
    return max((WGS84.Inverse(p[1], p[0], q[1], q[0])["s12"] for p, q in zip(path, path[1:])), default=0.0)


CASES = [  # centre, semi-axis 1, semi-axis 2, axis direction, max segment length, max point count
    ((10.0, 50.0), 100e3, 50e3, 30.0, 20e3, 10000),
    ((-73.9, 40.7), 20e3, 80e3, -75.0, 1e3, 10000),  # semi-axis 2 longer: it lies along the axis direction
    ((140.0, -35.0), 2_000e3, 1_500e3, 123.0, 100e3, 10000),
    ((0.0, 0.0), 300e3, 300e3, 0.0, 0.0, 37),  # a circle; no length: exactly 37 vertices
    ((25.0, 70.0), 500e3, 100e3, 200.0, 1e3, 50),  # the count wins over the length
]


@pytest.mark.parametrize("centre,s1,s2,direction,seg,count", CASES)
def test_ellipse_vertices_lie_on_the_curve(meridian, centre, s1, s2, direction, seg, count):
    a, b, axis = max(s1, s2), min(s1, s2), 90 + direction
    options = ["--semi-axis-1", repr(s1), "--semi-axis-2", repr(s2), "--axis-direction", repr(direction),
               "--max-point-count", str(count)]
    if seg:
        options += ["--max-segment-length", repr(seg)]
    points = shapes(meridian, "ellipse", centre, *options, "--geometry-type", "multipoint")
    vertices = [p.coords[0] for p in points.geoms]
    worst = max(check_on_curve(centre, v, a, b, axis)[0] for v in vertices)
    assert worst <= VERTEX_TOLERANCE, worst
    assert 10 <= len(vertices) <= max(10, count)
    if not seg:
        assert len(vertices) == count
    else:  # the documented count: enough for the plane arc between vertices to be within the length, capped
        assert len(vertices) == min(max(10, count), max(10, math.ceil(2 * math.pi * a / seg)))
    # The first vertex is on the major axis; the directions run clockwise (increasing azimuth) once around.
    phis = [check_on_curve(centre, v, a, b, axis)[1] for v in vertices]
    assert min(phis[0], 360 - phis[0]) < 1e-7, phis[0]
    steps = [(q - p) % 360 for p, q in zip(phis, phis[1:] + phis[:1])]
    assert all(0 < s < 180 for s in steps) and abs(sum(steps) - 360) < 1e-6
    ring = shapes(meridian, "ellipse", centre, *options)
    assert ring.geom_type == "Polygon" and ring.is_valid
    exterior = list(ring.exterior.coords)
    assert len(exterior) - 1 == len(vertices)
    line = shapes(meridian, "ellipse", centre, *options, "--geometry-type", "polyline")
    assert line.coords[0] == line.coords[-1] and len(line.coords) == len(vertices) + 1
    if seg and len(vertices) < max(10, count):
        assert longest_edge(exterior) <= seg + LENGTH_SLACK
    elif seg:  # the count cut the length short: the edges are longer, but each vertex is still on the curve
        assert longest_edge(exterior) > seg
    print(f"ellipse {centre}: {len(vertices)} vertices, worst distance error {worst:.2e} m")


SECTORS = [  # centre, semi-axes, axis direction, start direction, sector angle, max segment length
    ((10.0, 50.0), 100e3, 50e3, 30.0, 15.0, 60.0, 5e3),
    ((-120.0, 60.0), 650e3, 150e3, 240.0, 330.0, 300.0, 50e3),
    ((0.0, 0.0), 100e3, 100e3, 0.0, -45.0, -90.0, 10e3),  # a negative sweep counts by its absolute value
]


@pytest.mark.parametrize("centre,s1,s2,direction,start,angle,seg", SECTORS)
def test_sector_arc_radii_and_bounds(meridian, centre, s1, s2, direction, start, angle, seg):
    a, b, axis = max(s1, s2), min(s1, s2), 90 + direction
    options = ["--semi-axis-1", repr(s1), "--semi-axis-2", repr(s2), "--axis-direction", repr(direction),
               "--start-direction", repr(start), "--sector-angle", repr(angle), "--max-segment-length", repr(seg)]
    sweep = abs(angle)
    arc = shapes(meridian, "sector", centre, *options, "--geometry-type", "polyline")
    vertices = list(arc.coords)
    offsets = []
    for v in vertices:
        e, phi = check_on_curve(centre, v, a, b, axis)
        assert e <= VERTEX_TOLERANCE, (v, e)
        offsets.append((phi - start) % 360)
    # The arc starts on the start radius and sweeps clockwise to start + |angle|, never outside.
    assert min(offsets[0], 360 - offsets[0]) < 1e-7, offsets[0]
    assert abs(offsets[-1] - sweep) < 1e-7, (offsets[-1], sweep)
    assert all(p < q for p, q in zip(offsets[1:], offsets[2:-1])), "arc directions must grow clockwise"
    assert longest_edge(vertices) <= seg + LENGTH_SLACK
    t0, t1 = parameter(a, b, start), parameter(a, b, start + sweep)
    steps = max(math.ceil(10 * sweep / 360), 2, math.ceil(a * (t1 - t0) / seg))
    assert len(vertices) == steps + 1, (len(vertices), steps)
    polygon = shapes(meridian, "sector", centre, *options)
    assert polygon.geom_type == "Polygon" and polygon.is_valid
    ring = list(polygon.exterior.coords)[:-1]
    assert longest_edge(ring + ring[:1]) <= seg + LENGTH_SLACK
    # Every polygon vertex is the centre, on a radius (at the start or end azimuth) or on the arc.
    on_arc = on_radius = 0
    for v in ring:
        inv = WGS84.Inverse(centre[1], centre[0], v[1], v[0])
        if inv["s12"] < 1e-6:
            continue
        e, phi = check_on_curve(centre, v, a, b, axis)
        off = (phi - start) % 360
        if e <= VERTEX_TOLERANCE and -1e-7 <= off <= sweep + 1e-7 or e <= VERTEX_TOLERANCE and off > 360 - 1e-7:
            on_arc += 1
        else:
            assert min(off, 360 - off) < 1e-7 or abs(off - sweep) < 1e-7, (v, off)
            on_radius += 1
    assert on_arc == len(vertices) and on_radius > 0
    points = shapes(meridian, "sector", centre, *options, "--geometry-type", "multipoint")
    assert [p.coords[0] for p in points.geoms] == vertices


def test_counts_are_bounded_and_small_counts_mean_ten(meridian):
    base = ["--semi-axis-1", "1000000", "--semi-axis-2", "400000", "--max-segment-length", "1000"]
    for count, expected in [(3, 10), (10, 10), (200, 200)]:
        g = shapes(meridian, "ellipse", (5.0, 45.0), *base, "--max-point-count", str(count), "--geometry-type", "multipoint")
        assert len(g.geoms) == expected
        s = shapes(meridian, "sector", (5.0, 45.0), *base, "--sector-angle", "100", "--max-point-count", str(count))
        assert len(s.exterior.coords) - 1 == expected


def test_degenerate_axes(meridian):
    centre = (30.0, -20.0)
    seg = shapes(meridian, "ellipse", centre, "--semi-axis-1", "50000", "--semi-axis-2", "0", "--axis-direction", "0",
                 "--max-segment-length", "10000", "--geometry-type", "polyline")
    ends = [seg.coords[0], seg.coords[-1]]
    for end, azimuth in zip(ends, [270.0, 90.0]):  # from the west end to the east end, through the centre
        inv = WGS84.Inverse(centre[1], centre[0], end[1], end[0])
        assert abs(inv["s12"] - 50000) <= VERTEX_TOLERANCE and abs((inv["azi1"] - azimuth + 180) % 360 - 180) < 1e-7
    assert longest_edge(list(seg.coords)) <= 10000 + LENGTH_SLACK
    assert shapes(meridian, "ellipse", centre, "--semi-axis-1", "50000", "--semi-axis-2", "0").is_empty
    point = shapes(meridian, "ellipse", centre, "--semi-axis-1", "0", "--semi-axis-2", "0", "--geometry-type", "multipoint")
    assert [p.coords[0] for p in point.geoms] == [centre]
    assert shapes(meridian, "sector", centre, "--semi-axis-1", "50000", "--semi-axis-2", "0", "--sector-angle", "90").is_empty
    for bad in (["--sector-angle", "360"], ["--sector-angle", "0"], ["--sector-angle", "-720"]):
        err = run(meridian, ["sector", "--semi-axis-1", "1", "--semi-axis-2", "1", *bad], "POINT (0 0)\n", code=1).stderr
        assert "sector angle" in err and err.count("\n") == 1, err
    err = run(meridian, ["ellipse", "--semi-axis-1", "-1", "--semi-axis-2", "1"], "POINT (0 0)\n", code=1).stderr
    assert "semiAxis1Length" in err
    err = run(meridian, ["ellipse", "--semi-axis-1", "2e7", "--semi-axis-2", "1"], "POINT (0 0)\n", code=1).stderr
    assert "half the meridian" in err
    err = run(meridian, ["ellipse", "--semi-axis-1", "1", "--semi-axis-2", "1"], "LINESTRING (0 0, 1 1)\n", code=1).stderr
    assert "point feature" in err


def test_antimeridian_split_keeps_every_curve_vertex(meridian):
    centre = (179.5, 10.0)
    options = ["--semi-axis-1", "300000", "--semi-axis-2", "120000", "--axis-direction", "10", "--max-segment-length", "5000"]
    g = shapes(meridian, "ellipse", centre, *options)
    assert g.geom_type == "MultiPolygon" and len(g.geoms) == 2 and g.is_valid
    assert all(-180 <= x <= 180 for p in paths(g) for x, _ in p)
    cut = 0
    for path in paths(g):
        for v in path:
            if abs(v[0]) == 180:
                cut += 1  # a vertex of the cut along the antimeridian: on a straight lon/lat edge, not a curve vertex
                continue
            assert check_on_curve(centre, v, 300e3, 120e3, 100.0)[0] <= VERTEX_TOLERANCE
    assert cut >= 4
    # The same ellipse away from the antimeridian has the same geodesic area (the split adds vertices on the
    # straight lon/lat edges only, which over 5 km edges changes the area by far less than 1e-6).
    far = shapes(meridian, "ellipse", (0.5, 10.0), *options)

    def area(geom):
        total = 0.0
        for p in parts(geom):
            poly = WGS84.Polygon()
            for x, y in list(p.exterior.coords)[:-1]:
                poly.AddPoint(y, x)
            total += abs(poly.Compute()[2])
        return total
    assert abs(area(g) - area(far)) <= 1e-6 * area(far)


@pytest.mark.parametrize("op,extra", [("ellipse", []), ("sector", ["--sector-angle", "120", "--start-direction", "30"])])
def test_poles(meridian, op, extra):
    """A centre at the North Pole: every vertex off the pole edge and the antimeridian cut lies on the curve (or,
    for the sector, on one of its two radii); the ring closes along +90."""
    centre = (20.0, 90.0)
    options = ["--semi-axis-1", "400000", "--semi-axis-2", "250000", "--axis-direction", "45", "--max-segment-length", "20000", *extra]
    g = shapes(meridian, op, centre, *options)
    assert g.geom_type == "Polygon" and g.is_valid
    on_curve = on_radius = 0
    for x, y in g.exterior.coords:
        if y == 90 or abs(x) == 180:
            continue  # the edge along the pole, the cut along the antimeridian (straight lon/lat edges)
        e, phi = check_on_curve(centre, (x, y), 400e3, 250e3, 135.0)
        if e <= VERTEX_TOLERANCE:
            on_curve += 1
        else:
            assert op == "sector" and min(abs(phi - 30) % 360, abs(phi - 150) % 360) < 1e-7, (x, y, e, phi)
            on_radius += 1
    assert any(y == 90 for _, y in g.exterior.coords) and on_curve >= 10
    assert (on_radius > 0) == (op == "sector")
    # An ellipse around (not at) the South Pole contains it with an edge along -90.
    around = shapes(meridian, "ellipse", (0.0, -88.0), "--semi-axis-1", "500000", "--semi-axis-2", "400000",
                    "--max-segment-length", "20000")
    assert around.is_valid and around.contains(shapely.Point(123.0, -89.99)) and not around.contains(shapely.Point(0, -84))


def test_around_both_poles(meridian):
    """A 15,000 km circle around (0, 0) contains both poles: the world without the cap around the antipode."""
    g = shapes(meridian, "ellipse", (0.0, 0.0), "--semi-axis-1", "15000000", "--semi-axis-2", "15000000",
               "--max-segment-length", "200000")
    assert g.is_valid and g.contains(shapely.Point(10, 89.9)) and g.contains(shapely.Point(-10, -89.9))
    assert not g.contains(shapely.Point(179.9, 0)) and g.contains(shapely.Point(0, 0))
    checked = 0
    for p in parts(g):
        for ring in [p.exterior, *p.interiors]:
            for x, y in ring.coords:
                if abs(x) == 180 or abs(y) == 90:
                    continue
                assert abs(WGS84.Inverse(0, 0, y, x)["s12"] - 15e6) <= VERTEX_TOLERANCE
                checked += 1
    assert checked >= 100


def test_usage_errors_are_one_line(meridian):
    for args, words in [
        (["sector", "--semi-axis-1", "1", "--semi-axis-2", "1"], "--sector-angle"),
        (["ellipse", "--semi-axis-1", "1"], "--semi-axis-2"),
        (["ellipse", "--semi-axis-1", "1", "--semi-axis-2", "1", "--geometry-type", "point"], "--geometry-type"),
        (["ellipse", "--semi-axis-1", "1", "--semi-axis-2", "1", "--max-point-count", "2.5"], "--max-point-count"),
        (["ellipse", "--semi-axis-1", "1", "--semi-axis-2", "1", "--sector-angle", "9"], "--sector-angle"),
        (["clip", "--envelope", "0,0,1,1", "--semi-axis-1", "1"], "--semi-axis-1"),
    ]:
        err = run(meridian, args, "POINT (0 0)\n", code=2).stderr
        assert words in err and err.count("\n") == 1, (args, err)


def test_projected_centre(meridian):
    """A centre in UTM zone 33N: vertices are written in UTM and lie on the curve once brought back to lon/lat."""
    to_ll = pyproj.Transformer.from_crs("EPSG:32633", "EPSG:4326", always_xy=True)
    centre_utm = (500000.0, 5_500_000.0)
    centre = to_ll.transform(*centre_utm)
    g = shapes(meridian, "ellipse", centre_utm, "--semi-axis-1", "80000", "--semi-axis-2", "30000", "--axis-direction",
               "-30", "--max-segment-length", "2000", srs="EPSG:32633")
    assert g.geom_type == "Polygon"
    worst = 0.0
    for x, y in g.exterior.coords:
        worst = max(worst, check_on_curve(centre, to_ll.transform(x, y), 80e3, 30e3, 60.0)[0])
    assert worst <= VERTEX_TOLERANCE, worst
