"""Writes the benchmark inputs as raw little-endian float64 (x, y) pairs: `gen.py OUTDIR`."""
import os
import sys

import common

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for case in common.P1_CASES:
    common.p1_points(case).astype("<f8").tofile(os.path.join(out, f"{case}.xy"))
common.p2_points().astype("<f8").tofile(os.path.join(out, "P2.xy"))
common.p3_points().astype("<f8").tofile(os.path.join(out, "P3.xy"))
base, jitter = common.p4_data()
base.astype("<f8").tofile(os.path.join(out, "P4-base.xy"))
jitter.astype("<f8").tofile(os.path.join(out, "P4-offsets.xy"))
