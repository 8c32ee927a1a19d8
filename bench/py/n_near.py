"""N1–N4 (proximity): `meridian near` against geopandas, DuckDB spatial and PostGIS on the same files, end to end
(files in, a CSV of pairs out), with every answer checked against shapely or geographiclib.

    n_near.py [--small] [--reps R] [--cli BIN] [--pg CONN] [--out DIR] [--peer-timeout S] [CASE ...]

CASE: N1 N2 N3 N4 MEM (default: N1 N2 N3 N4; MEM is the peak-memory run at 10M premises, 200k with --small, or
`--mem-sizes`).
Inputs are written once with fixed seeds to DIR/inputs (GeoPackages written by pyogrio, not by Meridian):

- premises: 1M points in EPSG:32038 (NAD27 / Texas North Central, US survey feet), 60 % in 300 towns (Gaussian,
  σ 1–8 km, Zipf-sized), 40 % scattered over the zone's area of use (-103…-94.1° E, 31.8…34.5° N);
  turbines: 10k points, 100 wind farms of 100 (σ 3 km) over the same area; each turbine has a radius_m of
  0.5–5 km (N2).
- places: 1M points worldwide in EPSG:4326, GeoNames-like: 70 % in 600 clusters (σ 20–250 km), among them clusters
  astride ±180° (Fiji, the Aleutians, Chukotka) and on both poles, 30 % uniform on the sphere; stations: 10k
  points, 15 % in the same clusters, 85 % uniform.

Cases (each tool a fresh process timed from start to exit, the wait blocking until it exits; peak RSS from wait4):

- N1: `meridian near premises.gpkg turbines.gpkg --distance 2km -o pairs.csv` (2 km = 6561.67 US ft) against
  geopandas `sjoin(predicate="dwithin")`, DuckDB `JOIN … ON ST_DWithin` (its SPATIAL_JOIN operator) and PostGIS
  `ST_DWithin` with GiST indexes (load and index timed apart from the query). Every peer writes the same CSV: the
  two ids, the distance and the premise's WKT (Meridian adds the rank). Pairs must equal shapely's
  `STRtree.query(predicate="dwithin")`: count and a hash of the sorted (premise, turbine) id pairs. The DuckDB row
  (a target) times the two tools alternated, run for run (max(--reps, --peer-reps) rounds): its ratio is of two
  medians taken under the same state of the machine, which on this VM moves both tools' times by ±15 % within
  minutes (the other rows compare Meridian's own block of runs with the peer's).
- N2: per-turbine radii, `meridian near turbines.gpkg premises.gpkg --distance-field radius_m --unit m`; the
  peers with the radius taken from the turbine's row. What each peer's plan is (EXPLAIN) is printed; a peer whose
  plan is a nested loop over all pairs runs at a reduced size (--n2-reduced premises), which the table says.
- N3: `meridian near --geodesic places.gpkg stations.gpkg --distance 50km` against PostGIS geography
  `ST_DWithin` (spheroid) with GiST indexes; pairs checked on a 20k sample of places (every place within 1° of
  ±180° or 5° of a pole, the rest random) by a brute force over all stations with geographiclib's inverse problem.
  The "N3 floor" row: PROJ's `geod_geninverse` alone, from C (bench/c/n3_floor.c), on Meridian's pairs (its
  distances within 1 µm of PROJ's, the stated accuracy), its fastest run divided by the cores: the least wall time
  anything measuring every pair with Karney's inverse can take here (PostGIS does; Meridian measures pairs less
  than 99.7 km apart from their chord and calls it only near the search distance), against the same PostGIS time
  and target.
- N4: `--nearest 1`, planar on N1's files against geopandas `sjoin_nearest` (distances equal to shapely's
  `STRtree.query_nearest`) and geodesic on N3's files (distances equal to geographiclib's on the sample).
- MEM: peak RSS of N1 at 10M premises (its own premises file, same generator).

Prints one Markdown table (saved to DIR/near-table.md; raw JSON lines in DIR/near-results.jsonl).
"""
import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
US_FT = 1200 / 3937  # metres per US survey foot
N1_M = 2000.0
N1_FT = N1_M / US_FT  # 6561.666… US ft
N3_M = 50_000.0
SIZES = {"full": dict(premises=1_000_000, turbines=10_000, places=1_000_000, stations=10_000, sample=20_000),
         "small": dict(premises=20_000, turbines=1_000, places=20_000, stations=1_000, sample=5_000)}
BOX = (-103.0, -94.1, 31.8, 34.5)  # EPSG:32038's area of use (lon, lon, lat, lat)


# MARK: inputs

def _write(path, xy, srs, columns):
    import pyogrio
    import shapely

    if os.path.exists(path):
        os.remove(path)
    wkb = shapely.to_wkb(shapely.points(xy))
    pyogrio.raw.write(path, wkb, list(columns.values()), list(columns.keys()), geometry_type="Point", crs=srs,
                      layer=os.path.splitext(os.path.basename(path))[0], driver="GPKG")


def _to_32038(lon, lat):
    from pyproj import Transformer

    return np.column_stack(Transformer.from_crs(4326, 32038, always_xy=True).transform(lon, lat))


def _offsets(rng, n, sigma_m):
    """Gaussian offsets in metres, (n, 2)."""
    return rng.normal(0.0, 1.0, size=(n, 2)) * np.asarray(sigma_m).reshape(-1, 1)


def premises(n, seed=801):
    """Premises in EPSG:32038 (US ft): 60 % in 300 towns, 40 % scattered."""
    rng = np.random.default_rng(seed)
    towns = np.column_stack([rng.uniform(*BOX[:2], 300), rng.uniform(*BOX[2:], 300)])
    weight = 1.0 / np.arange(1, 301) ** 0.8
    sigma = rng.uniform(1000, 8000, 300)
    n_town = int(n * 0.6)
    which = rng.choice(300, n_town, p=weight / weight.sum())
    town_xy = _to_32038(towns[:, 0], towns[:, 1])[which] + _offsets(rng, n_town, sigma[which]) / US_FT
    rural = _to_32038(rng.uniform(*BOX[:2], n - n_town), rng.uniform(*BOX[2:], n - n_town))
    xy = np.vstack([town_xy, rural])
    return xy[rng.permutation(n)]


