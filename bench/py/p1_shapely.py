"""P1 peer: shapely vectorised buffer, then union_all or disjoint_subset_union_all.

Usage: p1_shapely.py CASE METHOD REPS INPUTDIR   (METHOD: union_all | disjoint_subset_union_all)
"""
import sys

import numpy as np
import shapely

import common

case, method, reps, indir = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
n, radius, _ = common.P1_CASES[case]
xy = np.fromfile(f"{indir}/{case}.xy", dtype="<f8").reshape(-1, 2)
union = getattr(shapely, method)


def run():
    points = shapely.points(xy)
    buffers = shapely.buffer(points, radius, quad_segs=16)
    return union(buffers)


times, result = common.timed(run, reps, budget=60.0)
polys = list(result.geoms) if result.geom_type == "MultiPolygon" else [result]
common.emit({
    "case": case, "tool": f"shapely {method}", "times": times,
    "area": result.area, "parts": len(polys),
    "holes": sum(len(p.interiors) for p in polys),
    "vertices": int(shapely.get_num_coordinates(result)),
    "valid": bool(shapely.is_valid(result)),
})
