"""`meridian op extend|reshape|auto-complete` on seeded random inputs, checked against shapely (GEOS 3.11) and
against the geometric meaning of ArcGIS's rules.

- extend: for every line end, shapely intersects the end segment's ray (a segment from the end far past the
  extender) with the extender; the nearest such point at a positive distance is where the end must go. Meridian's
  new end must be that point (within 1e-9 of the coordinates' extent of 1000), lie on the extender and on the ray;
  an end shapely finds no point for must stay.
- auto-complete: shapely.polygonize_full of the noded linework (the boundaries of the polygons the lines touch, and
  the lines), with ArcGIS's conditions as Meridian documents them (outside every polygon; no dangle or cut edge
  inside; an edge along a line, its midpoint within 1e-9 of the extent); the faces must match Meridian's one to one
  (symmetric difference below 1e-9 of each face's area), and each new polygon must overlap no input polygon.
- reshape (polylines): the reshaper's piece between its extreme intersections with the line must appear in the
  result, and the result must keep the line outside that stretch.
Every test asserts how many cases it checked, so a generator that stopped producing cases would fail.
"""
import json
import subprocess

import numpy as np
import shapely
import shapely.ops
from shapely.geometry import LineString, Point, Polygon

SEED = 20261201
EPS = 1e-9 * 100  # the figures' extent is about 100


def _coords(cs):
    return ", ".join(f"{float(x)!r} {float(y)!r}" for x, y in cs)


