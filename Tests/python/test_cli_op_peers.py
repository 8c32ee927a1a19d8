"""`meridian op` against shapely on seeded random inputs: every topology operation, overlay and predicate of the
CLI, each compared with shapely's function of the same meaning (no silent difference from GEOS).

shapely 2.0 bundles GEOS 3.11.4, Debian's libgeos is 3.11.1: the same algorithms, so results agree to rounding.
Coordinates lie in [0, 1000] and are written with 17 significant digits both ways, so the tolerance for geometry
comparisons is 1e-9 of that extent: a Hausdorff distance of 1e-6 between the two results (and the same area, to 1e-9
relative, for polygons). Predicates must agree exactly. Every comparison counts, and the test asserts how many ran,
so an input generator that stopped producing cases would fail rather than pass with nothing checked.
"""
import json
import subprocess

import numpy as np
import pytest
import shapely
from shapely import wkt as shapely_wkt
from shapely.ops import split

TOLERANCE = 1e-6
SEED = 20261201


def _ring(rng, centre, n, radii):
    angles = np.sort(rng.uniform(0, 2 * np.pi, n))
    return [(centre[0] + r * np.cos(a), centre[1] + r * np.sin(a)) for a, r in zip(angles, radii)]


def _coords(ring):
    return ", ".join(f"{float(x)!r} {float(y)!r}" for x, y in ring)


def _inputs():
    """Valid star-shaped polygons (some with a hole), random-walk lines, multipoints and self-crossing rings."""
    rng = np.random.default_rng(SEED)
    polygons, lines, points, crossing = [], [], [], []
    for i in range(40):
        c = rng.uniform(100, 900, 2)
        n = int(rng.integers(5, 20))
        shell = _ring(rng, c, n, rng.uniform(20, 120, n))
        rings = [shell + shell[:1]]
        if i % 3 == 0:  # the shell scaled by 0.3 about its star centre lies inside it: a hole
            hole = [(c[0] + 0.3 * (x - c[0]), c[1] + 0.3 * (y - c[1])) for x, y in reversed(shell)]
            rings.append(hole + hole[:1])
        text = ", ".join(f"({_coords(r)})" for r in rings)
        polygons.append(f"POLYGON ({text})")
    for _ in range(40):
        n = int(rng.integers(3, 12))
        steps = rng.normal(0, 60, (n, 2)).cumsum(axis=0) + rng.uniform(200, 800, 2)
        lines.append(f"LINESTRING ({_coords(steps)})")
    for _ in range(20):
        n = int(rng.integers(3, 10))
        pts = rng.uniform(0, 1000, (n, 2))
        points.append("MULTIPOINT (" + ", ".join(f"({float(x)!r} {float(y)!r})" for x, y in pts) + ")")
    for _ in range(20):
        n = int(rng.integers(4, 9))
        ring = [tuple(p) for p in rng.uniform(0, 1000, (n, 2))]  # random order: usually crosses itself
        crossing.append(f"POLYGON (({_coords(ring + ring[:1])}))")
    return polygons, lines, points, crossing


POLYGONS, LINES, POINTS, CROSSING = _inputs()
OTHER = "POLYGON ((300 300, 700 250, 750 700, 350 650, 300 300))"


