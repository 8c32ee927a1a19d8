"""P2 peer: pyproj Geod.fwd, vectorised: 10k WGS84 points, 10 km radius, VERTICES vertices per circle (bench/run
passes Meridian's mean adaptive vertex count, so both produce as many vertices). Usage: p2_pyproj.py REPS INPUTDIR [VERTICES]"""
import sys

import numpy as np
from pyproj import Geod

import common

reps, indir = int(sys.argv[1]), sys.argv[2]
xy = np.fromfile(f"{indir}/P2.xy", dtype="<f8").reshape(-1, 2)
VERTICES = int(sys.argv[3]) if len(sys.argv) > 3 else 64
RADIUS = 10_000.0


def run():
    geod = Geod(ellps="WGS84")
    n = xy.shape[0]
    lon = np.repeat(xy[:, 0], VERTICES)
    lat = np.repeat(xy[:, 1], VERTICES)
    az = np.tile(np.linspace(360.0, 0.0, VERTICES, endpoint=False), n)  # counter-clockwise rings
    lo, la, _ = geod.fwd(lon, lat, az, np.full(lon.size, RADIUS))
    return lo.reshape(n, VERTICES), la.reshape(n, VERTICES)


times, (lo, la) = common.timed(run, reps)
common.emit({"case": "P2", "tool": "pyproj Geod.fwd", "times": times, "circles": int(lo.shape[0]),
             "vertices": int(lo.size), "vertices_per_circle": VERTICES})
