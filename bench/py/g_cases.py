"""Cases G1-G4 (G1s, G1n: smooth and noisy lines): geodesic buffers at scale. Usage:
  g_cases.py gen OUTDIR FIXTURE.geojson        write the inputs (fixed seeds) as JSON lists of features of rings
  g_cases.py peer CASE REPS INDIR [MERIDIAN_OUT.json]
  g_cases.py cli CASE REPS INDIR MERIDIAN_CLI geodesic|planar   time the whole `meridian buffer` command (lines)
The peer does the job the way users do it today: per feature, pyproj's azimuthal equidistant projection centred on
the feature (its bounding box centre), shapely buffer (quad_segs=16, 64-gon circles), projection back to WGS84, then
shapely union_all. It reports its time and the worst vertex error of its result against the true geodesic distance
(pyproj's Geod, which is GeographicLib's C code), and the same measure of Meridian's result when given."""
import json
import math
import os
import random
import subprocess
import sys
import time

import numpy as np
import shapely
from pyproj import Geod, Transformer
from shapely.geometry import LineString, Point, Polygon, shape

import common

GEOD = Geod(ellps="WGS84")
MILE = 1609.344
CASES = {  # case: (kind, input, distance m, union)
    "G1": ("line", "G1.json", 100e3, False),
    "G1s": ("line", "G1s.json", 100e3, False),
    "G1n": ("line", "G1n.json", 100e3, False),
    "G2": ("points", "G2.json", 299 * MILE, True),
    "G3": ("points", "G3.json", 10e3, True),
    "G4": ("polygons", "G4.json", 10e3, True),
}
AREA = (-103.0, -94.1, 31.8, 34.5)  # EPSG:32038's area of use, as for P3


def gen(out, fixture):
    # G1: a 1,000-vertex zigzag across Texas (0.3° high, 0.008° per step), as in the measurements.
    lon = np.linspace(-104.0, -96.0, 1000)
    lat = 31.0 + 0.3 * (np.arange(1000) % 2)
    lines = {"G1": np.column_stack([lon, lat]).tolist()}
    # G1s, G1n: the lines of Tests/python/test_geodesic.py's _line_cases, identical to them: a smooth sine across
    # Texas (radius of curvature about 60 km at the crests, so its 100 km buffer folds inside every bend) and the
    # same with ±0.002° of seeded noise on each latitude.
    xs = [-103 + 9 * i / 999 for i in range(1000)]
    smooth = [(x, 32.5 + 0.8 * math.sin(1.3 * (x + 103))) for x in xs]
    noise = random.Random(16)
    noisy = [(x, y + noise.uniform(-0.002, 0.002)) for x, y in smooth]
    lines["G1s"] = [[round(x, 9), round(y, 9)] for x, y in smooth]
    lines["G1n"] = [[round(x, 9), round(y, 9)] for x, y in noisy]
    for case, line in lines.items():
        json.dump([[line]], open(f"{out}/{case}.json", "w"))
        feature = {"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": line}}
        json.dump({"type": "FeatureCollection", "features": [feature]}, open(f"{out}/{case}.geojson", "w"))
    for case, n, seed in (("G2", 5000, 1602), ("G3", 100_000, 1603)):
        rng = np.random.default_rng(seed)
        xy = np.column_stack([rng.uniform(AREA[0], AREA[1], n), rng.uniform(AREA[2], AREA[3], n)])
        json.dump([[[p]] for p in xy.round(7).tolist()], open(f"{out}/{case}.json", "w"))
        # The same points in EPSG:32038 (NAD27, US survey feet), for the viewer's path.
        t = Transformer.from_crs("EPSG:4326", "EPSG:32038", always_xy=True)
        x, y = t.transform(xy[:, 0], xy[:, 1])
        json.dump([[[p]] for p in np.column_stack([x, y]).tolist()], open(f"{out}/{case}-32038.json", "w"))
    features = []
    for f in json.load(open(fixture))["features"]:
        g = f["geometry"]
        polygons = [g["coordinates"]] if g["type"] == "Polygon" else g["coordinates"]
        features += [[[[x, y] for x, y, *_ in ring] for ring in poly] for poly in polygons]
    json.dump(features, open(f"{out}/G4.json", "w"))


def geometries(kind, features):
    if kind == "line":
        return [LineString(f[0]) for f in features]
    if kind == "points":
        return [Point(f[0][0]) for f in features]
    return [Polygon(f[0], f[1:]) for f in features]


