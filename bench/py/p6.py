"""P6: N points in a GeoPackage, a shapefile and a FlatGeobuf (EPSG:5070, metres) → a 500 m round buffer
(64-gon) around each → their union → written in the same format, as a GIS user runs it on their own files. The
points are uniform in a square sized so that a buffer overlaps one other on average (N·π·(2r)² = side²), centred in
the contiguous US. The inputs are written by pyogrio (GDAL 3.12 of its wheel), not by Meridian.

    p6.py gen N DIR                     writes DIR/P6-N.{gpkg,shp,fgb,csv} (fixed seed; the CSV has the same x,y)
    p6.py run TOOL FORMAT N REPS DIR    runs TOOL REPS times on DIR/P6-N.FORMAT, each run a fresh process timed from
                                        start to exit, and prints one JSON line: wall times, the largest peak RSS of
                                        the runs (wait4), and the output's area in m² (read back with pyogrio)
        TOOL: "meridian BIN" (the CLI: meridian buffer IN --srs EPSG:5070 --distance 500m --union -o OUT),
              "meridian-library BENCH" (meridian-bench p6: the same through the library; times split by phase),
              geopandas | geopandas-disjoint (pyogrio read_dataframe, buffer, union_all() or
              union_all(method="disjoint_subset"), write_dataframe)
    p6.py postgis N REPS DIR PGCONN     loads DIR/P6-N.gpkg into PostGIS (ogr2ogr, not timed) and times
                                        CREATE TABLE … AS SELECT ST_Union(ST_Buffer(geom, 500, 'quad_segs=16')) inside
                                        the database (psql, each run a fresh process); prints one JSON line
"""
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np

R_M = 500.0
CENTRE = (0.0, 1_500_000.0)  # EPSG:5070 (CONUS Albers), about 96° W 36.5° N
HERE = os.path.dirname(os.path.abspath(__file__))
FORMATS = ("gpkg", "shp", "fgb")


def side(n):
    return (n * np.pi * (2 * R_M) ** 2) ** 0.5


def gen(n, folder):
    import pyogrio
    import shapely

    rng = np.random.default_rng(600 + int(np.log10(n)))
    xy = rng.uniform(-side(n) / 2, side(n) / 2, size=(n, 2)) + CENTRE
    wkb = shapely.to_wkb(shapely.points(xy))
    ids = np.arange(n, dtype=np.int64)
    for fmt in FORMATS:
        path = os.path.join(folder, f"P6-{n}.{fmt}")
        for ext in ("gpkg", "fgb", "shp", "shx", "dbf", "prj", "cpg"):
            stale = os.path.join(folder, f"P6-{n}.{ext}")
            if stale.endswith(fmt) or (fmt == "shp" and ext in ("shx", "dbf", "prj", "cpg")):
                if os.path.exists(stale):
                    os.remove(stale)
        options = {"SPATIAL_INDEX": "NO"} if fmt == "fgb" else {}
        pyogrio.raw.write(path, wkb, [ids], ["id"], geometry_type="Point", crs="EPSG:5070", layer=f"P6-{n}",
                          driver={"gpkg": "GPKG", "shp": "ESRI Shapefile", "fgb": "FlatGeobuf"}[fmt],
                          layer_options=options)
    with open(os.path.join(folder, f"P6-{n}.csv"), "w") as f:
        f.write("id,x,y\n")
        for i, (x, y) in enumerate(xy.tolist()):
            f.write(f"{i},{x!r},{y!r}\n")


def command(tool, fmt, src, out):
    if tool.startswith("meridian-library"):
        return [tool.split(" ", 1)[1], "p6", src, out, repr(R_M), "1"]
    if tool.startswith("meridian"):
        return [tool.split(" ", 1)[1], "buffer", src, "--srs", "EPSG:5070", "--distance", f"{R_M}m", "--union", "--quiet",
                "-o", out]
    method = "disjoint_subset" if tool == "geopandas-disjoint" else "unary"
    return [sys.executable, os.path.join(HERE, "p6_geopandas.py"), src, out, repr(R_M), method]


def area(path):
    """The output's area in m², read back with pyogrio (an independent reader)."""
    import pyogrio
    import shapely

    _, _, wkb, _ = pyogrio.raw.read(path)
    return float(shapely.area(shapely.from_wkb(wkb)).sum())


def remove(path):
    base, ext = os.path.splitext(path)
    for e in ([".shp", ".shx", ".dbf", ".prj", ".cpg"] if ext == ".shp" else [ext]):
        if os.path.exists(base + e):
            os.remove(base + e)