def _run(meridian, tmp_path, op, features, other, *options):
    """Runs `meridian op OP` on GeoJSON features and returns the output features. GeoJSON is longitude/latitude,
    so the figures stay within ±170° and ±85°; these operations are planar, the degrees are just numbers to them."""
    src = tmp_path / f"{op}.geojson"
    src.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    out = tmp_path / f"{op}-out.geojson"
    r = subprocess.run([meridian, "op", op, str(src), "--with", other, "-o", str(out), *options],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(out.read_text())["features"]


def _feature(i, geometry):
    return {"type": "Feature", "id": i, "properties": {}, "geometry": shapely.geometry.mapping(geometry)}


def _ray_target(end, before, extender):
    """The nearest point beyond `end` on the ray from `before` through `end` that lies on `extender`, or None."""
    d = np.subtract(end, before)
    far = np.add(end, d / np.hypot(*d) * 1e5)
    hit = LineString([end, far]).intersection(extender)
    if hit.is_empty:
        return None
    candidates = [Point(c) for g in getattr(hit, "geoms", [hit]) for c in g.coords]
    candidates = [c for c in candidates if c.distance(Point(end)) > EPS]
    return min(candidates, key=lambda c: c.distance(Point(end)), default=None)


def test_extend_reaches_the_nearest_point_of_the_extender_on_each_end_ray(meridian, tmp_path):
    rng = np.random.default_rng(SEED)
    lines, extenders = [], []
    for _ in range(60):
        n = int(rng.integers(2, 5))
        lines.append(LineString(rng.normal(0, 8, (n, 2)).cumsum(axis=0) + rng.uniform(-40, 40, 2)))
    extender = LineString(rng.uniform(-85, 85, (8, 2)) * [1.9, 1])
    extenders.append(extender)
    out = {f["id"]: f for f in _run(meridian, tmp_path, "extend", [_feature(i, l) for i, l in enumerate(lines)],
                                     extender.wkt)}
    checked = moved = 0
    for i, line in enumerate(lines):
        cs = list(line.coords)
        expected_end = _ray_target(cs[-1], cs[-2], extender)
        expected_start = _ray_target(cs[0], cs[1], extender)
        if i not in out:
            assert expected_end is None and expected_start is None, (i, line.wkt)
            checked += 1
            continue
        got = list(shapely.geometry.shape(out[i]["geometry"]).coords)
        # Default options: old vertices kept, one new vertex at each extended end.
        inner = got[(1 if expected_start else 0):(len(got) - 1 if expected_end else len(got))]
        assert np.allclose(inner, cs, atol=0), (i, got, cs)
        for expected, new, end, before in [(expected_end, got[-1], cs[-1], cs[-2]), (expected_start, got[0], cs[0], cs[1])]:
            if expected is None:
                continue
            assert Point(new).distance(expected) <= EPS, (i, new, expected.wkt)
            assert Point(new).distance(extender) <= EPS
            d, e = np.subtract(end, before), np.subtract(new, end)
            assert abs(d[0] * e[1] - d[1] * e[0]) <= EPS * np.hypot(*d) and d @ e > 0  # on the ray, ahead of the end
            moved += 1
        checked += 1
    assert checked == 60 and moved >= 20, (checked, moved)


def test_auto_complete_matches_polygonize_with_arcgis_conditions(meridian, tmp_path):
    rng = np.random.default_rng(SEED + 1)
    checked = faces = 0
    for case in range(25):
        polygons = []
        for k in range(int(rng.integers(2, 4))):
            centre = rng.uniform(-60, 60, 2)
            n = int(rng.integers(5, 12))
            angles = (np.arange(n) + rng.uniform(-0.4, 0.4, n)) * 2 * np.pi / n  # star-shaped: simple
            radii = rng.uniform(4, 12, n)
            polygons.append(Polygon([(centre[0] + r * np.cos(a), centre[1] + r * np.sin(a)) for a, r in zip(angles, radii)]))
        lines = []
        for _ in range(int(rng.integers(2, 5))):
            a, b = rng.choice(len(polygons), 2, replace=False)
            p = polygons[a].exterior.interpolate(rng.uniform(0, 1), normalized=True)
            q = polygons[b].exterior.interpolate(rng.uniform(0, 1), normalized=True)
            mid = np.add(p.coords[0], q.coords[0]) / 2 + rng.normal(0, 4, 2)
            lines.append(LineString([p.coords[0], mid, q.coords[0]]))
        multi = shapely.MultiLineString(lines)
        ours = [shapely.geometry.shape(f["geometry"]) for f in
                _run(meridian, tmp_path, "auto-complete", [_feature(i, p) for i, p in enumerate(polygons)], multi.wkt)]
        participating = [p for p in polygons if p.intersects(multi)]
        expected = []
        if participating:
            linework = shapely.unary_union([p.boundary for p in participating] + lines)
            found, cuts, dangles, _ = shapely.polygonize_full(shapely.get_parts(linework))
            strays = [Point(np.mean(seg, axis=0)) for g in shapely.get_parts(shapely.union(cuts, dangles))
                      for seg in zip(g.coords, g.coords[1:])]
            tolerance = 1e-9 * max(np.ptp(np.array([c for g in polygons + lines for c in
                                                    (g.exterior.coords if g.geom_type == "Polygon" else g.coords)]), axis=0))
            for face in shapely.get_parts(found):
                if any(p.covers(face.point_on_surface()) for p in participating):
                    continue  # inside an existing polygon
                if any(face.contains(m) for m in strays):
                    continue  # a line runs into it
                rings = [face.exterior] + list(face.interiors)
                if any(multi.distance(Point(np.mean(seg, axis=0))) <= tolerance
                       for r in rings for seg in zip(r.coords, r.coords[1:])):
                    expected.append(face)
        assert len(ours) == len(expected), (case, [g.wkt for g in ours], [g.wkt for g in expected])
        for face in expected:
            match = [g for g in ours if g.symmetric_difference(face).area <= 1e-9 * face.area]
            assert len(match) == 1, (case, face.wkt)
        for g in ours:
            assert g.is_valid and all(g.intersection(p).area <= 1e-9 * g.area for p in polygons)
        faces += len(ours)
        checked += 1
    assert checked == 25 and faces >= 10, (checked, faces)


def test_reshape_polylines_take_the_reshaper_between_its_extreme_intersections(meridian, tmp_path):
    rng = np.random.default_rng(SEED + 2)
    lines = [LineString(rng.normal(0, 10, (int(rng.integers(3, 7)), 2)).cumsum(axis=0)) for _ in range(80)]
    reshaper = LineString([(-150, -20), (-60, 60), (0, -50), (70, 50), (150, 0)])
    out = {f["id"]: f for f in _run(meridian, tmp_path, "reshape", [_feature(i, l) for i, l in enumerate(lines)],
                                     reshaper.wkt)}
    checked = reshaped = 0
    for i, line in enumerate(lines):
        hits = line.intersection(reshaper)
        points = [Point(c) for g in getattr(hits, "geoms", [hits]) for c in g.coords] if not hits.is_empty else []
        along = sorted({reshaper.project(p) for p in points})
        if len(along) < 2:
            assert i not in out, (i, line.wkt)
            checked += 1
            continue
        got = shapely.geometry.shape(out[i]["geometry"])
        piece = shapely.ops.substring(reshaper, along[0], along[-1])
        assert got.buffer(EPS).covers(piece), (i, got.wkt, piece.wkt)
        # Outside the replaced stretch the line is unchanged: its part before the first and after the last
        # intersection (along the line) is still covered.
        at = sorted(line.project(reshaper.interpolate(a)) for a in (along[0], along[-1]))
        for kept in (shapely.ops.substring(line, 0, at[0]), shapely.ops.substring(line, at[1], line.length)):
            if kept.length > EPS:
                assert got.buffer(EPS).covers(kept), (i, got.wkt, kept.wkt)
        reshaped += 1
        checked += 1
    assert checked == 80 and reshaped >= 10, (checked, reshaped)


def test_usage_errors_are_one_line(meridian):
    def run(args, stdin, code):
        r = subprocess.run([meridian, "op", *args], input=stdin, capture_output=True, text=True, timeout=60)
        assert r.returncode == code and r.stderr.count("\n") == 1, (args, r.returncode, r.stderr)
        return r.stderr
    line = "LINESTRING (0 0, 1 1)\n"
    assert "relocate-ends" in run(["extend", "--with", "LINESTRING (5 0, 5 9)", "--extend-options", "bogus"], line, 2)
    assert "--extend-options does not apply to reshape (it applies to extend)" in run(["reshape", "--with", "LINESTRING (5 0, 5 9)",
                                                                                  "--extend-options", "relocate-ends"], line, 2)
    assert "one path" in run(["reshape", "--with", "MULTILINESTRING ((0 0, 1 0), (2 0, 3 0))"], line, 2)
    assert "needs a line --with" in run(["auto-complete", "--with", "POINT (1 1)"], "POLYGON ((0 0, 1 0, 1 1, 0 0))\n", 2)
    assert "keepEndAttributes" in run(["extend", "--with", "LINESTRING (5 0, 5 9)", "--extend-options",
                                       "keep-end-attributes,no-end-attributes"], line, 1)
    assert "polygon" in run(["extend", "--with", "LINESTRING (5 0, 5 9)"], "POLYGON ((0 0, 1 0, 1 1, 0 0))\n", 1)
    assert "auto-complete needs polygons" in run(["auto-complete", "--with", "LINESTRING (5 0, 5 9)"], line, 1)