def turbines(n, seed=802):
    """Turbines in EPSG:32038 (US ft): farms of 100 (σ 3 km), and a search radius of 0.5–5 km each."""
    rng = np.random.default_rng(seed)
    farms = max(1, n // 100)
    centres = _to_32038(rng.uniform(*BOX[:2], farms), rng.uniform(*BOX[2:], farms))
    which = np.arange(n) % farms
    xy = centres[which] + _offsets(rng, n, np.full(n, 3000.0)) / US_FT
    return xy, rng.uniform(500.0, 5000.0, n)


SPECIAL = [(179.7, -17.5, 60e3), (-179.8, -16.8, 40e3), (179.9, 52.0, 80e3), (-179.5, 65.5, 120e3),
           (180.0, 0.0, 50e3), (0.0, 90.0, 150e3), (0.0, -90.0, 100e3), (120.0, 89.2, 60e3), (15.0, 78.2, 50e3)]


def _clusters(seed=803, count=600):
    """Cluster centres (lon, lat), σ in metres and weights: GeoNames-like, with the special ones first."""
    rng = np.random.default_rng(seed)
    lon = rng.uniform(-180, 180, count)
    lat = np.degrees(np.arcsin(rng.uniform(np.sin(np.radians(-60)), np.sin(np.radians(75)), count)))
    sigma = rng.uniform(20e3, 250e3, count)
    weight = 1.0 / np.arange(1, count + 1) ** 0.9
    special = np.array(SPECIAL)
    lon[:len(SPECIAL)], lat[:len(SPECIAL)], sigma[:len(SPECIAL)] = special.T
    weight[:len(SPECIAL)] = weight[20]  # each special cluster as big as the 21st
    return lon, lat, sigma, weight / weight.sum()


def world(n, clustered, seed):
    """Points worldwide (lon, lat): `clustered` of them in the clusters (offsets along geodesics, pyproj's
    Geod.fwd, so they cross ±180° and the poles), the rest uniform on the sphere."""
    from pyproj import Geod

    rng = np.random.default_rng(seed)
    clon, clat, sigma, weight = _clusters()
    k = int(n * clustered)
    which = rng.choice(len(clon), k, p=weight)
    distance = np.abs(rng.normal(0, 1, k)) * sigma[which]
    lon, lat, _ = Geod(ellps="WGS84").fwd(clon[which], clat[which], rng.uniform(-180, 180, k), distance)
    ulon = rng.uniform(-180, 180, n - k)
    ulat = np.degrees(np.arcsin(rng.uniform(-1, 1, n - k)))
    xy = np.column_stack([np.concatenate([lon, ulon]), np.concatenate([lat, ulat])])
    return xy[rng.permutation(n)]


def paths(folder, size):
    s = SIZES[size]
    return {"premises": os.path.join(folder, f"N-premises-{s['premises']}.gpkg"),
            "turbines": os.path.join(folder, f"N-turbines-{s['turbines']}.gpkg"),
            "places": os.path.join(folder, f"N-places-{s['places']}.gpkg"),
            "stations": os.path.join(folder, f"N-stations-{s['stations']}.gpkg")}


def premises_path(folder, n):
    return os.path.join(folder, f"N-premises-{n}.gpkg")


def gen(folder, size, mem_sizes=()):
    """Writes the inputs that are missing."""
    os.makedirs(folder, exist_ok=True)
    s, p = SIZES[size], paths(folder, size)
    for n in (s["premises"], *mem_sizes):
        if not os.path.exists(premises_path(folder, n)):
            _write(premises_path(folder, n), premises(n), "EPSG:32038", {"id": np.arange(n, dtype=np.int64)})
    if not os.path.exists(p["turbines"]):
        xy, radius = turbines(s["turbines"])
        _write(p["turbines"], xy, "EPSG:32038", {"id": np.arange(len(xy), dtype=np.int64), "radius_m": radius})
    if not os.path.exists(p["places"]):
        _write(p["places"], world(s["places"], 0.7, 804), "EPSG:4326",
               {"id": np.arange(s["places"], dtype=np.int64)})
    if not os.path.exists(p["stations"]):
        _write(p["stations"], world(s["stations"], 0.15, 805), "EPSG:4326",
               {"id": np.arange(s["stations"], dtype=np.int64)})


def read_points(path):
    """(ids, (n, 2) x/y, other columns) of a point GeoPackage, read by pyogrio."""
    import pyogrio
    import shapely

    _, _, wkb, values = pyogrio.raw.read(path)
    names = pyogrio.read_info(path)["fields"]
    g = shapely.from_wkb(wkb)
    cols = dict(zip(names, values))
    return cols["id"].astype(np.int64), shapely.get_coordinates(g), cols


# MARK: running a process

def load():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def run_process(argv, timeout, env=None):
    """Runs argv as a fresh process: (wall s, peak RSS MiB, exit code, stdout, stderr, CPU s); exit code None on
    timeout (its process group is killed). The peak RSS and the CPU time (user + system, all its threads) are GNU
    time's (`/usr/bin/time -f %M`, the process's own from
    wait4): the wait4 of a child forked from this Python process would count the pages it shared with the parent
    before exec (the references held here, hundreds of MB). Output goes through temporary files, so a chatty
    process cannot block on a full pipe while it is waited for. The wait blocks until the process ends (a timer
    kills its group at the timeout), so the wall time is the exit's, not the next tick of a polling loop."""
    import tempfile
    import threading

    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err, \
            tempfile.NamedTemporaryFile("r") as rss:
        t0 = time.perf_counter()
        p = subprocess.Popen(["/usr/bin/time", "-q", "-o", rss.name, "-f", "%M %U %S", *argv], stdout=out, stderr=err,
                             text=True, env=env, start_new_session=True)
        expired = threading.Event()

        def kill():
            expired.set()
            os.killpg(p.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, kill)
        timer.start()
        _, status, _ = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        timer.cancel()
        if expired.is_set() and wall >= timeout:
            p.returncode = 0
            return wall, 0.0, None, "", "timeout", 0.0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        fields = rss.read().split()[-3:]
        peak, cpu = (int(fields[0]) / 1024.0, float(fields[1]) + float(fields[2])) if len(fields) == 3 else (0.0, 0.0)
        return wall, peak, p.returncode, out.read(), err.read(), cpu


def pg_conn(conn):
    return conn.removeprefix("PG:")


def psql(conn, sql, timeout=3600):
    """Runs SQL through psql (one fresh process): (wall s, exit code, stdout, stderr)."""
    wall, _, code, out, err, _ = run_process(["psql", pg_conn(conn), "-v", "ON_ERROR_STOP=1", "-qAt", "-c", sql],
                                             timeout)
    return wall, code, out, err


# MARK: the peers, each run as `n_near.py peer …` in its own process

def peer_geopandas(mode, left, right, out, distance):
    """geopandas (pyogrio): read both files, sjoin dwithin (one distance, or a LEFT column in metres) or
    sjoin_nearest, the distance of each pair (shapely), the pairs written as CSV with LEFT's WKT."""
    import geopandas as gpd
    import pyogrio
    import shapely

    lg, rg = gpd.read_file(left), gpd.read_file(right)
    column = "distance_us_ft"
    if mode == "nearest":
        j = gpd.sjoin_nearest(lg[["id", "geometry"]], rg[["id", "geometry"]], distance_col=column)
    else:
        d = lg[distance].to_numpy() / US_FT if distance.startswith("radius") else float(distance)
        j = gpd.sjoin(lg[["id", "geometry"]], rg[["id", "geometry"]], predicate="dwithin", distance=d)
        j[column] = shapely.distance(j.geometry.values, rg.geometry.values[j["index_right"].to_numpy()])
    pyogrio.write_dataframe(j[["id_left", "id_right", column, "geometry"]], out, driver="CSV",
                            layer_options={"GEOMETRY": "AS_WKT"})


def duckdb_connect():
    import pathlib
    import sysconfig

    import duckdb

    ext = next((pathlib.Path(sysconfig.get_paths()["purelib"]) / "duckdb_ext" / "extensions").glob(
        f"v{duckdb.__version__}/*/spatial.duckdb_extension"))
    con = duckdb.connect()
    con.execute(f"LOAD '{ext}'")
    return con


def duckdb_query(distance):
    d = "l.radius_m / %r" % US_FT if distance.startswith("radius") else repr(float(distance))
    return ("SELECT l.id AS id_left, r.id AS id_right, ST_Distance(l.geom, r.geom) AS distance_us_ft, "
            f"ST_AsText(l.geom) AS wkt FROM l JOIN r ON ST_DWithin(l.geom, r.geom, {d})")


def peer_duckdb(left, right, out, distance, explain=False):
    """DuckDB spatial: ST_Read both files into tables (the load, timed apart), then the join written by COPY.
    Prints {"load": s, "query": s}; with explain, the physical plan's operators instead (nothing run)."""
    con = duckdb_connect()
    t0 = time.perf_counter()
    con.execute(f"CREATE TABLE l AS SELECT * FROM ST_Read('{left}')")
    con.execute(f"CREATE TABLE r AS SELECT * FROM ST_Read('{right}')")
    t1 = time.perf_counter()
    if explain:
        plan = "\n".join(row[1] for row in con.execute("EXPLAIN " + duckdb_query(distance)).fetchall())
        ops = [op for op in ("SPATIAL_JOIN", "NESTED_LOOP_JOIN", "BLOCKWISE_NL_JOIN", "PIECEWISE_MERGE_JOIN",
                             "HASH_JOIN", "CROSS_PRODUCT") if op in plan]
        print(json.dumps({"plan": ops}))
        return
    con.execute(f"COPY ({duckdb_query(distance)}) TO '{out}' (HEADER, DELIMITER ',')")
    print(json.dumps({"load": t1 - t0, "query": time.perf_counter() - t1}))


# MARK: checks

def hash_pairs(left, right):
    order = np.lexsort((right, left))
    pairs = np.column_stack([left[order], right[order]]).astype(np.int64)
    return hashlib.sha1(pairs.tobytes()).hexdigest()[:12]


def read_pairs(path):
    """(id_left, id_right, distance) of an output CSV, whatever its column order and distance column's name."""
    import pandas as pd

    header = pd.read_csv(path, nrows=0).columns
    column = next(c for c in header if c.startswith("distance"))
    df = pd.read_csv(path, usecols=["id_left", "id_right", column])
    return (df["id_left"].to_numpy(np.int64), df["id_right"].to_numpy(np.int64),
            df[column].to_numpy(np.float64))


class Reference:
    """The expected pairs of a case, keyed by (left id, right id), with their distances."""

    def __init__(self, left, right, distance):
        self.left, self.right, self.distance = left, right, distance
        self.count, self.hash = len(left), hash_pairs(left, right)
        self.keys = left * (1 << 32) + right
        order = np.argsort(self.keys)
        self.keys, self.sorted_distance = self.keys[order], distance[order]

    def compare(self, path):
        """What a tool's output says against the reference: pair count, hash, equal?, largest distance difference
        (relative for planar, metres for geodesic) over the pairs both have."""
        left, right, distance = read_pairs(path)
        keys = left * (1 << 32) + right
        h = hash_pairs(left, right)
        pos = np.searchsorted(self.keys, keys)
        pos = np.minimum(pos, len(self.keys) - 1)
        both = (len(self.keys) > 0) & (self.keys[pos] == keys) if len(keys) else np.zeros(0, bool)
        diff = np.abs(distance[both] - self.sorted_distance[pos[both]]) if len(keys) else np.zeros(0)
        return {"pairs": int(len(left)), "hash": h, "equal": h == self.hash and len(left) == self.count,
                "missing": int(self.count - both.sum()), "extra": int(len(keys) - both.sum()),
                "max_diff": float(diff.max()) if len(diff) else 0.0}


def unit_vectors(lon, lat):
    lo, la = np.radians(lon), np.radians(lat)
    return np.column_stack([np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)])


