#!/usr/bin/env python3
"""Writes Tests/Fixtures/geodesic/near_segments.csv: geodesic distances from points to geodesic segments and
between geodesic segments on WGS84, computed with GeographicLib (Python) alone, for ProximityGeodesicShapeTests.

Point to segment: the minimum over the segment of GeographicLib's Inverse from the point to a point of the segment
(its InverseLine's Position), found by sampling the segment at SAMPLES + 1 evenly spaced points (ends included) and
refining around the best sample by golden-section search to 1e-7 m along the segment.
Segment to segment: the same minimum taken over the first segment of the point-to-segment distance to the second
(sampled at SEGMENT_SAMPLES + 1 points, then golden section) - so nothing here assumes where the minimum lies.

Cases are pseudo-random from a fixed seed: segments worldwide, across the antimeridian, over and near the poles, on
the equator and along meridians, 1 km to 3,000 km long; points near a segment's interior and beyond its ends.

Usage: .venv/bin/python scripts/make-geodesic-near-reference.py > Tests/Fixtures/geodesic/near_segments.csv
(`Tests/python/test_geodesic_near_segments.py` regenerates some rows and compares them with the committed file.)
"""
import math
import random
import sys

from geographiclib.geodesic import Geodesic

WGS84 = Geodesic.WGS84
SAMPLES = 400
SEGMENT_SAMPLES = 60
INNER_SAMPLES = 120
GOLDEN = (math.sqrt(5) - 1) / 2
HEADER = "kind,lat1,lon1,lat2,lon2,lat3,lon3,lat4,lon4,distance_m"


def golden_min(f, lo, hi, tol):
    """The minimum of a unimodal f on [lo, hi] by golden-section search to `tol`."""
    a, b = lo, hi
    c, d = b - GOLDEN * (b - a), a + GOLDEN * (b - a)
    fc, fd = f(c), f(d)
    while b - a > tol:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - GOLDEN * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + GOLDEN * (b - a)
            fd = f(d)
    return min(fc, fd, f(lo), f(hi))


def sampled_min(f, length, samples, tol):
    """min of f over [0, length]: the best of samples + 1 even samples, refined by golden section around it."""
    if length == 0:
        return f(0.0)
    step = length / samples
    values = [f(i * step) for i in range(samples + 1)]
    best = min(range(samples + 1), key=lambda i: values[i])
    refined = golden_min(f, max(0.0, (best - 1) * step), min(length, (best + 1) * step), tol)
    return min(refined, values[best])


def point_segment(p, a, b, samples=SAMPLES):
    """The distance in meters from point p to the geodesic segment a-b (each (lat, lon))."""
    line = WGS84.InverseLine(a[0], a[1], b[0], b[1])

    def at(s):
        q = line.Position(s)
        return WGS84.Inverse(p[0], p[1], q["lat2"], q["lon2"])["s12"]

    return sampled_min(at, line.s13, samples, 1e-7)


def segment_segment(a, b, c, d):
    """The distance in meters between the geodesic segments a-b and c-d (no assumption on where it lies)."""
    line = WGS84.InverseLine(a[0], a[1], b[0], b[1])

    def at(s):
        q = line.Position(s)
        return point_segment((q["lat2"], q["lon2"]), c, d, INNER_SAMPLES)

    return sampled_min(at, line.s13, SEGMENT_SAMPLES, 1e-6)


def wrap(lon):
    return (lon + 180) % 360 - 180


def random_segment(rng, kind):
    """A segment (a, b) of the given region."""
    length = 10 ** rng.uniform(3, 6.5)
    if kind == "world":
        a = (rng.uniform(-80, 80), rng.uniform(-180, 180))
    elif kind == "antimeridian":
        a = (rng.uniform(-60, 60), wrap(180 + rng.uniform(-3, 0.5)))
        return a, _direct(a, rng.uniform(45, 135), length)
    elif kind == "pole":
        a = (rng.choice([1, -1]) * rng.uniform(84, 89.9), rng.uniform(-180, 180))
        # toward the pole, so that many pass over or near it
        return a, _direct(a, rng.uniform(-20, 20) + (0 if a[0] > 0 else 180), rng.uniform(1e5, 1.5e6))
    elif kind == "equator":
        a = (0.0, rng.uniform(-180, 180))
        return a, _direct(a, 90.0, length)
    else:  # meridian
        a = (rng.uniform(-60, 60), rng.uniform(-180, 180))
        return a, _direct(a, 0.0, length)
    return a, _direct(a, rng.uniform(-180, 180), length)


def _direct(a, azimuth, s):
    r = WGS84.Direct(a[0], a[1], azimuth, s)
    return (r["lat2"], r["lon2"])


def near_point(rng, a, b):
    """A point off the segment a-b: perpendicular to an interior point, or beyond an end."""
    line = WGS84.InverseLine(a[0], a[1], b[0], b[1])
    offset = 10 ** rng.uniform(0, 5.7)
    if rng.random() < 0.75:
        q = line.Position(line.s13 * rng.uniform(0.02, 0.98))
        return _direct((q["lat2"], q["lon2"]), q["azi2"] + rng.choice([90, -90]), offset)
    end = rng.choice([0.0, line.s13])
    q = line.Position(end)
    away = q["azi2"] + (180 if end == 0 else 0) + rng.uniform(-60, 60)
    return _direct((q["lat2"], q["lon2"]), away, offset)


def fmt(x):
    return repr(float(x))


def cases(point_cases=80, segment_cases=16, seed=20261207):
    """The cases, in file order: (kind, four (lat, lon) points, the last NaN for a point and a segment)."""
    rng = random.Random(seed)
    kinds = ["world", "antimeridian", "pole", "equator", "meridian"]
    out = []
    for i in range(point_cases):
        a, b = random_segment(rng, kinds[i % len(kinds)])
        p = near_point(rng, a, b)
        out.append(("point_segment", p, a, b, (math.nan, math.nan)))
    for i in range(segment_cases):
        a, b = random_segment(rng, kinds[i % len(kinds)])
        # The second segment near the first: from a point off it, parallel, skew or across (some cross it).
        c = near_point(rng, a, b)
        line = WGS84.InverseLine(a[0], a[1], b[0], b[1])
        direction = line.azi1 + rng.choice([0, 0, 30, -30, 90])
        d = _direct(c, direction, line.s13 * rng.uniform(0.3, 1.2))
        out.append(("segment_segment", a, b, c, d))
    return out


def reference(case):
    """The reference distance of a case, meters."""
    kind, p, q, r, s = case
    return point_segment(p, q, r) if kind == "point_segment" else segment_segment(p, q, r, s)


def row(case, distance):
    """A CSV line."""
    kind, p, q, r, s = case
    return ",".join([kind] + [fmt(v) for v in (*p, *q, *r, *s)] + [fmt(distance)])


def main():
    print(HEADER)
    for case in cases():
        print(row(case, reference(case)))


if __name__ == "__main__":
    sys.exit(main())
