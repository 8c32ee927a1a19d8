"""Helpers of the meridian-dask tests (test_dask_*.py): running meridian-dask and meridian, and comparing two unions
with shapely, the independent reference: the same number of parts and of holes, areas within 1e-9 relative, and a
Hausdorff distance of at most 1e-6 of the radius (the issue's definition of "the same answer")."""
import contextlib
import io
import json
import os
import subprocess
import sys

import numpy as np
import shapely


def run_dask(meridian, args, scheduler=None, workers=None, check=True, subprocess_run=False):
    """Runs `meridian-dask buffer ARGS` (the package from python/, as installed by scripts/python-env.sh): in this
    process (its `main`, which saves starting Python and Dask for every run), or as the command."""
    command = ["buffer", *map(str, args), "--meridian", meridian, "--quiet"]
    if scheduler:
        command += ["--scheduler", scheduler]
    if workers:
        command += ["--workers", str(workers)]
    if subprocess_run:
        result = subprocess.run([sys.executable, "-m", "meridian_dask", *command], capture_output=True, text=True,
                                timeout=600)
    else:
        from meridian_dask.cli import main

        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            status = main(command)
        result = subprocess.CompletedProcess(command, status, "", err.getvalue())
    if check:
        assert result.returncode == 0, result.stderr
    return result


def run_meridian(meridian, args, check=True):
    """Runs `meridian buffer ARGS`, the single-process reference."""
    result = subprocess.run([meridian, "buffer", *map(str, args)], capture_output=True, text=True, timeout=600)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def load_union(path):
    """The geometry of a union output: WKT, a GeoJSON feature collection, or a folder of GeoJSON text sequence
    parts (all its polygons)."""
    path = str(path)
    if os.path.isdir(path):
        polygons = []
        for name in sorted(os.listdir(path)):
            with open(os.path.join(path, name)) as f:
                for record in f.read().split("\x1e"):
                    if record.strip():
                        polygons.append(shapely.geometry.shape(json.loads(record)["geometry"]))
        return shapely.MultiPolygon(polygons)
    text = open(path).read()
    if path.endswith(".wkt"):
        return shapely.from_wkt(text)
    features = json.loads(text)["features"]
    assert len(features) == 1
    return shapely.geometry.shape(features[0]["geometry"])


def parts(geometry):
    """The polygons of a Polygon or MultiPolygon."""
    return list(getattr(geometry, "geoms", [geometry]))


def assert_same_union(got, expected, radius):
    """The issue's test of "the same answer": parts, holes, area (1e-9 relative), Hausdorff (1e-6 of the radius;
    `radius` in the outputs' coordinates). Both must be valid."""
    assert got.is_valid and expected.is_valid, shapely.is_valid_reason([got, expected])
    assert len(parts(got)) == len(parts(expected))
    assert sum(len(p.interiors) for p in parts(got)) == sum(len(p.interiors) for p in parts(expected))
    assert abs(got.area - expected.area) <= 1e-9 * expected.area
    assert hausdorff(got, expected) <= 1e-6 * radius


def _rings(geometry):
    return [r for p in parts(geometry) for r in [p.exterior, *p.interiors]]


def hausdorff(a, b):
    """The Hausdorff distance between the boundaries of two polygons, from every vertex of each to the other's
    nearest edge (an STRtree over the edges: GEOS's discrete Hausdorff is quadratic, far too slow for unions of
    thousands of rings). Two unions with the same boundaries up to rounding are within rounding of each other."""
    def vertices_and_edges(g):
        points, edges = [], []
        for ring in _rings(g):
            c = np.asarray(ring.coords)
            points.append(c)
            edges.append(shapely.linestrings(np.stack([c[:-1], c[1:]], axis=1)))
        return shapely.points(np.concatenate(points)), np.concatenate(edges)

    (pa, ea), (pb, eb) = vertices_and_edges(a), vertices_and_edges(b)
    _, da = shapely.STRtree(eb).query_nearest(pa, return_distance=True)
    _, db = shapely.STRtree(ea).query_nearest(pb, return_distance=True)
    return max(float(da.max()), float(db.max()))


def report(path):
    """The lines of a --report file."""
    return [json.loads(line) for line in open(path)]