def geodesic_reference(places, stations, sample, radius=None):
    """Brute force over every station for each sampled place, on the WGS84 ellipsoid with geographiclib: the
    pairs within `radius` metres, or (radius None) each place's nearest station. Candidates are first cut by the
    angle between unit vectors with a wide margin (a geodesic of angle θ is at least 6,335 km · θ long: the
    smallest radius of curvature of the ellipsoid; the nearest is within 3 % of the smallest angle), so no pair is
    lost to the cut; every candidate is measured exactly."""
    from geographiclib.geodesic import Geodesic

    geod = Geodesic.WGS84
    (pid, pxy), (sid, sxy) = places, stations
    sv = unit_vectors(sxy[:, 0], sxy[:, 1])
    left, right, dist = [], [], []
    for start in range(0, len(sample), 500):
        rows = sample[start:start + 500]
        pv = unit_vectors(pxy[rows, 0], pxy[rows, 1])
        chord = np.sqrt(np.maximum(0.0, 2.0 - 2.0 * (pv @ sv.T)))
        angle = 2.0 * np.arcsin(np.minimum(1.0, chord / 2.0))
        if radius is not None:
            cand = angle * 6_335_000.0 <= radius * 1.01 + 1.0
        else:
            cand = angle <= angle.min(axis=1, keepdims=True) * 1.03 + 1e-9
        for r, s in zip(*np.nonzero(cand)):
            i = rows[r]
            d = geod.Inverse(pxy[i, 1], pxy[i, 0], sxy[s, 1], sxy[s, 0], Geodesic.DISTANCE)["s12"]
            left.append(pid[i])
            right.append(sid[s])
            dist.append(d)
    left, right, dist = np.array(left, np.int64), np.array(right, np.int64), np.array(dist)
    if radius is not None:
        keep = dist <= radius
        return left[keep], right[keep], dist[keep]
    order = np.lexsort((right, dist, left))  # per place, nearest first (ties by station)
    left, right, dist = left[order], right[order], dist[order]
    first = np.r_[True, left[1:] != left[:-1]]
    return left[first], right[first], dist[first]


