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