def _op(meridian, tmp_path, name, wkts, *options):
    path = tmp_path / f"{name}.wkt"
    path.write_text("\n".join(wkts) + "\n")
    r = subprocess.run([meridian, "op", name, str(path), "--in-srs", "EPSG:3857", *options],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == len(wkts), (name, len(lines), len(wkts))
    return lines


def _highest_dimension(g):
    """The parts of g of its highest dimension (Meridian's overlays keep only those; shapely keeps all)."""
    if g.is_empty or g.geom_type != "GeometryCollection":
        return g
    parts = list(g.geoms)
    top = max(shapely.get_dimensions(p) for p in parts)
    return shapely.union_all([p for p in parts if shapely.get_dimensions(p) == top])


def _same(ours_text, theirs, what):
    ours = shapely_wkt.loads(ours_text)
    theirs = _highest_dimension(theirs)
    if ours.is_empty or theirs.is_empty:
        assert ours.is_empty and theirs.is_empty, (what, ours_text, theirs.wkt)
        return
    assert shapely.get_dimensions(ours) == shapely.get_dimensions(theirs), (what, ours_text, theirs.wkt)
    assert shapely.hausdorff_distance(ours, theirs) <= TOLERANCE, (what, ours_text, theirs.wkt)
    if shapely.get_dimensions(ours) == 2:
        assert abs(ours.area - theirs.area) <= 1e-9 * theirs.area, (what, ours.area, theirs.area)


def _compare(meridian, tmp_path, name, wkts, peer, *options):
    ours = _op(meridian, tmp_path, name, wkts, *options)
    for text, o in zip(wkts, ours):
        _same(o, peer(shapely_wkt.loads(text)), f"{name} of {text[:60]}")
    return len(wkts)


def test_topology_operations_match_shapely(meridian, tmp_path):
    checked = 0
    everything = POLYGONS + LINES + POINTS
    checked += _compare(meridian, tmp_path, "convex-hull", everything, shapely.convex_hull)
    checked += _compare(meridian, tmp_path, "boundary", POLYGONS + LINES, shapely.boundary)
    checked += _compare(meridian, tmp_path, "densify", POLYGONS + LINES, lambda g: shapely.segmentize(g, 7.5),
                        "--max-segment-length", "7.5")
    for d in ["0.5", "15"]:
        checked += _compare(meridian, tmp_path, "generalize", POLYGONS + LINES,
                            lambda g: shapely.simplify(g, float(d), preserve_topology=False), "--max-deviation", d)
    checked += _compare(meridian, tmp_path, "clip", everything, lambda g: shapely.clip_by_rect(g, 250, 300, 650, 700),
                        "--envelope", "250,300,650,700")
    for d in [12.0, -12.0]:
        checked += _compare(meridian, tmp_path, "offset", POLYGONS,
                            lambda g: shapely.buffer(g, d, quad_segs=18, join_style="mitre", mitre_limit=10),
                            "--distance", repr(d), "--type", "mitered")
    assert checked == 100 + 80 + 80 + 160 + 100 + 80


def test_line_offsets_match_shapely_but_for_the_known_ends(meridian, tmp_path):
    """ArcGIS's sides: a positive offset is to the right of a line, i.e. shapely's negative offset curve.

    GEOS 3.11.1 (Debian's, Meridian's) ends some offset curves differently from GEOS 3.11.4 (shapely's), whose end
    handling was corrected: documented on `GeometryEngine.offset`. So: every curve's vertices other than its two
    ends lie on shapely's curve (1e-6), and at most 20 of the 80 curves differ at all (16 when this was written,
    seed 20261201); a change that broke interiors, or many more ends, fails.
    """
    differing = 0
    for d in [12.0, -12.0]:
        ours = _op(meridian, tmp_path, "offset", LINES, "--distance", repr(d), "--type", "mitered")
        for text, o in zip(LINES, ours):
            theirs = shapely.offset_curve(shapely_wkt.loads(text), -d, quad_segs=18, join_style="mitre", mitre_limit=10)
            mine = shapely_wkt.loads(o)
            if shapely.hausdorff_distance(mine, theirs) <= TOLERANCE:
                continue
            differing += 1
            for part in getattr(mine, "geoms", [mine]):
                for c in list(part.coords)[1:-1]:
                    assert shapely.distance(shapely.Point(c), theirs) <= TOLERANCE, (d, text[:60], c)
    assert differing <= 20, differing


def test_label_points_lie_inside_and_match_point_on_surface(meridian, tmp_path):
    ours = _op(meridian, tmp_path, "label-point", POLYGONS)
    for text, o in zip(POLYGONS, ours):
        polygon, point = shapely_wkt.loads(text), shapely_wkt.loads(o)
        assert polygon.contains(point), (text[:60], o)
        assert shapely.distance(point, shapely.point_on_surface(polygon)) <= TOLERANCE
    assert len(ours) == 40


def test_simplify_repairs_like_make_valid(meridian, tmp_path):
    invalid = [t for t in CROSSING if not shapely_wkt.loads(t).is_valid]
    assert len(invalid) >= 10, "the generator should give self-crossing rings"
    _compare(meridian, tmp_path, "simplify", invalid, shapely.make_valid)
    for o in _op(meridian, tmp_path, "simplify", invalid):
        assert shapely_wkt.loads(o).is_valid
    # Valid polygons come back as they are.
    _compare(meridian, tmp_path, "simplify", POLYGONS, lambda g: g)


@pytest.mark.parametrize("name,peer,inputs", [
    ("intersection", shapely.intersection, POLYGONS + LINES + POINTS),
    ("difference", shapely.difference, POLYGONS + LINES + POINTS),
    ("union", shapely.union, POLYGONS),
    ("symmetric-difference", shapely.symmetric_difference, POLYGONS),
])
def test_overlays_match_shapely(meridian, tmp_path, name, peer, inputs):
    other = shapely_wkt.loads(OTHER)
    assert _compare(meridian, tmp_path, name, inputs, lambda g: peer(g, other), "--with", OTHER) == len(inputs)


PREDICATES = {
    "contains": shapely.contains, "within": shapely.within, "intersects": shapely.intersects,
    "disjoint": shapely.disjoint, "touches": shapely.touches, "crosses": shapely.crosses,
    "overlaps": shapely.overlaps, "equals": shapely.equals,
}


@pytest.mark.parametrize("name", sorted(PREDICATES))
def test_predicates_match_shapely(meridian, tmp_path, name):
    everything = POLYGONS + LINES + POINTS
    other = shapely_wkt.loads(OTHER)
    ours = _op(meridian, tmp_path, name, everything, "--with", OTHER)
    theirs = [PREDICATES[name](shapely_wkt.loads(t), other) for t in everything]
    assert ours == ["true" if t else "false" for t in theirs]
    if name in ("intersects", "disjoint"):
        assert 0 < sum(theirs) < len(theirs), "the inputs should give both answers"


def test_is_simple_matches_shapely(meridian, tmp_path):
    # ArcGIS's isSimple: lines and points by GEOS isSimple (no self-intersection, no repeated point), polygons by
    # topological validity (GEOS isValid), which is what shapely calls is_valid.
    # Simple rings that are still invalid: a hole outside its shell, a hole touching the shell along an edge.
    invalid_but_simple = ["POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (20 20, 30 20, 30 30, 20 20))",
                          "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (0 0, 5 0, 5 5, 0 0))"]
    everything = POLYGONS + LINES + POINTS + CROSSING + invalid_but_simple
    ours = _op(meridian, tmp_path, "is-simple", everything)
    theirs = [shapely.is_valid(g) if g.geom_type == "Polygon" else shapely.is_simple(g)
              for g in map(shapely_wkt.loads, everything)]
    assert ours == ["true" if t else "false" for t in theirs]
    assert 0 < sum(theirs) < len(theirs), "the inputs should give both answers"
    assert all(shapely.is_simple(shapely_wkt.loads(t)) for t in invalid_but_simple)
    lines = [shapely.is_simple(shapely_wkt.loads(t)) for t in LINES]
    assert 0 < sum(lines) < len(lines), "random-walk lines should both cross themselves and not"


@pytest.mark.parametrize("pattern", ["T*F**F***", "T********", "FF*FF****", "1********", "0********", "212101212"])
def test_relate_patterns_match_shapely(meridian, tmp_path, pattern):
    everything = POLYGONS + LINES + POINTS
    other = shapely_wkt.loads(OTHER)
    ours = _op(meridian, tmp_path, "relate", everything, "--with", OTHER, "--pattern", pattern)
    assert ours == ["true" if shapely.relate_pattern(shapely_wkt.loads(t), other, pattern) else "false"
                    for t in everything]


def test_cut_matches_shapely_split_and_sides(meridian, tmp_path):
    """Each polygon cut by a long random line: the pieces are shapely's `split` pieces (the same areas, 1e-9
    relative), and each piece reported left lies left of the line (its representative point has a positive cross
    product with the line's direction), each right piece right of it. A polygon the line misses writes nothing."""
    rng = np.random.default_rng(SEED + 1)
    cut_any, missed, tried = 0, 0, []
    for original in POLYGONS[:20]:
        # In longitude/latitude (the coordinates / 20, so within ±90°), so that GeoJSON output, which carries the
        # sides, needs no projection and areas compare with shapely's on the same numbers.
        text = shapely.to_wkt(shapely.transform(shapely_wkt.loads(original), lambda c: c / 20), rounding_precision=-1)
        # Near the centre (the polygons are 1-6 units across), so that most are cut; every fifth misses.
        cy = shapely_wkt.loads(text).centroid.y
        y0, y1 = (cy + rng.uniform(-2, 2, 2)) if len(tried) % 5 else (-1.0, -1.0)
        tried.append(text)
        cutter = f"LINESTRING (-5 {float(y0)!r}, 55 {float(y1)!r})"
        path = tmp_path / "cut.wkt"
        path.write_text(text + "\n")
        out = tmp_path / "cut.geojson"
        r = subprocess.run([meridian, "op", "cut", str(path), "--with", cutter, "-o", str(out)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        features = shapely.from_geojson(out.read_text())
        polygon, line = shapely_wkt.loads(text), shapely_wkt.loads(cutter)
        theirs = [g for g in split(polygon, line).geoms if g.area > 0]
        ours = [] if features.is_empty else list(getattr(features, "geoms", [features]))
        sides = [f["properties"]["cut"] for f in json.loads(out.read_text())["features"]]
        if len(theirs) == 1:
            assert ours == [], (text[:60], cutter)  # not cut: nothing written
            missed += 1
            continue
        cut_any += 1
        parts = [p for g in ours for p in getattr(g, "geoms", [g])]
        assert sorted(p.area for p in parts) == pytest.approx(sorted(t.area for t in theirs), rel=1e-9)
        (ax, ay), (bx, by) = line.coords
        for g, side in zip(ours, sides):
            for p in getattr(g, "geoms", [g]):
                q = p.representative_point()
                cross = (bx - ax) * (q.y - ay) - (by - ay) * (q.x - ax)
                assert side in ("left", "right") and (cross > 0) == (side == "left"), (side, cross)
    assert cut_any >= 10 and missed >= 4, (cut_any, missed)


def test_usage_errors_are_one_line(meridian):
    cases = [
        (["op"], "missing OPERATION"),
        (["op", "nope"], "unknown operation 'nope'"),
        (["op", "densify"], "densify needs --max-segment-length"),
        (["op", "touches"], "--with"),
        (["op", "clip", "--envelope", "1,2,0,3"], "--envelope expects"),
        (["op", "offset", "--distance", "nan"], "--distance expects a finite number"),
        (["op", "convex-hull", "--max-deviation", "1"], "--max-deviation does not apply to convex-hull"),
        (["op", "touches", "--with", "POINT (1 2)", "-o", "x.wkt"], "prints true or false"),
        (["op", "relate", "--with", "POINT (1 2)"], "relate needs --pattern"),
        (["op", "touches", "--with", "POINT (1"], "--with:"),
        (["op", "cut", "--with", "POINT (1 2)"], "cut needs a line"),
    ]
    for args, phrase in cases:
        r = subprocess.run([meridian, *args], input="POINT (1 2)\n", capture_output=True, text=True, timeout=30)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.count("\n") == 1 and phrase in r.stderr, (args, r.stderr)
        assert r.stdout == ""
