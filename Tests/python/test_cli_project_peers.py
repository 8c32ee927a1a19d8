"""`meridian project` against pyproj (PROJ's Python binding, with its own PROJ build) on random points, and the
rule that a datum grid present under PROJ_DATA is used while its absence falls back to a coarser operation.

Tolerances: 4326->3857 and 4267->32038 are pure conversions (no datum shift): the formulas are exact to ~1e-9 m,
so the two PROJ builds must agree to 1e-6 m / 1e-6 ft. 4326->32038 includes a NAD27 datum shift; both builds pick
the same Helmert operation (no NADCON grid), so they agree to 1e-6 ft as well; we also check the operation name.
"""
import csv
import io
import os
import pathlib
import re
import shutil
import subprocess

import numpy as np
import pytest
from pyproj import Transformer


def _random_csv(n, seed, lon_range, lat_range):
    rng = np.random.default_rng(seed)
    lon = rng.uniform(*lon_range, n)
    lat = rng.uniform(*lat_range, n)
    text = "lon,lat,i\n" + "".join(f"{float(x)!r},{float(y)!r},{i}\n" for i, (x, y) in enumerate(zip(lon, lat)))
    return text, lon, lat


@pytest.mark.parametrize("source,target,lon_range,lat_range,tol", [
    ("EPSG:4326", "EPSG:3857", (-180, 180), (-85, 85), 1e-6),
    ("EPSG:4267", "EPSG:32038", (-103, -94), (31.72, 34.58), 1e-6),
    ("EPSG:4326", "EPSG:32038", (-103, -94), (31.72, 34.58), 1e-6),
])
def test_project_matches_pyproj(meridian, source, target, lon_range, lat_range, tol):
    text, lon, lat = _random_csv(2000, 7, lon_range, lat_range)
    out = subprocess.run([meridian, "project", "--from", source, "--to", target], input=text,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert len(rows) == len(lon)
    assert [int(r["i"]) for r in rows] == list(range(len(lon)))
    x = np.array([float(r["x"]) for r in rows])
    y = np.array([float(r["y"]) for r in rows])
    px, py = Transformer.from_crs(source, target, always_xy=True).transform(lon, lat)
    # Output is printed with 4 decimals: allow half a unit in the last place on top of the tolerance.
    assert np.max(np.abs(x - px)) < tol + 5e-5
    assert np.max(np.abs(y - py)) < tol + 5e-5
    assert "operation:" in out.stderr


def _ntf_to_rgf93(meridian, env):
    # Paris, NTF (EPSG:4275) -> RGF93 v1 (EPSG:4171): France's grid ntf_r93.gsb ships with Debian's proj-data.
    return subprocess.run([meridian, "project", "--from", "EPSG:4275", "--to", "EPSG:4171"],
                          input="lon,lat\n2.35,48.85\n", capture_output=True, text=True, timeout=60, env=env)


def test_grid_under_proj_data_is_used_and_its_absence_reported(meridian, tmp_path):
    with_grid = _ntf_to_rgf93(meridian, dict(os.environ))
    assert with_grid.returncode == 0, with_grid.stderr
    # EPSG:15958 "RGF93 v1 to NTF (2)" is the hgridshift through ntf_r93.gsb, 1 m accuracy.
    assert "RGF93 v1 to NTF (2)" in with_grid.stderr
    assert "accuracy: 1.0 m" in with_grid.stderr

    # The same request with a PROJ_DATA that has proj.db but not the grid: PROJ falls back to a Helmert shift
    # with a coarser accuracy, and Meridian says so instead of hiding it.
    data = pathlib.Path("/usr/share/proj")
    for name in ("proj.db", "proj.ini"):
        shutil.copy(data / name, tmp_path / name)
    without = _ntf_to_rgf93(meridian, dict(os.environ, PROJ_DATA=str(tmp_path), PROJ_LIB=str(tmp_path)))
    assert without.returncode == 0, without.stderr
    assert "RGF93 v1 to NTF (2)" not in without.stderr
    accuracy = float(without.stderr.split("accuracy: ")[1].split(" m")[0])
    assert accuracy > 1.0
    # The two answers differ by the Helmert's error (decimetres to metres), far above the grid's noise.
    a = [float(v) for v in with_grid.stdout.splitlines()[1].split(",")]
    b = [float(v) for v in without.stdout.splitlines()[1].split(",")]
    assert a != b


# --- Datum transformations: listing and choosing one ------------------------------------------------------------
# Peer: pyproj's TransformerGroup lists the operations of its own PROJ build (9.4 with a newer EPSG database than
# Debian's PROJ 9.1), so the lists are compared on the operations both know; coordinates from the same operation
# must agree to 1e-9 degrees (0.1 mm): the same Helmert or grid formula evaluated by two builds differs only by
# floating-point rounding (~1e-12 deg), and Meridian's GeoJSON output is written shortest round-trip.

import json
import re

import pyproj.datadir
from pyproj.transformer import TransformerGroup


@pytest.fixture
def debian_grids():
    """pyproj with Debian's proj-data grids on its search path (after its own data, whose proj.db it needs), so
    that both builds see the same grid files; restored afterwards."""
    before = pyproj.datadir.get_data_dir()
    pyproj.datadir.append_data_dir(os.environ.get("PROJ_DATA", "/usr/share/proj"))
    yield
    pyproj.datadir.set_data_dir(before)

PAIRS = [("EPSG:4267", "EPSG:4326"),   # NAD27: 79 operations, Helmert shifts and NADCON/NTv2 grids
         ("EPSG:4230", "EPSG:4326"),   # ED50
         ("EPSG:4277", "EPSG:4326"),   # OSGB36
         ("EPSG:4301", "EPSG:4326"),   # Tokyo
         ("EPSG:4275", "EPSG:4171")]   # NTF -> RGF93 v1 (the grid ntf_r93.gsb ships with proj-data)


def _listed(meridian, source, target):
    out = subprocess.run([meridian, "project", "--list-transformations", "--from", source, "--to", target, "--json"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _pyproj_name(t):
    # pyproj reports the operation with its axis-order steps around it: "axis order change (2D) + X + axis order ...".
    return re.sub(r"^(axis order change \(2D\) \+ )?(.*?)( \+ axis order change \(2D\))?$", r"\2", t.description)


# pyproj warns that the best operation needs a grid it lacks: that is the point of listing them all.
@pytest.mark.filterwarnings("ignore:Best transformation is not available")
@pytest.mark.parametrize("source,target", PAIRS)
def test_listed_transformations_match_pyproj(meridian, source, target, debian_grids):
    ours = _listed(meridian, source, target)
    assert [t["number"] for t in ours] == list(range(1, len(ours) + 1))
    group = TransformerGroup(source, target, always_xy=True)
    theirs = {_pyproj_name(t): t.accuracy for t in group.transformers}
    theirs.update({t.name: t.accuracy for t in group.unavailable_operations})
    available = {_pyproj_name(t) for t in group.transformers}
    names = [t["name"] for t in ours]
    common = set(names) & set(theirs)
    # The EPSG databases differ by a few years: most operations must be common, and each common one must have the
    # same accuracy (an EPSG attribute, independent of the build).
    assert len(common) >= 0.8 * max(len(ours), 1) and len(common) >= 1, (sorted(set(names) ^ set(theirs)))
    for t in ours:
        if t["name"] in common and t["accuracy"] is not None and theirs[t["name"]] not in (None, -1):
            assert abs(t["accuracy"] - theirs[t["name"]]) < 1e-9, t["name"]
        assert t["pipeline"].startswith("+proj="), t
        if t["name"] in common:   # the same grid files on both sides: the same verdict on what can run
            assert t["available"] == (t["name"] in available), t
    if source == "EPSG:4275":
        assert any(t["available"] and "grids=" in t["pipeline"] for t in ours), "ntf_r93 from proj-data not seen"


@pytest.mark.filterwarnings("ignore:Best transformation is not available")
@pytest.mark.parametrize("source,target", PAIRS)
def test_each_available_transformation_runs_as_pyproj_runs_it(meridian, source, target, tmp_path, debian_grids):
    ours = _listed(meridian, source, target)
    group = TransformerGroup(source, target, always_xy=True)
    peer = {_pyproj_name(t): t for t in group.transformers}
    checked = 0
    for t in ours:
        if not t["available"] or t["name"] not in peer or t["areaOfUse"] is None:
            continue
        a = t["areaOfUse"]
        if a["west"] > a["east"]:   # crossing the antimeridian: not among these pairs' operations
            continue
        rng = np.random.default_rng(t["number"])
        # Points inside the operation's area of use, 10 % in from its edges.
        w, e, s, n = a["west"], a["east"], a["south"], a["north"]
        lon = rng.uniform(w + 0.1 * (e - w), e - 0.1 * (e - w), 10)
        lat = rng.uniform(s + 0.1 * (n - s), n - 0.1 * (n - s), 10)
        # GeoJSON input is WGS84 by definition (RFC 7946): give the points as WKT in the source instead.
        wkt = "MULTIPOINT (" + ", ".join(f"({float(x)!r} {float(y)!r})" for x, y in zip(lon, lat)) + ")\n"
        src = tmp_path / f"{t['number']}.wkt"
        src.write_text(wkt)
        out = subprocess.run([meridian, "project", str(src), "--from", source, "--to", target, "--transformation",
                              str(t["number"]), "--allow-outside-area", "-o", str(tmp_path / "out.wkt")],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, (t["name"], out.stderr)
        assert f"operation: {t['name']}" in out.stderr
        got = np.array([[float(v) for v in p.split()] for p in
                        re.findall(r"\(([^()]+)\)", (tmp_path / "out.wkt").read_text())])
        px, py = peer[t["name"]].transform(lon, lat)
        assert got.shape == (10, 2), (tmp_path / "out.wkt").read_text()[:200]
        assert np.max(np.abs(got[:, 0] - px)) < 1e-9 and np.max(np.abs(got[:, 1] - py)) < 1e-9, t["name"]
        checked += 1
    assert checked >= 1, "no operation available in both builds"


def test_transformation_choice_errors(meridian, tmp_path):
    src = tmp_path / "p.csv"
    src.write_text("lon,lat\n-96.797,32.7767\n")
    ours = _listed(meridian, "EPSG:4267", "EPSG:4326")
    run = lambda *a: subprocess.run([meridian, "project", str(src), "--from", "EPSG:4267", "--to", "EPSG:4326", *a],
                                    capture_output=True, text=True, timeout=60)
    missing = run("--transformation", str(len(ours) + 1))
    assert missing.returncode == 2 and f"there are {len(ours)}" in missing.stderr and missing.stdout == ""
    unknown = run("--transformation", "no such\x1b[2Jname")
    assert unknown.returncode == 2 and "\x1b" not in unknown.stderr and "\\u{1B}" in unknown.stderr
    grid = next((t for t in ours if not t["available"]), None)
    if grid is not None:   # NADCON5/ntv2 grids are not in Debian's proj-data
        refused = run("--transformation", str(grid["number"]))
        assert refused.returncode == 1 and "needs a grid" in refused.stderr and refused.stdout == ""
    by_name = run("--transformation", "NAD27 to WGS 84 (4)")
    by_number = run("--transformation", str(next(t["number"] for t in ours if t["name"] == "NAD27 to WGS 84 (4)")))
    assert by_name.returncode == 0 and by_name.stdout == by_number.stdout
    default = run()
    assert default.stdout != by_name.stdout, "NAD27 to WGS 84 (4) is not PROJ's choice for Dallas, (6) is"
    listing = subprocess.run([meridian, "project", "--list-transformations", "--from", "EPSG:4267", "--to",
                              "EPSG:4326", str(src)], capture_output=True, text=True, timeout=60)
    assert listing.returncode == 2


@pytest.mark.parametrize("source,target,lon_range,lat_range", [
    ("EPSG:4326", "EPSG:32038", (-103, -94), (31.72, 34.58)),  # degrees in, US survey feet out (4 decimals)
    ("EPSG:32038", "EPSG:4267", (-103, -94), (31.72, 34.58)),  # feet in, degrees out (9 decimals)
    ("EPSG:3857", "EPSG:4326", (-180, 180), (-85, 85)),        # metres in, degrees out
    ("EPSG:4267", "EPSG:4326", (-103, -94), (31.72, 34.58)),   # degrees in and out (a datum shift)
])
def test_project_writes_pyproj_numbers_at_the_written_precision(meridian, source, target, lon_range, lat_range):
    """Both directions, every written number against pyproj (not through a back-projection): each coordinate has
    exactly the decimals `project` writes (9 for degrees, 4 for projected units) and is pyproj's value rounded to
    them, within half a unit in the last place plus the two PROJ builds' agreement (1e-6 of a projected unit, about
    1e-11 degree; see the module's tolerances). A doubled quote and a comma in a field are carried through as they
    were read (no command was checked with one before)."""
    rng = np.random.default_rng(11)
    lon, lat = rng.uniform(*lon_range, 1500), rng.uniform(*lat_range, 1500)
    source_is_geographic = source in ("EPSG:4326", "EPSG:4267")
    if source_is_geographic:
        a, b, header = lon, lat, "lon,lat"
    else:
        a, b = Transformer.from_crs("EPSG:4326", source, always_xy=True).transform(lon, lat)
        header = "x,y"
    names = [f'say ""{i}"", then, go' for i in range(len(a))]
    text = f"{header},name\n" + "".join(f'{float(x)!r},{float(y)!r},"{n}"\n' for x, y, n in zip(a, b, names))
    out = subprocess.run([meridian, "project", "--from", source, "--to", target], input=text,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    rows = list(csv.reader(io.StringIO(out.stdout)))
    target_is_geographic = target in ("EPSG:4326", "EPSG:4267")
    assert rows[0] == (["lon", "lat", "name"] if target_is_geographic else ["x", "y", "name"])
    rows = rows[1:]
    assert len(rows) == len(a)
    assert [r[2] for r in rows] == [n.replace('""', '"') for n in names]
    decimals = 9 if target_is_geographic else 4
    pattern = re.compile(r"^-?\d+\.\d{%d}$" % decimals)
    assert all(pattern.match(r[0]) and pattern.match(r[1]) for r in rows), rows[:3]
    px, py = Transformer.from_crs(source, target, always_xy=True).transform(a, b)
    agreement = 1e-11 if target_is_geographic else 1e-6
    bound = 0.5 * 10.0 ** -decimals + agreement
    for written, expected in ((np.array([float(r[0]) for r in rows]), px), (np.array([float(r[1]) for r in rows]), py)):
        worst = np.max(np.abs(written - expected))
        assert worst <= bound, f"{source} -> {target}: off by {worst!r} (bound {bound!r})"
