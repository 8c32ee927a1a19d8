"""Shared helpers for the benchmark peers: input generation with fixed seeds, timing, peak memory."""
import json
import resource
import sys
import time

import numpy as np

# P1: points uniform in a 300,000 ft square around (2,400,000, 450,000) in EPSG:32038 (US survey feet).
P1_CENTER = (2_400_000.0, 450_000.0)
P1_SIDE = 300_000.0
MILE_FT = 5280.0  # the case radii are given in feet; 1 mi = 5280 ft
P1_CASES = {
    "P1a": (10_000, 1 * MILE_FT, 101),
    "P1b": (10_000, 1692.6, 102),
    "P1c": (100_000, 535.2, 103),
    "P1d": (100_000, 5 * MILE_FT, 104),
    "P1e": (100_000, 1.0, 105),
}


def p1_points(case):
    """The case's points as an (n, 2) float64 array (fixed seed)."""
    n, _, seed = P1_CASES[case]
    rng = np.random.default_rng(seed)
    xy = rng.uniform(-P1_SIDE / 2, P1_SIDE / 2, size=(n, 2))
    xy[:, 0] += P1_CENTER[0]
    xy[:, 1] += P1_CENTER[1]
    return xy


def p2_points(seed=201, n=10_000):
    """10k WGS84 points worldwide (lon, lat), uniform on the sphere, |lat| <= 85."""
    rng = np.random.default_rng(seed)
    lon = rng.uniform(-180, 180, n)
    lat = np.degrees(np.arcsin(rng.uniform(np.sin(np.radians(-85)), np.sin(np.radians(85)), n)))
    return np.column_stack([lon, lat])


def p3_points(seed=301, n=1_000_000):
    """1M WGS84 points (lon, lat) inside EPSG:32038's area of use."""
    rng = np.random.default_rng(seed)
    lon = rng.uniform(-103.0, -94.1, n)
    lat = rng.uniform(31.8, 34.5, n)
    return np.column_stack([lon, lat])


def peak_rss_mb():
    """Peak resident set size of this process in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def timed(fn, reps, budget=None):
    """Runs fn reps times; returns (times, last result). Stops after one run if it took longer than budget s."""
    times, result = [], None
    for i in range(reps):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
        if budget is not None and times[-1] > budget:
            break
    return times, result


def emit(record):
    """Prints one JSON result line for bench/run to collect."""
    record["peak_rss_mb"] = round(peak_rss_mb(), 1)
    print(json.dumps(record), flush=True)
    sys.stdout.flush()


P4_COUNT = 100_000


def p4_data(seed=401):
    """P4 placemarks: base positions (N, 2) and per-placemark offsets (N, 20, 2), lon/lat degrees (fixed seed).
    Placemark i is a point (i % 3 == 0) at base, a 10-vertex line base + offsets[:10] (i % 3 == 1), or a 20-vertex
    closed polygon (i % 3 == 2): base + 0.01 (cos, sin) of 20 equal angles, first vertex repeated."""
    rng = np.random.default_rng(seed)
    base = np.column_stack([rng.uniform(-103, -94.1, P4_COUNT), rng.uniform(31.8, 34.5, P4_COUNT)])
    return base, rng.uniform(-0.01, 0.01, size=(P4_COUNT, 20, 2))
