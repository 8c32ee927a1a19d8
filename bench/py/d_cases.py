"""D1 and D2: `meridian buffer --union` in one process against meridian-dask on a LocalCluster of one and of
two workers, on this machine.

  d_cases.py gen OUT_DIR            writes D1-10M.csv, D1-30M.csv (skewed points, lon/lat) and D2-1M.csv (a grid)
  d_cases.py run CASE IN OUT_DIR    CASE: D1 (r = 500 m) or D2 (r = 62 m); prints one JSON line per run

D1: points drawn around the US places of bench/data/cities (GeoNames) weighted by population — 85 % of them around a
place, at a distance normal with sigma = 3 km · sqrt(population / 100,000), one in three of those three times as far
(suburbs) — and 15 % uniform over the CONUS area of use of EPSG:5070 (countryside); a fixed seed. D2: a 1000 x 1000
grid, 100 m apart, jittered by up to 4 m, r = 62 m: one cluster with a hole in every square.

Each run is one process, timed from start to exit; its peak RSS comes from wait4. meridian-dask's runs also report
every task's meridian process (--report): the largest task's peak RSS and the client's. The results are compared
with numpy (`summary`): parts and holes, area and perimeter within 1e-9 relative.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CITIES = os.path.join(HERE, "..", "data", "cities", "us_cities.csv")
# EPSG:5070's area of use (PROJ): W -124.79, S 24.41, E -66.91, N 49.38.
WEST, SOUTH, EAST, NORTH = -124.79, 24.41, -66.91, 49.38


def skewed(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """D1's points (lon, lat)."""
    rng = np.random.default_rng(seed)
    rows = [line.rstrip("\n").rsplit(",", 3) for line in open(CITIES).readlines()[1:]]
    lon = np.array([float(r[1]) for r in rows])
    lat = np.array([float(r[2]) for r in rows])
    population = np.array([float(r[3]) for r in rows])
    urban = int(n * 0.85)
    city = rng.choice(len(rows), size=urban, p=population / population.sum())
    sigma = 3000.0 * np.sqrt(population[city] / 100_000)
    sigma[rng.random(urban) < 1 / 3] *= 3
    east, north = rng.normal(0, 1, urban) * sigma, rng.normal(0, 1, urban) * sigma
    ulat = lat[city] + north / 111_320.0
    ulon = lon[city] + east / (111_320.0 * np.cos(np.radians(lat[city])))
    xs = np.concatenate([ulon, rng.uniform(WEST, EAST, n - urban)])
    ys = np.concatenate([ulat, rng.uniform(SOUTH, NORTH, n - urban)])
    inside = (xs > WEST) & (xs < EAST) & (ys > SOUTH) & (ys < NORTH)
    xs, ys = xs[inside], ys[inside]
    while len(xs) < n:  # replace the few drawn outside the area of use
        more_x, more_y = skewed(n - len(xs), seed + len(xs))
        xs, ys = np.concatenate([xs, more_x]), np.concatenate([ys, more_y])
    order = rng.permutation(n)  # addresses come in no spatial order
    return xs[:n][order], ys[:n][order]