def restrict(path, ids):
    """A tool's pairs whose LEFT id is in `ids`, written to path + '.sample.csv' (for the sample checks)."""
    import pandas as pd

    header = pd.read_csv(path, nrows=0).columns
    column = next(c for c in header if c.startswith("distance"))
    df = pd.read_csv(path, usecols=["id_left", "id_right", column])
    out = path + ".sample.csv"
    df[np.isin(df["id_left"].to_numpy(), ids)].to_csv(out, index=False)
    return out


def shown(arg):
    """A command-line argument as the table prints it: paths inside the working directory relative to it."""
    return os.path.relpath(arg) if os.path.isabs(arg) and arg.startswith(os.getcwd() + os.sep) else arg


# MARK: the harness

class Harness:
    def __init__(self, args):
        self.args = args
        self.size = "small" if args.small else "full"
        self.s = SIZES[self.size]
        self.inputs = os.path.join(args.out, "inputs")
        self.work = os.path.join(args.out, "near")
        os.makedirs(self.work, exist_ok=True)
        self.p = paths(self.inputs, self.size)
        self.rows, self.notes, self.commands, self.meridian_runs = [], [], {}, {}
        self.results = open(os.path.join(args.out, "near-results.jsonl"), "w")
        self.ok = True

    def record(self, **r):
        self.results.write(json.dumps(r) + "\n")
        self.results.flush()
        print(json.dumps(r), file=sys.stderr, flush=True)
        return r

    def command(self, label, argv):
        self.commands[label] = " ".join(shown(a) for a in argv)

    def timed(self, case, tool, argv, reps, out=None, timeout=None, env=None):
        """Runs argv reps times (`alternated` with one run): the median wall time, the largest peak RSS, the loads
        before/after, and the last run's stdout. A failure or timeout is recorded and returned as {"error": …}."""
        return self.alternated(case, [(tool, argv, out)], reps, timeout=timeout, env=env, label="")[tool]

    def meridian(self, case, argv, out, reps=None):
        full = [self.args.cli, "near", *argv, "--quiet", "-o", out]
        self.command(case, full)
        self.meridian_runs[case] = (full, out)
        return self.timed(case, "meridian", full, reps or self.args.reps, out, timeout=self.args.meridian_timeout)

    def alternated(self, case, runs, reps, timeout=None, env=None, label=" (alternated)"):
        """Runs each (tool, argv, out) of runs in turn, reps rounds (each output removed and every dirty page
        written before each run, so that no run shares the cores with the kernel writing the one before's output),
        so that the tools meet the same state of the machine: a ratio of their medians does not move with load that
        comes and goes between one tool's runs and the other's. Returns {tool: result} (the median wall time, the
        largest peak RSS, the median CPU, the loads before/after and the last run's stdout), recorded with `label`
        after the tool's name; on a failure or timeout {tool: {"error": …}} of the tool that failed."""
        times = {tool: [] for tool, _, _ in runs}
        cpus = {tool: [] for tool, _, _ in runs}
        peaks = {tool: 0.0 for tool, _, _ in runs}
        stdout = {}
        loads = [load()]
        for _ in range(reps):
            for tool, argv, out in runs:
                if out and os.path.exists(out):
                    os.remove(out)
                os.sync()
                wall, rss, code, so, err, cpu = run_process(argv, timeout or self.args.peer_timeout, env)
                if code != 0:
                    what = "timeout" if code is None else f"exit {code}: {err.strip()[-400:]}"
                    self.record(case=case, tool=tool, error=what, seconds=wall)
                    return {tool: {"error": what, "seconds": wall, "load": f"{loads[0]:.1f}"}}
                times[tool].append(wall)
                cpus[tool].append(cpu)
                peaks[tool] = max(peaks[tool], rss)
                stdout[tool] = so
        loads.append(load())
        results = {}
        for tool, _, _ in runs:
            r = self.record(case=case, tool=tool + label, times=times[tool],
                            seconds=float(np.median(times[tool])), peak_rss_mb=round(peaks[tool], 1),
                            cpu=float(np.median(cpus[tool])), load=f"{loads[0]:.1f} → {loads[1]:.1f}")
            r["stdout"] = stdout[tool]
            results[tool] = r
        return results

    def check(self, case, tool, ref, out, note=""):
        c = ref.compare(out)
        self.record(case=case, tool=tool, check=c)
        if not c["equal"]:
            self.ok = False
        self.notes.append(f"{case} {tool}{note}: {c['pairs']:,} pairs, hash {c['hash']} "
                          f"({'identical to' if c['equal'] else 'DIFFERENT from'} the reference's {ref.count:,}, "
                          f"{ref.hash}; missing {c['missing']}, extra {c['extra']}), largest distance difference "
                          f"{c['max_diff']:.3g}")
        return c

    def row(self, case, what, m, peer, peer_result, target=None, ratio_of=None):
        """One table row; ratio = Meridian / peer (peer seconds from ratio_of if given)."""
        if m is None or "error" in m:
            ms = f"failed: {m and m['error']}"
        else:
            ms = f"{m['seconds']:.3f} s (CPU {m['cpu']:.2f} s), {m['peak_rss_mb']:.0f} MB"
        if peer_result is None:
            ps, ratio = "—", None
        elif "error" in peer_result:
            ps, ratio = f"{peer}: {peer_result['error'][:80]} after {peer_result['seconds']:.0f} s", None
        else:
            ps = f"{peer} {peer_result['seconds']:.3f} s"
            if peer_result.get("cpu") and peer != "PostGIS" and "PostGIS" not in peer:
                ps += f" (CPU {peer_result['cpu']:.2f} s)"
            if peer_result.get("detail"):
                ps += f" ({peer_result['detail']})"
            denominator = ratio_of if ratio_of is not None else peer_result["seconds"]
            ratio = m["seconds"] / denominator if m and "error" not in m else None
        met = "—" if target is None or ratio is None else ("met" if ratio <= target else "NOT met")
        self.rows.append([case, what, ms, ps, "—" if ratio is None else f"{ratio:.3f}",
                          "—" if target is None else f"≤ {target}", met,
                          (m or {}).get("load", "—"), case])

    # MARK: PostGIS

    def pg_tables(self, case, tables, geography=False):
        """Loads files into PostGIS (ogr2ogr; timed), then builds a GiST index on each and ANALYZEs (timed).
        Returns (load s, index s) or None."""
        conn = self.args.pg
        t_load = 0.0
        for path, table in tables:
            argv = ["ogr2ogr", "-f", "PostgreSQL", conn, path, "-nln", table, "-overwrite",
                    "-lco", "GEOMETRY_NAME=geom", "-lco", "SPATIAL_INDEX=NONE"]
            if geography:
                argv += ["-lco", "GEOM_TYPE=geography"]
            wall, _, code, _, err, _ = run_process(argv, 3600)
            if code != 0:
                self.record(case=case, tool="postgis", error=f"load {table}: {err.strip()[-300:]}")
                return None
            t_load += wall
        sql = "; ".join(f"CREATE INDEX ON {t} USING gist (geom)" for _, t in tables)
        wall, code, _, err = psql(conn, sql)
        if code != 0:
            self.record(case=case, tool="postgis", error=f"index: {err.strip()[-300:]}")
            return None
        wall2, _, _, _ = psql(conn, "ANALYZE " + ", ".join(t for _, t in tables))
        return t_load, wall + wall2

    def pg_explain(self, select):
        _, code, out, err = psql(self.args.pg, "EXPLAIN " + select)
        nodes = [line.strip().lstrip("-> ").split("  ")[0] for line in out.splitlines()
                 if any(k in line for k in ("Loop", "Join", "Scan"))]
        return "; ".join(nodes) if code == 0 else err.strip()[-200:]

    def pg_query(self, case, select, out, timeout=None):
        argv = ["psql", pg_conn(self.args.pg), "-v", "ON_ERROR_STOP=1", "-qAt", "-c",
                f"\\copy ({select}) TO '{out}' WITH (FORMAT csv, HEADER)"]
        self.commands[f"{case} PostGIS"] = f"psql -c \"\\copy ({select}) TO 'pairs.csv' WITH (FORMAT csv, HEADER)\""
        r = self.timed(case, "postgis", argv, self.args.peer_reps, out, timeout=timeout,
                       env=dict(os.environ, PGAPPNAME="n-near-query"))
        if r.get("error") == "timeout":  # killing psql leaves its query running in the server: end it there
            psql(self.args.pg, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                               "WHERE application_name = 'n-near-query'")
        return r

    def pg_drop(self, *tables):
        psql(self.args.pg, "DROP TABLE IF EXISTS " + ", ".join(tables))

    # MARK: the cases

    def peer(self, *argv):
        return [sys.executable, os.path.abspath(__file__), "peer", *argv]

    def out(self, name):
        return os.path.join(self.work, name)

    def n1(self):
        import shapely

        case, p = "N1", self.p
        pid, pxy, _ = read_points(p["premises"])
        tid, txy, _ = read_points(p["turbines"])
        li, ri = shapely.STRtree(shapely.points(txy)).query(shapely.points(pxy), predicate="dwithin", distance=N1_FT)
        d = np.hypot(*(pxy[li] - txy[ri]).T)
        ref = Reference(pid[li], tid[ri], d)
        self.notes.append(f"N1 reference: shapely STRtree.query(predicate=\"dwithin\", distance={N1_FT!r}): "
                          f"{ref.count:,} pairs, hash {ref.hash}")
        what = f"{len(pid):,} premises × {len(tid):,} turbines, 2 km, EPSG:32038 .gpkg → pairs .csv"
        out = self.out("N1.meridian.csv")
        m = self.meridian(case, [p["premises"], p["turbines"], "--distance", "2km"], out)
        if "error" not in m:
            self.check(case, "meridian", ref, out)
        peers = []
        if "geopandas" in self.args.peers:
            o = self.out("N1.geopandas.csv")
            argv = self.peer("geopandas", "pairs", p["premises"], p["turbines"], o, repr(N1_FT))
            self.commands["N1 geopandas"] = "n_near.py peer geopandas pairs premises.gpkg turbines.gpkg pairs.csv"
            r = self.timed(case, "geopandas", argv, self.args.peer_reps, o)
            if "error" not in r:
                self.check(case, "geopandas", ref, o)
            self.row(case, what, m, "geopandas `sjoin(predicate=\"dwithin\")`", r, 0.2)
        if "duckdb" in self.args.peers:
            self.duckdb(case, what, m, ref, p["premises"], p["turbines"], repr(N1_FT), 0.3)
        if self.args.pg:
            self.postgis_planar(case, what, m, ref, p["premises"], p["turbines"], repr(N1_FT), 0.1)

    def duckdb(self, case, what, m, ref, left, right, distance, target, note=""):
        plan = run_process(self.peer("duckdb", left, right, "-", distance, "explain"), 600)
        ops = json.loads(plan[3].strip().splitlines()[-1])["plan"] if plan[2] == 0 else [plan[4].strip()[-200:]]
        self.notes.append(f"{case} DuckDB plan{note}: {', '.join(ops)}")
        o = self.out(f"{case}.duckdb.csv")
        self.commands[f"{case} DuckDB"] = duckdb_query(distance)
        argv = self.peer("duckdb", left, right, o, distance)
        reps = max(self.args.reps, self.args.peer_reps)
        if target is not None and case + note in self.meridian_runs and m is not None and "error" not in m:
            # Meridian and DuckDB alternated, run for run: the ratio of two tools timed minutes apart moved with
            # the machine (0.295-0.39 for N1 in four runs), not with either tool.
            full, out = self.meridian_runs[case + note]
            both = self.alternated(case, [("meridian", full, out), ("duckdb", argv, o)], reps)
            m, r = both.get("meridian", m), both.get("duckdb", next(iter(both.values())))
            if "error" not in r:
                r["detail"] = f"{reps} runs alternated with Meridian's"
        else:
            r = self.timed(case, "duckdb", argv, self.args.peer_reps, o)
        if "error" not in r:
            split = json.loads(r["stdout"].strip().splitlines()[-1])
            r["detail"] = (f"load {split['load']:.3f} s + join and write {split['query']:.3f} s; plan {'+'.join(ops)}"
                           + (f"; {r['detail']}" if r.get("detail") else ""))
            self.check(case, "duckdb", ref, o, note)
        self.row(case + note, what, m, "DuckDB `JOIN … ON ST_DWithin`", r, target)
        return r

    def postgis_planar(self, case, what, m, ref, left, right, distance, target, note=""):
        tables = self.pg_tables(case, [(left, "n_left"), (right, "n_right")])
        if tables is None:
            return
        d = "l.radius_m / %r" % US_FT if distance.startswith("radius") else distance
        select = ("SELECT l.id AS id_left, r.id AS id_right, ST_Distance(l.geom, r.geom) AS distance_us_ft, "
                  f"ST_AsText(l.geom) AS wkt FROM n_left l JOIN n_right r ON ST_DWithin(l.geom, r.geom, {d})")
        self.notes.append(f"{case} PostGIS plan{note}: {self.pg_explain(select)}")
        o = self.out(f"{case}.postgis.csv")
        r = self.pg_query(case, select, o)
        if "error" not in r:
            self.check(case, "postgis", ref, o, note)
            r["detail"] = f"query; load {tables[0]:.1f} s and GiST index + ANALYZE {tables[1]:.1f} s apart"
            self.row(case + note, what, m, "PostGIS `ST_DWithin`", r, target)
            total = dict(r, seconds=r["seconds"] + tables[0] + tables[1], detail="load + index + query")
            self.row(case + note, what, m, "PostGIS", total, None)
        else:
            self.row(case + note, what, m, "PostGIS `ST_DWithin`", r, target)
        self.pg_drop("n_left", "n_right")

    def n2(self):
        import shapely

        case, p = "N2", self.p
        tid, txy, tcols = read_points(p["turbines"])
        radius_ft = tcols["radius_m"] / US_FT

        def reference(premises_path):
            pid, pxy, _ = read_points(premises_path)
            li, ri = shapely.STRtree(shapely.points(pxy)).query(shapely.points(txy), predicate="dwithin",
                                                                distance=radius_ft)
            return Reference(tid[li], pid[ri], np.hypot(*(txy[li] - pxy[ri]).T)), len(pid)

        ref, n = reference(p["premises"])
        self.notes.append(f"N2 reference: shapely STRtree.query(turbines, predicate=\"dwithin\", distance=radius): "
                          f"{ref.count:,} pairs, hash {ref.hash}")
        what = f"{len(tid):,} turbines (radius 0.5–5 km each) × {n:,} premises → pairs .csv"
        out = self.out("N2.meridian.csv")
        args = ["--distance-field", "radius_m", "--unit", "m"]
        m = self.meridian(case, [p["turbines"], p["premises"], *args], out)
        if "error" not in m:
            self.check(case, "meridian", ref, out)
        if "geopandas" in self.args.peers:
            o = self.out("N2.geopandas.csv")
            self.commands["N2 geopandas"] = "n_near.py peer geopandas pairs turbines.gpkg premises.gpkg pairs.csv radius_m"
            r = self.timed(case, "geopandas", self.peer("geopandas", "pairs", p["turbines"], p["premises"], o,
                                                          "radius_m"), self.args.peer_reps, o)
            if "error" not in r:
                self.check(case, "geopandas", ref, o)
            self.row(case, what, m, "geopandas `sjoin(dwithin, distance=array)`", r)
        # A peer whose join is a nested loop over every pair runs on fewer premises, beside Meridian on the same.
        small = self.args.n2_reduced if not self.args.small else n
        small_path = premises_path(self.inputs, small)
        if not os.path.exists(small_path):
            gen(self.inputs, self.size, (small,))
        small_ref, _ = reference(small_path) if small != n else (ref, n)
        note = f" ({small:,} premises)" if small != n else ""
        small_m = m
        if small != n:
            o = self.out("N2.meridian-reduced.csv")
            small_m = self.meridian(case + note, [p["turbines"], small_path, *args], o)
            if "error" not in small_m:
                self.check(case, "meridian", small_ref, o, note)
        small_what = f"{len(tid):,} turbines × {small:,} premises, per-turbine radius"
        if "duckdb" in self.args.peers:
            plan = run_process(self.peer("duckdb", p["turbines"], p["premises"], "-", "radius_m", "explain"), 600)
            ops = json.loads(plan[3].strip().splitlines()[-1])["plan"] if plan[2] == 0 else []
            if "SPATIAL_JOIN" in ops or small == n:
                self.duckdb(case, what, m, ref, p["turbines"], p["premises"], "radius_m", None)
            else:
                self.notes.append(f"N2 DuckDB plan at {n:,} premises: {', '.join(ops)} (no SPATIAL_JOIN): run at "
                                  f"{small:,} premises")
                self.duckdb(case, small_what, small_m, small_ref, p["turbines"], small_path, "radius_m", None, note)
        if self.args.pg:
            self.postgis_planar(case, what, m, ref, p["turbines"], p["premises"], "radius_m", None)

    def n3(self):
        case, p = "N3", self.p
        places, stations = read_points(p["places"])[:2], read_points(p["stations"])[:2]
        sample = self.geo_sample(places[1])
        l, r, d = geodesic_reference(places, stations, sample, N3_M)
        ref = Reference(l, r, d)
        special = np.intersect1d(self.special_ids(places), places[0][sample])
        self.notes.append(f"N3 reference: geographiclib brute force on {len(sample):,} places "
                          f"({len(special):,} of them within 1° of ±180° or 5° of a pole): {ref.count:,} pairs, "
                          f"{int(np.isin(l, special).sum()):,} of them from those places")
        what = f"{len(places[0]):,} places × {len(stations[0]):,} stations worldwide, 50 km geodesic → pairs .csv"
        out = self.out("N3.meridian.csv")
        m = self.meridian(case, ["--geodesic", p["places"], p["stations"], "--distance", "50km"], out)
        full = None
        if "error" not in m:
            self.check(case, "meridian", ref, restrict(out, places[0][sample]), " (the sample)")
            ml, mr, md = read_pairs(out)
            full = Reference(ml, mr, md)
            self.notes.append(f"N3 meridian: {full.count:,} pairs in all, hash {full.hash}")
            floor = self.karney_floor(places, stations, ml, mr, md)
        if self.args.pg:
            tables = self.pg_tables(case, [(p["places"], "n_places"), (p["stations"], "n_stations")],
                                    geography=True)
            if tables is None:
                return
            select = ("SELECT l.id AS id_left, r.id AS id_right, ST_Distance(l.geom, r.geom) AS distance_m, "
                      "ST_AsText(l.geom) AS wkt FROM n_places l JOIN n_stations r "
                      f"ON ST_DWithin(l.geom, r.geom, {N3_M!r})")
            self.notes.append(f"N3 PostGIS plan: {self.pg_explain(select)}")
            o = self.out("N3.postgis.csv")
            pr = self.pg_query(case, select, o)
            if "error" not in pr:
                self.check(case, "postgis", ref, restrict(o, places[0][sample]), " (the sample)")
                if full is not None:
                    self.check(case, "postgis", full, o, " (all pairs, against Meridian's)")
                pr["detail"] = f"query; load {tables[0]:.1f} s and GiST index + ANALYZE {tables[1]:.1f} s apart"
                self.row(case, what, m, "PostGIS geography `ST_DWithin`", pr, 0.1)
                self.row(case, what, m, "PostGIS", dict(pr, seconds=pr["seconds"] + sum(tables),
                                                        detail="load + index + query"), None)
                if floor is not None:
                    self.floor_row(case, floor, pr, 0.1)
            else:
                self.row(case, what, m, "PostGIS geography `ST_DWithin`", pr, 0.1)
            self.pg_drop("n_places", "n_stations")
        else:
            self.row(case, what, m, "—", None)

    def karney_floor(self, places, stations, left, right, distance):
        """Times Karney's inverse alone on Meridian's N3 pairs (bench/c/n3_floor.c: PROJ's geod_geninverse from C,
        one thread) and reports how far Meridian's distances are from PROJ's; the record, or None if no C compiler is
        found."""
        import shutil

        compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("clang")
        if compiler is None:
            self.notes.append("N3 floor: not measured (no C compiler)")
            return None
        binary = os.path.join(self.args.out, "n3_floor")
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "c", "n3_floor.c")
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "proj"], capture_output=True, text=True,
                               check=True).stdout.split()
        subprocess.run([compiler, "-O2", "-Wall", "-Wextra", "-Werror", "-o", binary, source, *flags, "-lm"],
                       check=True)

        def lat_lon(ids, points):
            order = np.argsort(points[0])
            xy = points[1][order[np.searchsorted(points[0], ids, sorter=order)]]
            return xy[:, 1], xy[:, 0]

        (lat1, lon1), (lat2, lon2) = lat_lon(left, places), lat_lon(right, stations)
        path = os.path.join(self.work, "N3.pairs.f64")
        np.column_stack([lat1, lon1, lat2, lon2, distance]).astype(np.float64).tofile(path)
        wall, _, code, out, err, _ = run_process([binary, path, str(max(self.args.reps, 3))], 600)
        if code != 0:
            self.notes.append(f"N3 floor: failed ({err.strip()[-200:]})")
            return None
        r = self.record(**json.loads(out.strip().splitlines()[-1]))
        self.commands["N3 floor"] = f"bench/c/n3_floor.c on Meridian's {r['pairs']:,} pairs (PROJ geod_geninverse)"
        self.notes.append(f"N3 floor: Karney's inverse alone on Meridian's {r['pairs']:,} pairs takes "
                          f"{r['seconds']:.3f} s on one thread ({r['ns_per_pair']:.0f} ns a pair; Meridian's "
                          f"distances differ from PROJ's by at most {r['max_abs_diff']:.3g} m, stated ≤ 1e-06 m)")
        return r

    def floor_row(self, case, floor, peer_result, target):
        """The row of a floor: its time split over the machine's cores (the least wall time any tool making those
        calls could take here) against the peer's time and the case's target."""
        cores = os.cpu_count() or 1
        wall = floor["seconds"] / cores
        ratio = wall / peer_result["seconds"]
        self.rows.append([f"{case} floor", f"Karney's inverse alone for every one of Meridian's {floor['pairs']:,} "
                          f"pairs (C, PROJ), {floor['seconds']:.3f} CPU-s ÷ {cores} cores",
                          f"{wall:.3f} s at best", f"PostGIS {peer_result['seconds']:.3f} s", f"{ratio:.3f}",
                          f"≤ {target}", "met" if ratio <= target else "NOT met", "—", case])

    def geo_sample(self, xy):
        """Every place within 1° of ±180° or 5° of a pole (up to half the sample), the rest at random."""
        rng = np.random.default_rng(806)
        special = np.nonzero((np.abs(xy[:, 0]) >= 179.0) | (np.abs(xy[:, 1]) >= 85.0))[0]
        special = special[:self.s["sample"] // 2]
        rest = np.setdiff1d(np.arange(len(xy)), special)
        return np.sort(np.concatenate([special, rng.choice(rest, self.s["sample"] - len(special), replace=False)]))

    def special_ids(self, places):
        ids, xy = places
        return ids[(np.abs(xy[:, 0]) >= 179.0) | (np.abs(xy[:, 1]) >= 85.0)]

    def n4(self):
        import shapely

        p = self.p
        pid, pxy, _ = read_points(p["premises"])
        tid, txy, _ = read_points(p["turbines"])
        (li, ri), d = shapely.STRtree(shapely.points(txy)).query_nearest(shapely.points(pxy), return_distance=True,
                                                                          all_matches=False)
        ref = Reference(pid[li], tid[ri], d)
        what = f"{len(pid):,} premises → nearest of {len(tid):,} turbines, EPSG:32038 → .csv"
        out = self.out("N4.meridian.csv")
        m = self.meridian("N4", [p["premises"], p["turbines"], "--nearest", "1"], out)
        if "error" not in m:
            self.check("N4", "meridian", ref, out, " (against shapely query_nearest)")
        r = None
        if "geopandas" in self.args.peers:
            o = self.out("N4.geopandas.csv")
            self.commands["N4 geopandas"] = "n_near.py peer geopandas nearest premises.gpkg turbines.gpkg pairs.csv"
            r = self.timed("N4", "geopandas", self.peer("geopandas", "nearest", p["premises"], p["turbines"], o, "-"),
                           self.args.peer_reps, o)
            if "error" not in r:
                self.check("N4", "geopandas", ref, o)
        self.row("N4", what, m, "geopandas `sjoin_nearest`", r)
        # Geodesic: N3's files, checked on the sample with geographiclib; no peer with the same answer.
        places, stations = read_points(p["places"])[:2], read_points(p["stations"])[:2]
        sample = self.geo_sample(places[1])
        gref = Reference(*geodesic_reference(places, stations, sample))
        out = self.out("N4g.meridian.csv")
        m = self.meridian("N4g", ["--geodesic", p["places"], p["stations"], "--nearest", "1"], out)
        if "error" not in m:
            self.check("N4g", "meridian", gref, restrict(out, places[0][sample]),
                       " (the sample, against geographiclib)")
        self.row("N4g", f"{len(places[0]):,} places → nearest of {len(stations[0]):,} stations, geodesic → .csv",
                 m, "—", None)

    def mem(self):
        case = "MEM"
        for n in self.args.mem_sizes:
            path = premises_path(self.inputs, n)
            if not os.path.exists(path):
                gen(self.inputs, self.size, (n,))
            out = self.out("MEM.meridian.csv")
            argv = ["/usr/bin/time", "-v", self.args.cli, "near", path, self.p["turbines"], "--distance", "2km",
                    "--quiet", "-o", out]
            self.commands[f"MEM {n:,}"] = " ".join(shown(a) for a in argv)
            before = load()
            wall, _, code, _, err, _ = run_process(argv, self.args.meridian_timeout)
            if code != 0:
                self.record(case=case, premises=n, error=f"exit {code}: {err.strip()[-300:]}")
                self.rows.append([case, f"{n:,} premises", "failed", "—", "—", "≤ 1.5 GB", "—", f"{before:.1f}", case])
                continue
            kb = int(next(l for l in err.splitlines() if "Maximum resident set size" in l).split()[-1])
            pairs = sum(1 for _ in open(out)) - 1
            self.record(case=case, premises=n, seconds=wall, peak_rss_mb=kb / 1024, pairs=pairs)
            self.rows.append([f"MEM {n:,}", f"`meridian near` {n:,} premises × {self.s['turbines']:,} turbines, 2 km "
                              f"({pairs:,} pairs)", f"{wall:.1f} s, **{kb / 1024:.0f} MiB** peak RSS", "—", "—",
                              "≤ 1.5 GB at 10M", "met" if kb * 1024 <= 1.5e9 else "NOT met",
                              f"{before:.1f} → {load():.1f}", f"MEM {n:,}"])
            os.remove(out)

    def table(self):
        lines = ["| Case | Input → output | Meridian | Peer | Meridian / peer | Target | Met? | Load | Cmd |",
                 "|---|---|---|---|---|---|---|---|---|"]
        lines += ["| " + " | ".join(r) + " |" for r in self.rows]
        lines += ["", "Checks:", ""] + [f"- {n}" for n in self.notes]
        lines += ["", "Commands:", ""] + [f"- {k}: `{v}`" for k, v in self.commands.items()]
        text = "\n".join(lines) + "\n"
        with open(os.path.join(self.args.out, "near-table.md"), "w") as f:
            f.write(text)
        print(text)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "peer":
        tool, rest = sys.argv[2], sys.argv[3:]
        if tool == "geopandas":
            peer_geopandas(*rest)
        else:
            peer_duckdb(*rest[:4], explain=rest[4:] == ["explain"])
        return
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("cases", nargs="*", default=["N1", "N2", "N3", "N4"])
    a.add_argument("--small", action="store_true", help="a few thousand points: checks the harness in < 1 min")
    a.add_argument("--reps", type=int, default=3, help="runs of each Meridian command (the median is reported)")
    a.add_argument("--peer-reps", type=int, default=1)
    a.add_argument("--cli", default=os.path.join(HERE, "../../.build/release/meridian"))
    a.add_argument("--pg", default=os.environ.get("MERIDIAN_PG"), help="PostGIS as an OGR PG: string (none: skipped)")
    a.add_argument("--peers", default="geopandas,duckdb")
    a.add_argument("--out", default=os.path.join(HERE, "../out"))
    a.add_argument("--peer-timeout", type=float, default=600.0)
    a.add_argument("--meridian-timeout", type=float, default=1800.0)
    a.add_argument("--n2-reduced", type=int, default=100_000, help="premises for a peer whose N2 join is a nested loop")
    a.add_argument("--mem-sizes", type=int, nargs="*", help="premises for MEM (default 10M; 200k with --small)")
    args = a.parse_args()
    args.out, args.cli = os.path.abspath(args.out), os.path.abspath(args.cli)
    args.peers = args.peers.split(",")
    if args.mem_sizes is None:
        args.mem_sizes = [200_000] if args.small else [10_000_000]
    h = Harness(args)
    gen(h.inputs, h.size)
    for c in args.cases:
        getattr(h, c.lower())()
    h.table()
    sys.exit(0 if h.ok else 1)


if __name__ == "__main__":
    main()
