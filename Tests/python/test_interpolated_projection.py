"""`meridian project` through the interpolated projection against pyproj, vertex by vertex, at full
precision: WKT output is written with shortest round-trip decimals, so the text adds nothing to the comparison.

Meridian interpolates every smooth PROJ operation tile by tile from PROJ's own values (checked against PROJ at 25
more points per tile to 1e-11 degrees into geographic targets and 1 micrometre into projected ones). The reference is
pyproj's Transformer, which bundles its own PROJ build (9.5 here against Debian's 9.1.1): the two builds run the same
operations (the same NAD27 Helmert "NAD27 to WGS 84 (6)" in Texas; no grids), so what they differ by is floating-point
noise, measured at under 1e-13 degrees and 1e-8 ft. The tolerance is the interpolation's bound (1e-11 degrees or
1e-6 m in the target's unit) plus 1e-12 degrees or 1e-8 m for that noise: a wrong tile, coefficient or operation
would be off by far more (a datum shift picked wrongly moves a vertex by metres; a tile evaluated with its
neighbour's interpolant, by up to its whole width).

Pairs: both directions (geographic to projected and back), the seed's EPSG:32038 (a datum shift chosen point by point
among several Helmert candidates; over its area of use and out to its horizon, the area widened by 5 degrees), Web Mercator, CONUS Albers, a UTM zone, NAD27 to WGS 84 in degrees (Helmert only)
and a concatenated operation (NAD27 Texas North Central to NAD83 Texas Central, US feet to US feet).
"""
import re
import subprocess

import numpy as np
import pytest
from pyproj import Transformer

US_FT = 1200 / 3937

# source, target, lon range, lat range of the points (inside the areas of use of both ends), metres per target unit
# (0 for degrees).
PAIRS = [
    ("EPSG:4326", "EPSG:32038", (-103.0, -94.1), (31.8, 34.5), US_FT),
    ("EPSG:32038", "EPSG:4326", (-103.0, -94.1), (31.8, 34.5), 0),
    # Out to the horizon (area of use + 5°), but west of 90°W: east of it PROJ itself runs NAD27 to WGS 84 (4) one way
    # and (6) the other (their boxes in the two spatial references differ), metres apart, and `project` refuses such
    # points as outside the projection's domain.
    ("EPSG:4326", "EPSG:32038", (-107.9, -90.0), (26.8, 39.5), US_FT),
    ("EPSG:32038", "EPSG:4326", (-107.9, -90.0), (26.8, 39.5), 0),
    ("EPSG:4326", "EPSG:3857", (-120.0, -70.0), (-60.0, 70.0), 1.0),
    ("EPSG:3857", "EPSG:4326", (-120.0, -70.0), (-60.0, 70.0), 0),
    ("EPSG:5070", "EPSG:4326", (-124.0, -67.0), (25.0, 49.0), 0),
    ("EPSG:4326", "EPSG:5070", (-124.0, -67.0), (25.0, 49.0), 1.0),
    ("EPSG:32614", "EPSG:4326", (-101.5, -96.5), (5.0, 80.0), 0),
    ("EPSG:4267", "EPSG:4326", (-103.0, -94.1), (31.8, 34.5), 0),
    ("EPSG:32038", "EPSG:2277", (-100.5, -96.5), (31.8, 32.5), US_FT),
]


def _points(source, lon_range, lat_range, n=6000, seed=29):
    """n random points in the lon/lat box and its corners and edge middles, in `source`'s coordinates."""
    rng = np.random.default_rng(seed)
    lon = np.concatenate([rng.uniform(*lon_range, n), np.repeat(np.linspace(*lon_range, 3), 3)])
    lat = np.concatenate([rng.uniform(*lat_range, n), np.tile(np.linspace(*lat_range, 3), 3)])
    if source == "EPSG:4326":
        return lon, lat
    x, y = Transformer.from_crs("EPSG:4326", source, always_xy=True).transform(lon, lat)
    return np.asarray(x), np.asarray(y)


def _wkt_multipoints(x, y, per_line=1000):
    lines = []
    for start in range(0, len(x), per_line):
        chunk = zip(x[start:start + per_line].tolist(), y[start:start + per_line].tolist())
        pts = ", ".join(f"{a!r} {b!r}" for a, b in chunk)
        lines.append(f"MULTIPOINT ({pts})")
    return "\n".join(lines) + "\n"


def _parse_wkt(text):
    numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text.replace("MULTIPOINT", ""))]
    a = np.array(numbers).reshape(-1, 2)
    return a[:, 0], a[:, 1]


@pytest.mark.parametrize("source,target,lon_range,lat_range,metres", PAIRS)
def test_interpolated_vertices_within_the_bound_of_pyproj(meridian, tmp_path, source, target, lon_range,
                                                          lat_range, metres):
    x, y = _points(source, lon_range, lat_range)
    (tmp_path / "in.wkt").write_text(_wkt_multipoints(x, y))
    out = subprocess.run([meridian, "project", str(tmp_path / "in.wkt"), "--from", source, "--to", target,
                          "-o", str(tmp_path / "out.wkt"), "--allow-outside-area"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    mx, my = _parse_wkt((tmp_path / "out.wkt").read_text())
    assert mx.size == x.size
    px, py = Transformer.from_crs(source, target, always_xy=True).transform(x, y)
    worst = float(max(np.max(np.abs(mx - px)), np.max(np.abs(my - py))))
    tolerance = 1e-11 + 1e-12 if metres == 0 else (1e-6 + 1e-8) / metres
    assert worst <= tolerance, f"{source} -> {target}: a vertex is {worst:.3g} from pyproj's (tolerance {tolerance:.3g})"