def peer(geoms, distance):
    pieces = []
    for g in geoms:
        x0, y0, x1, y1 = g.bounds
        aeqd = f"+proj=aeqd +lat_0={(y0 + y1) / 2} +lon_0={(x0 + x1) / 2} +datum=WGS84 +units=m"
        there = Transformer.from_crs("EPSG:4326", aeqd, always_xy=True)
        back = Transformer.from_crs(aeqd, "EPSG:4326", always_xy=True)
        local = shapely.transform(g, lambda c: np.column_stack(there.transform(c[:, 0], c[:, 1])))
        buffered = local.buffer(distance, quad_segs=16)
        pieces.append(shapely.transform(buffered, lambda c: np.column_stack(back.transform(c[:, 0], c[:, 1]))))
    return shapely.union_all(pieces) if len(pieces) > 1 else pieces[0]


def sources(kind, geoms, step=20.0):
    """Points the true distance is measured from: point centres, or the input's boundary densified along
    geodesics every `step` m (a vertex at distance d is then measured at most step²/(8d) too far)."""
    if kind == "points":
        return np.array([[g.x, g.y] for g in geoms])
    boundary = geoms[0] if kind == "line" else shapely.union_all(geoms).boundary
    out = []
    for part in getattr(boundary, "geoms", [boundary]):
        c = np.asarray(part.coords)
        for (ax, ay), (bx, by) in zip(c, c[1:]):
            _, _, s = GEOD.inv(ax, ay, bx, by)
            out.append([ax, ay])
            n = int(s // step)
            if n > 0:
                out += [list(p) for p in GEOD.npts(ax, ay, bx, by, n)]
        out.append(list(c[-1]))
    return np.array(out)


def worst_error(rings, src, distance, samples=3000):
    """The largest |geodesic distance to the nearest source − distance| over (up to `samples`) vertices."""
    vertices = np.array([p for ring in rings for p in ring[:-1]])
    vertices = vertices[np.abs(vertices[:, 1]) < 90]
    if len(vertices) > samples:
        vertices = vertices[np.linspace(0, len(vertices) - 1, samples).astype(int)]
    k = math.cos(math.radians(float(np.mean(src[:, 1]))))
    tree = shapely.STRtree(shapely.points(src[:, 0] * k, src[:, 1]))
    worst = 0.0
    for x, y in vertices:
        q = Point(x * k, y)
        nearest = tree.query_nearest(q)[0]
        d = q.distance(tree.geometries[nearest])
        idx = tree.query(q, predicate="dwithin", distance=d * 1.05 + 1e-4)
        _, _, s = GEOD.inv(np.full(len(idx), x), np.full(len(idx), y), src[idx, 0], src[idx, 1])
        worst = max(worst, abs(float(s.min()) - distance))
    return worst


def rings_of(geometry):
    polys = getattr(geometry, "geoms", [geometry])
    return [list(r.coords) for p in polys for r in [p.exterior, *p.interiors]]


def cli(case, reps, indir, meridian, mode):
    """Times the whole command line on a line case, as a user runs it (the issue's measure): `meridian buffer
    --geodesic`, or the planar buffer in EPSG:32038 (the lines reach slightly outside its area of use)."""
    mode_args = ["--geodesic"] if mode == "geodesic" else ["--srs", "EPSG:32038", "--allow-outside-area"]
    out = f"{indir}/{case}.cli-{mode}.geojson"
    command = [meridian, "buffer", f"{indir}/{case}.geojson", *mode_args, "--distance", "100km", "-o", out, "--quiet"]
    times, peak = [], 0.0
    for _ in range(reps):
        t0 = time.perf_counter()
        p = subprocess.Popen(command)
        _, status, usage = os.wait4(p.pid, 0)  # the command's own peak RSS, as bench/py/p5.py takes it
        times.append(time.perf_counter() - t0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"{' '.join(command)}: exit {os.waitstatus_to_exitcode(status)}")
        peak = max(peak, usage.ru_maxrss / 1024)
    common.emit({"tool": f"meridian CLI {mode}", "times": times, "command_peak_rss_mb": round(peak, 1)})


def main():
    if sys.argv[1] == "gen":
        gen(sys.argv[2], sys.argv[3])
        return
    if sys.argv[1] == "cli":
        cli(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6])
        return
    case, reps, indir = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    kind, name, distance, _ = CASES[case]
    geoms = geometries(kind, json.load(open(f"{indir}/{name}")))
    times, result = common.timed(lambda: peer(geoms, distance), reps, budget=60)
    src = sources(kind, geoms)
    record = {"tool": "pyproj AEQD + shapely", "times": times, "vertices": int(shapely.get_num_coordinates(result)),
              "valid": bool(result.is_valid), "worst_vertex_error_m": worst_error(rings_of(result), src, distance)}
    if len(sys.argv) > 5:
        record["meridian_worst_vertex_error_m"] = worst_error(json.load(open(sys.argv[5])), src, distance)
    common.emit(record)


main()
