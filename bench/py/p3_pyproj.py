"""P3 peer: pyproj Transformer on numpy arrays. Usage: p3_pyproj.py EPSG REPS INPUTDIR [MERIDIAN_OUTPUT.xy]"""
import sys

import numpy as np
from pyproj import Transformer

import common

epsg, reps, indir = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
xy = np.fromfile(f"{indir}/P3.xy", dtype="<f8").reshape(-1, 2)
lon, lat = xy[:, 0].copy(), xy[:, 1].copy()


def run():
    t = Transformer.from_crs(4326, epsg, always_xy=True)
    return t.transform(lon, lat)


times, (x, y) = common.timed(run, reps)
record = {"case": f"P3 4326->{epsg}", "tool": "pyproj Transformer", "times": times, "count": int(x.size)}
if len(sys.argv) > 4:
    m = np.fromfile(sys.argv[4], dtype="<f8").reshape(-1, 2)
    record["max_abs_diff"] = float(max(np.max(np.abs(m[:, 0] - x)), np.max(np.abs(m[:, 1] - y))))
common.emit(record)
