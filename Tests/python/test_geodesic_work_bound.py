"""Geodesic buffers at tiny distances of long lines, bounded in time and right, against GeographicLib's
Python package (an independent implementation of Karney's algorithms).

`meridian buffer --geodesic --distance 1e-5` of a 9,000 km segment ran for minutes (found by the geodesic-cli fuzz
target): the default maxDeviation was 0.1 mm, ten times the distance, so the chords of the offset curves on both
sides of the line crossed each other, and their union (and the placement of its hundreds of thousands of crossings)
grew without bound; `--max-vertices` counted only the samples. The default is now at most half the distance and
the chord attempts are charged to the work budget, so such a buffer is either made right or refused in seconds.

Tolerances: edges within maxDeviation (half the distance here: the default below 0.2 mm) of the distance, the
engine's contract; vertices within 1e-7 m (they are placed on the true boundary by GeographicLib's direct and
inverse problems, accurate to about 15 nm, and our foot-point search below converges to 1e-11 m along the line)."""
import json
import math
import subprocess

import pytest
from geographiclib.geodesic import Geodesic

WGS84 = Geodesic.WGS84
TIMEOUT = 60  # seconds: a hang fails as subprocess.TimeoutExpired; the fixed runs take about 5 s (debug build)


def segment_distance(a, b, p):
    """The geodesic distance (m) from lon/lat `p` to the geodesic segment from `a` to `b`: the foot by Newton's
    iteration on the along-track offset (the distance along the line changes by s·cos of the angle between the line
    and the geodesic to `p`), to 1e-11 m, clamped to the segment; the ends included."""
    line = WGS84.InverseLine(a[1], a[0], b[1], b[0])
    first = WGS84.Inverse(a[1], a[0], p[1], p[0])
    t = min(max(first["s12"] * math.cos(math.radians(first["azi1"] - line.azi1)), 0.0), line.s13)
    for _ in range(30):
        on = line.Position(t)
        inv = WGS84.Inverse(on["lat2"], on["lon2"], p[1], p[0])
        step = min(max(t + inv["s12"] * math.cos(math.radians(inv["azi1"] - on["azi2"])), 0.0), line.s13) - t
        t += step
        if abs(step) < 1e-11:
            break
    on = line.Position(t)
    return min(WGS84.Inverse(on["lat2"], on["lon2"], p[1], p[0])["s12"], first["s12"],
               WGS84.Inverse(b[1], b[0], p[1], p[0])["s12"])


def check_buffer(geometry, a, b, distance, max_edges=1500):
    """The buffer of segment a–b is one polygon without holes, its vertices at `distance` (±1e-7 m) and its edges
    (at a quarter, half and three quarters, on at most `max_edges` edges spread over the ring) within half the
    distance of it. Returns the worst vertex error and the worst edge deviation."""
    assert geometry["type"] == "Polygon" and len(geometry["coordinates"]) == 1, \
        (geometry["type"], len(geometry["coordinates"]))
    ring = geometry["coordinates"][0]
    worst_vertex = worst_edge = 0.0
    for i in range(0, len(ring) - 1, max(1, len(ring) // max_edges)):
        (ax, ay), (bx, by) = ring[i], ring[i + 1]
        worst_vertex = max(worst_vertex, abs(segment_distance(a, b, (ax, ay)) - distance))
        for t in (0.25, 0.5, 0.75):
            q = (ax + t * (bx - ax), ay + t * (by - ay))
            worst_edge = max(worst_edge, abs(segment_distance(a, b, q) - distance))
    assert worst_vertex <= 1e-7, worst_vertex
    assert worst_edge <= distance / 2, (worst_edge, distance)
    return worst_vertex, worst_edge


def buffer(meridian, wkt, distance, *extra):
    return subprocess.run([meridian, "buffer", "--geodesic", "--distance", str(distance), "--threads", "1",
                           *extra, "-o", "-"], input=wkt, capture_output=True, text=True, timeout=TIMEOUT)


def test_a_tiny_buffer_of_a_long_segment_is_one_polygon_within_half_the_distance(meridian):
    """A 1,100 km segment at 10 µm: it came back as a MultiPolygon of 3,887 rings with edges 0.64 mm (64 times the
    distance) off the true boundary."""
    a, b, distance = (1.0, 0.0), (2.0, 10.0), 1e-5
    out = buffer(meridian, f"LINESTRING ({a[0]} {a[1]}, {b[0]} {b[1]})\n", distance, "--max-vertices", "200000")
    assert out.returncode == 0, out.stderr
    worst_vertex, worst_edge = check_buffer(json.loads(out.stdout)["features"][0]["geometry"], a, b, distance)
    print(f"10 µm buffer of 1,100 km: worst vertex error {worst_vertex:.2e} m, worst edge deviation {worst_edge:.2e} m")


@pytest.mark.parametrize("distance, max_vertices", [(1e-4, "5000000"), (1e-5, "200000"), (1e-6, "200000")])
def test_tiny_buffers_of_a_9000_km_segment_end_in_seconds(meridian, distance, max_vertices):
    """The fuzz target's input: made right, or refused with one line naming the limit, never a run of minutes (at
    0.1 mm: 35 s and 746 MB before, now about 200,000 vertices in 8 s; at 10 µm and 1 µm: more than 300 s)."""
    a, b = (1.0, 0.0), (21.0, 81.0)
    out = buffer(meridian, "LINESTRING (1 0,21  81 )\n", distance, "--max-vertices", max_vertices)
    if out.returncode == 0:
        check_buffer(json.loads(out.stdout)["features"][0]["geometry"], a, b, distance)
    else:
        assert out.returncode == 1 and out.stdout == "", (out.returncode, out.stdout[:200])
        assert out.stderr.count("\n") == 1 and "200,000" in out.stderr and "vertices" in out.stderr, out.stderr
        assert distance < 1e-4, out.stderr  # 0.1 mm fits the default budget


def test_the_fuzz_input_replays_in_seconds(meridian, fixtures):
    """Tests/Fixtures/fuzz/geodesic-cli (README there), run as the geodesic-cli fuzz target runs it
    (fuzz/Sources/meridian-fuzz/FuzzTargets.swift): the first byte picks the distance, the second the deviation and
    --union, the rest is standard input. It ran for more than 300 s; now any exit status but a crash is fine, within
    the timeout, with one line on stderr when it fails."""
    distances = ["1", "0.5m", "1e-6", "10km", "9000km", "19984km", "1e300", "-5km", "nan", "250nmi", "3mi", "0"]
    deviations = [None, "1m", "0.0001", "5km", "1e-9"]
    files = sorted((fixtures / "fuzz" / "geodesic-cli").iterdir())
    assert [f.name for f in files] == ["tiny-distance-9000km-line.bin"]
    for path in files:
        data = path.read_bytes()
        args = ["buffer", "--geodesic", "--distance", distances[data[0] % len(distances)], "--max-vertices", "200000"]
        if deviations[data[1] % len(deviations)] is not None:
            args += ["--max-deviation", deviations[data[1] % len(deviations)]]
        if data[1] & 0x80:
            args.append("--union")
        out = subprocess.run([meridian, *args, "-o", "-"], input=data[2:], capture_output=True, timeout=TIMEOUT)
        assert out.returncode in (0, 1), (path.name, out.returncode, out.stderr[-500:])
        if out.returncode == 1:
            assert out.stderr.count(b"\n") == 1, out.stderr
