"""bench/py/d_cases.py's `summary` (the check that D1 and D2's meridian-dask results equal one process's)
counts the parts and holes of a WKT multipolygon it reads a block at a time. Its counts must not depend on where the
blocks end: D1 (10 M points) once reported one process's union with one part more and one hole fewer than
meridian-dask's, though the two files held the same rings, because a block that ended inside a part separator
")), ((" lost that separator. Compared here with shapely's reading of the same text, for block sizes that put the
block ends everywhere in the text (every separator, every number)."""
import importlib.util
import pathlib

import numpy as np
import shapely

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load_d_cases():
    spec = importlib.util.spec_from_file_location("d_cases", ROOT / "bench" / "py" / "d_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_summary_counts_do_not_depend_on_the_block_size(tmp_path):
    # Parts with and without holes, in an order that mixes them: rings of 12 circles (one hole each) and lone
    # circles, written as Meridian writes WKT (shells counter-clockwise, holes clockwise, ", " between rings and
    # parts, full-precision doubles).
    rng = np.random.default_rng(28)
    pieces = []
    for k in range(12):
        cx, cy = -2_900_000.0 + 10_000.0 * k, 600_000.0 + 7_000.0 * (k % 3)
        if k % 3 == 0:
            pieces.append(shapely.Point(cx, cy).buffer(500 + rng.uniform(0, 50), 16))
        else:
            angles = np.linspace(0, 2 * np.pi, 13)[:-1]
            ring = [shapely.Point(cx + 1_500 * np.cos(a), cy + 1_500 * np.sin(a)).buffer(500, 16) for a in angles]
            pieces.append(shapely.union_all(ring))
    union = shapely.MultiPolygon([shapely.geometry.polygon.orient(p, 1.0)
                                  for g in pieces for p in getattr(g, "geoms", [g])])
    text = shapely.to_wkt(union, rounding_precision=-1, trim=True)
    path = tmp_path / "u.wkt"
    path.write_text(text + "\n")
    reference = shapely.from_wkt(text)
    parts = list(reference.geoms)
    holes = sum(len(p.interiors) for p in parts)
    assert len(parts) == 12 and holes == 8  # the figure is what the test means it to be
    d_cases = load_d_cases()
    # Blocks shorter than a ring (up to 400 bytes) and longer (up to the whole file, about 0.2 MB).
    for block in list(range(40, 400)) + list(range(400, len(text) + 2_000, 397)) + [1 << 26]:
        got = d_cases.summary("unused", str(path), block_size=block)
        assert (got["parts"], got["holes"]) == (len(parts), holes), f"block size {block}"
        # Area and perimeter: the same sums in another order (relative rounding far below 1e-12).
        assert abs(got["area_m2"] - reference.area) <= 1e-12 * reference.area, f"block size {block}"
        assert abs(got["perimeter_m"] - reference.length) <= 1e-12 * reference.length, f"block size {block}"