def run(tool, fmt, n, reps, folder):
    src = os.path.join(folder, f"P6-{n}.{fmt}")
    name = tool.split(" ")[0]
    out = os.path.join(folder, f"P6-{n}.out-{name}.{fmt}")
    times, peak, record = [], 0.0, {}
    for _ in range(reps):
        remove(out)
        t0 = time.perf_counter()
        p = subprocess.Popen(command(tool, fmt, src, out), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        times.append(time.perf_counter() - t0)
        stdout, err = p.stdout.read().decode(errors="replace"), p.stderr.read().decode(errors="replace")
        if os.waitstatus_to_exitcode(status) != 0:
            print(json.dumps({"tool": name, "error": f"exit {os.waitstatus_to_exitcode(status)}: {err.strip()[-300:]}"}))
            return
        peak = max(peak, usage.ru_maxrss / 1024.0)
        if name == "meridian-library" and stdout.strip():
            record = json.loads(stdout.strip().splitlines()[-1])
    line = {"tool": name, "times": times, "peak_rss_mb": round(peak, 1), "area": area(out), "points": n,
            "format": fmt}
    for phase in ("read", "union", "write"):
        if phase in record:
            line[phase] = record[phase]
    print(json.dumps(line), flush=True)
    remove(out)


APP = f"meridian-p6-{os.getpid()}"  # psql's application_name for the timed query, to find its backend


def psql(conn, sql, timeout=None, app="meridian-p6-admin"):
    """Runs SQL with psql over the connection of an OGR `PG:` string (its keyword/value part). A query that passes
    `timeout` seconds has its server backend terminated (killing psql alone leaves the query running in the
    server, where it took a core from the next benchmarks) and raises `subprocess.TimeoutExpired`."""
    env = dict(os.environ, PGAPPNAME=app)
    p = subprocess.Popen(["psql", conn.removeprefix("PG:"), "-v", "ON_ERROR_STOP=1", "-qAt", "-c", sql],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        terminate(conn, app)
        raise
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def terminate(conn, app):
    """Ends the server backends of the psql sessions named `app` (their queries with them). A backend inside GEOS's
    union does not look at its interrupts until the union returns (pg_terminate_backend alone left the query of
    the 06:00 UTC run of 2 December 2026 running beside the next benchmarks), so a backend still there 2 s later
    is killed (the private bench server restarts its other backends)."""
    env = dict(os.environ, PGAPPNAME="meridian-p6-admin")
    listed = subprocess.run(["psql", conn.removeprefix("PG:"), "-qAt", "-c",
                             f"SELECT pid FROM pg_stat_activity WHERE application_name = '{app}'"],
                            capture_output=True, text=True, env=env)
    pids = [int(p) for p in listed.stdout.split() if p.isdigit()]
    subprocess.run(["psql", conn.removeprefix("PG:"), "-qAt", "-c",
                    f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '{app}'"],
                   capture_output=True, text=True, env=env)
    deadline = time.monotonic() + 2
    while pids and time.monotonic() < deadline:
        pids = [p for p in pids if os.path.exists(f"/proc/{p}")]
        time.sleep(0.1)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def postgis(n, reps, folder, conn):
    src = os.path.join(folder, f"P6-{n}.gpkg")
    table = f"p6_points_{n}"
    load = subprocess.run(["ogr2ogr", "-f", "PostgreSQL", conn, src, "-nln", table, "-overwrite",
                           "-lco", "GEOMETRY_NAME=geom", "-lco", "SPATIAL_INDEX=NONE"], capture_output=True, text=True)
    if load.returncode != 0:
        print(json.dumps({"tool": "postgis", "error": f"load: {load.stderr.strip()[-300:]}"}))
        return
    psql(conn, f"VACUUM ANALYZE {table}")
    sql = (f"DROP TABLE IF EXISTS p6_union; CREATE TABLE p6_union AS "
           f"SELECT ST_Union(ST_Buffer(geom, {R_M!r}, 'quad_segs=16')) AS geom FROM {table}")
    # bench/run's `timeout` ends this script with SIGTERM: its query is ended in the server too. P6_PEER_TIMEOUT
    # (bench/run's limit for the peers) bounds the query itself a little earlier.
    signal.signal(signal.SIGTERM, lambda *_: (terminate(conn, APP), sys.exit(124)))
    limit = float(os.environ.get("P6_PEER_TIMEOUT", "900")) - 5
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        try:
            r = psql(conn, sql, timeout=limit, app=APP)
        except subprocess.TimeoutExpired:
            print(json.dumps({"tool": "postgis", "timeout": limit}), flush=True)
            psql(conn, f"DROP TABLE IF EXISTS p6_union; DROP TABLE IF EXISTS {table}")
            return
        times.append(time.perf_counter() - t0)
        if r.returncode != 0:
            print(json.dumps({"tool": "postgis", "error": r.stderr.strip()[-300:]}))
            return
    a = psql(conn, "SELECT ST_Area(geom) FROM p6_union")
    psql(conn, f"DROP TABLE IF EXISTS p6_union; DROP TABLE IF EXISTS {table}")
    print(json.dumps({"tool": "postgis", "times": times, "area": float(a.stdout.strip() or "nan"), "points": n,
                      "format": "table"}), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(int(sys.argv[2]), sys.argv[3])
    elif sys.argv[1] == "postgis":
        postgis(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5])
    else:
        run(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