def write_csv(path: str, names: tuple[str, str], x: np.ndarray, y: np.ndarray, decimals: int) -> None:
    """A CSV of two columns, written by pyarrow (fast; every double read back as written)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    pcsv.write_csv(pa.table({names[0]: np.round(x, decimals), names[1]: np.round(y, decimals)}), path)


def gen(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    for n, name in [(10_000_000, "D1-10M.csv"), (30_000_000, "D1-30M.csv")]:
        path = os.path.join(out, name)
        if not os.path.exists(path):
            x, y = skewed(n, 28)
            write_csv(path, ("lon", "lat"), x, y, 7)  # 7 decimals: about 1 cm, as addresses are kept
    path = os.path.join(out, "D2-1M.csv")
    if not os.path.exists(path):
        rng = np.random.default_rng(2)
        i, j = np.meshgrid(np.arange(1000), np.arange(1000))
        x = i.ravel() * 100.0 + rng.uniform(-4, 4, i.size)
        y = 1_000_000 + j.ravel() * 100.0 + rng.uniform(-4, 4, i.size)
        write_csv(path, ("x", "y"), x, y, 3)


def timed(command: list[str]) -> tuple[float, int, int, float]:
    """Runs a command; returns (seconds, peak RSS in MB, exit status, CPU seconds of it and the processes it
    waited for: a dask run's workers and their meridian processes)."""
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.monotonic() - start
    err = process.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        print(err, file=sys.stderr)
    return seconds, usage.ru_maxrss // 1024, os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime


def _last_ring_start(data: bytes) -> int:
    """The index of the "(" that opens the last ring whose first number has begun in `data`, if a ring closes
    before it; else -1."""
    end = len(data)
    while (cut := data.rfind(b"(", 0, end)) > 0:
        if cut + 1 < len(data) and data[cut + 1] in b"-0123456789":
            return cut if data.rfind(b")", 0, cut) >= 0 else -1
        end = cut
    return -1


def summary(meridian: str, path: str, block_size: int = 1 << 26) -> dict:
    """Parts, holes, area and perimeter of a WKT multipolygon, read with numpy a block of rings at a time (an
    independent reading of the output: neither meridian nor GEOS): rings are the runs of numbers between "(" and
    ")", parts are separated by ")), ((", and each ring's area is its shoelace about its first vertex."""
    ring_count = parts = 0
    area = perimeter = 0.0
    delete = bytes(range(256)).translate(bytes(range(256)), b"0123456789.-+eE \n")
    with open(path, "rb") as f:
        rest = b""
        while True:
            block = f.read(block_size)
            data = rest + block
            if block:
                # Cut at the "(" that opens the last ring begun here: the separator before it, "), (" or ")), ((",
                # is then wholly in this block (a cut inside ")), ((" lost a part), and the "(" is kept on both
                # sides (here it opens nothing, the next block's ring starts with it).
                cut = _last_ring_start(data)
                if cut < 0:
                    rest = data
                    continue
                data, rest = data[:cut + 1], data[cut:]
            parts += data.count(b")), ((")
            b = np.frombuffer(data, dtype=np.uint8)
            opens = np.nonzero(b == ord("("))[0]
            opens = opens[(opens + 1 < len(b)) & np.isin(b[np.minimum(opens + 1, len(b) - 1)],
                                                          np.frombuffer(b"-0123456789", np.uint8))]
            closes = np.nonzero(b == ord(")"))[0]
            closes = closes[np.isin(b[closes - 1], np.frombuffer(b"0123456789", np.uint8))]
            commas = np.nonzero(b == ord(","))[0]
            sizes = np.searchsorted(commas, closes) - np.searchsorted(commas, opens) + 1
            numbers = np.array(data.replace(b",", b" ").translate(None, b"()MULTIPOLYGN").split(), dtype=float)
            xy = numbers.reshape(-1, 2)
            starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
            shift = np.repeat(xy[starts], sizes, axis=0)
            local = xy - shift
            x, y = local[:-1, 0], local[:-1, 1]
            cross = x * local[1:, 1] - local[1:, 0] * y
            step = np.hypot(np.diff(local[:, 0]), np.diff(local[:, 1]))
            inside = np.ones(len(cross), dtype=bool)
            inside[np.cumsum(sizes)[:-1] - 1] = False  # pairs across two rings
            area += float(cross[inside].sum()) / 2
            perimeter += float(step[inside].sum())
            ring_count += len(sizes)
            if not block:
                break
    return {"parts": parts + 1, "holes": ring_count - parts - 1, "area_m2": area, "perimeter_m": perimeter}


def run(case: str, inp: str, out: str, meridian: str, dask: str, single_too: bool = True) -> None:
    os.makedirs(out, exist_ok=True)
    radius = "500m" if case == "D1" else "62m"
    args = [inp, "--srs", "EPSG:5070", "--distance", radius, "--union"]
    points = sum(1 for _ in open(inp)) - 1
    name = f"{case}-{points // 1_000_000}M"
    reference = None
    if single_too:
        load = os.getloadavg()
        single = os.path.join(out, f"{name}-single.wkt")
        seconds, rss, status, cpu = timed([meridian, "buffer", *args, "-o", single])
        reference = summary(meridian, single) if status == 0 else None
        print(json.dumps({"case": case, "points": points, "tool": "meridian", "workers": 0, "seconds": seconds,
                          "cpu_seconds": cpu, "rss_mb": rss, "status": status, "load_before": load,
                          "load_after": os.getloadavg(), "result": reference}), flush=True)
        if os.path.exists(single):
            os.unlink(single)
    for workers in (1, 2) if single_too else (2,):
        load = os.getloadavg()
        path = os.path.join(out, f"{name}-dask{workers}.wkt")
        report = path + ".report"
        seconds, rss, status, cpu = timed([dask, "buffer", *args, "-o", path, "--workers", str(workers),
                                           "--meridian", meridian, "--report", report, "--quiet"])
        stages = [json.loads(line) for line in open(report)] if status == 0 else []
        tasks = [s for s in stages if "rss" in s and s["stage"] != "client"]
        result = summary(meridian, path) if status == 0 else None
        same = None
        if result and reference:
            same = (result["parts"] == reference["parts"] and result["holes"] == reference["holes"]
                    and abs(result["area_m2"] - reference["area_m2"]) <= 1e-9 * reference["area_m2"]
                    and abs(result["perimeter_m"] - reference["perimeter_m"]) <= 1e-9 * reference["perimeter_m"])
        largest = max(tasks, key=lambda s: s["rss"]) if tasks else {}
        client = next((s for s in stages if s["stage"] == "client"), {})
        if os.path.exists(path):
            os.unlink(path)
        print(json.dumps({
            "case": case, "points": points, "tool": "meridian-dask", "workers": workers, "seconds": seconds,
            "cpu_seconds": cpu, "rss_mb": rss, "status": status, "load_before": load,
            "load_after": os.getloadavg(), "result": result, "same_as_single": same,
            "tasks": len(tasks), "cells": sum(1 for s in stages if s["stage"] == "tile"),
            "largest_task_rss_mb": largest.get("rss", 0) // (1 << 20), "largest_task": largest.get("stage"),
            "largest_task_circles": max((s.get("circles", 0) for s in tasks), default=0),
            "client_rss_mb": client.get("rss", 0) // (1 << 20),
            "stitched_vertices": next((s["vertices"] for s in stages if s["stage"] == "stitch"), None),
        }), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        run(sys.argv[2], sys.argv[3], sys.argv[4], os.environ["MERIDIAN"], os.environ["MERIDIAN_DASK"],
            single_too="--dask-only" not in sys.argv)
