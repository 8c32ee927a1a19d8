"""meridian-dask's union equals `meridian buffer --union` of the same input on one machine: the same
number of parts and holes, area within 1e-9 relative, Hausdorff distance at most 1e-6 of the radius (compared with
shapely), for clusters across cell edges and corners, two points exactly 2r apart across an edge, radii from a
field, one cluster covering everything (split across cells all the same), and geodesic unions across the
antimeridian and around a pole. The cells are a regular grid (--cell-size) where the test needs edges at known
places."""
import json

import numpy as np
import pytest
import shapely

from dask_support import assert_same_union, load_union, parts, report, run_dask, run_meridian

SRS = ["--srs", "EPSG:5070", "--allow-outside-area"]


def write_csv(path, x, y, r=None):
    """Points (and a radius column) with every double written so that it reads back bit for bit."""
    rows = ["x,y" + (",r" if r is not None else "")]
    for i in range(len(x)):
        rows.append(f"{float(x[i])!r},{float(y[i])!r}" + (f",{float(r[i])!r}" if r is not None else ""))
    path.write_text("\n".join(rows) + "\n")
    return path


def one_and_many(meridian, scheduler, args, tmp_path, *extra):
    """The union of `args` by meridian and by meridian-dask (with `extra` options and a report): the two
    geometries and the report's lines."""
    run_meridian(meridian, args + ["-o", tmp_path / "one.wkt"])
    run_dask(meridian, args + ["-o", tmp_path / "many.wkt", *extra, "--report", tmp_path / "report"],
             scheduler=scheduler)
    return load_union(tmp_path / "one.wkt"), load_union(tmp_path / "many.wkt"), report(tmp_path / "report")


def test_clusters_across_cell_edges_and_corners_with_radii_from_a_field(meridian, dask_scheduler, tmp_path):
    # Clusters centred on the corners and edges of a 10 km grid, radii from a field (150-600 m): every kind of
    # piece meets a cell edge, and some cluster holes cross one.
    rng = np.random.default_rng(28)
    centres = [(10_000.0 * i + dx, 10_000.0 * j + dy) for i in range(1, 4) for j in range(1, 4)
               for dx, dy in [(0, 0), (0, 5_000), (5_000, 0)]]
    x, y, r = [], [], []
    for cx, cy in centres:
        n = rng.integers(20, 120)
        x += list(cx + rng.normal(0, 900, n))
        y += list(cy + rng.normal(0, 900, n))
        r += list(rng.uniform(150, 600, n))
    points = write_csv(tmp_path / "p.csv", x, y, r)
    args = [points, *SRS, "--distance-field", "r", "--unit", "m", "--union"]
    expected, got, stages = one_and_many(meridian, dask_scheduler, args, tmp_path, "--cell-size", "10000")
    assert_same_union(got, expected, radius=150)
    assert len([s for s in stages if s["stage"] == "tile"]) >= 9
    stitches = [s for s in stages if s["stage"] == "stitch"]
    assert stitches, "the cells did not fit together"
    assert stitches[0]["parts"] >= 9  # parts made of several cells' pieces, one per cluster at least
    assert sum(len(p.interiors) for p in parts(expected)) > 0


def test_two_points_exactly_2r_apart_across_an_edge(meridian, dask_scheduler, tmp_path):
    # Pairs touching exactly on a cell edge (x = 10,000 and y = 10,000) and at a corner: the configuration
    # Meridian's circle union leaves to GEOS; the cells' GEOS unions must still fit together.
    x = [9_500.0, 10_500.0, 4_000.0, 4_000.0, 9_500.0, 10_500.0]
    y = [5_000.0, 5_000.0, 9_500.0, 10_500.0, 19_500.0, 20_500.0]
    points = write_csv(tmp_path / "p.csv", x, y)
    args = [points, *SRS, "--distance", "500", "--union"]
    expected, got, stages = one_and_many(meridian, dask_scheduler, args, tmp_path, "--cell-size", "10000")
    assert_same_union(got, expected, radius=500)
    assert any(s.get("fallback") for s in stages if s["stage"] == "tile")
    assert [s for s in stages if s["stage"] == "stitch"], "the cells did not fit together"


def test_one_cluster_over_everything_is_split_across_cells(meridian, dask_scheduler, tmp_path):
    # A jittered 40 x 40 grid whose circles overlap their neighbours and leave a hole in every square: one part
    # with about 1,500 holes. No task may handle more than about a quarter of the points.
    rng = np.random.default_rng(7)
    i, j = np.meshgrid(np.arange(40), np.arange(40))
    x = (i.ravel() * 1000.0 + rng.uniform(-40, 40, i.size)).tolist()
    y = (j.ravel() * 1000.0 + rng.uniform(-40, 40, i.size)).tolist()
    points = write_csv(tmp_path / "p.csv", x, y)
    args = [points, *SRS, "--distance", "620", "--union"]
    expected, got, stages = one_and_many(meridian, dask_scheduler, args, tmp_path, "--chunk-bytes", "12000")
    assert len(parts(expected)) == 1 and len(expected.interiors) > 1400
    assert_same_union(got, expected, radius=620)
    n = len(x)
    tiles = [s for s in stages if s["stage"] == "tile"]
    assert len(tiles) >= 4
    assert max(s["circles"] for s in tiles) <= 0.3 * n, [s["circles"] for s in tiles]
    assert max(s["features"] for s in stages if s["stage"] == "prepare") <= 0.3 * n
    # The stitching step handles the rings that cross cell edges, not the points: far fewer vertices.
    stitches = [s for s in stages if s["stage"] == "stitch"]
    assert stitches, "the cells did not fit together"
    stitch = stitches[0]
    total = sum(len(r.coords) for p in parts(expected) for r in [p.exterior, *p.interiors])
    assert stitch["vertices"] < 0.3 * total


def test_geojson_and_partitioned_outputs(meridian, dask_scheduler, tmp_path):
    rng = np.random.default_rng(11)
    x, y = rng.uniform(0, 20_000, 700), rng.uniform(0, 20_000, 700)
    points = write_csv(tmp_path / "p.csv", x.tolist(), y.tolist())
    args = [points, *SRS, "--distance", "400", "--union"]
    run_meridian(meridian, args + ["-o", tmp_path / "one.geojson"])
    run_dask(meridian, args + ["-o", tmp_path / "many.geojson", "--tile-points", "250"], scheduler=dask_scheduler)
    # In longitude/latitude: 1e-6 of 400 m is about 4e-9 degrees.
    expected = load_union(tmp_path / "one.geojson")
    assert_same_union(load_union(tmp_path / "many.geojson"), expected, radius=400 / 111_000)
    document = json.loads((tmp_path / "many.geojson").read_text())
    assert document["features"][0]["properties"] == {"count": 700}
    run_dask(meridian, args + ["-o", f"{tmp_path}/parts/", "--tile-points", "250"], scheduler=dask_scheduler)
    assert sorted(p.name for p in (tmp_path / "parts").iterdir())[0] == "part-00000.geojsons"
    assert_same_union(load_union(tmp_path / "parts"), expected, radius=400 / 111_000)


@pytest.mark.parametrize("output", ["one.geojson", "one.wkt"])
def test_geodesic_union_across_the_antimeridian_and_around_a_pole(meridian, dask_scheduler, tmp_path, output):
    rng = np.random.default_rng(5)
    lon = np.concatenate([rng.uniform(179.2, 180, 60), rng.uniform(-180, -179.2, 60), rng.uniform(-180, 180, 80),
                          rng.uniform(-98, -96, 60)])
    lat = np.concatenate([rng.uniform(-18, -17, 120), rng.uniform(88.8, 89.9, 80), rng.uniform(32, 33, 60)])
    radius = rng.uniform(20_000, 45_000, len(lon))
    path = tmp_path / "p.csv"
    path.write_text("lon,lat,r\n" + "".join(f"{a!r},{b!r},{c!r}\n" for a, b, c in
                                            zip(lon.tolist(), lat.tolist(), radius.tolist())))
    args = [path, "--geodesic", "--distance-field", "r", "--unit", "m", "--union"]
    run_meridian(meridian, args + ["-o", tmp_path / output])
    many = tmp_path / output.replace("one", "many")
    run_dask(meridian, args + ["-o", many, "--tile-points", "50"], scheduler=dask_scheduler)
    expected = load_union(tmp_path / output)
    assert_same_union(load_union(many), expected, radius=20_000 / 111_000)
    # The antimeridian splits parts (RFC 7946) and the polar cap holds the pole.
    assert any(p.bounds[2] == 180 for p in parts(expected)) and any(p.bounds[0] == -180 for p in parts(expected))
    assert any(p.bounds[3] == 90 for p in parts(expected))


def test_lines_and_polygons_union_by_groups(meridian, dask_scheduler, tmp_path):
    # Not points: unioned by groups of clusters (each group by GEOS, as meridian unions them).
    features = []
    rng = np.random.default_rng(3)
    for k in range(40):
        cx, cy = -98 + 0.3 * (k % 8), 32 + 0.3 * (k // 8)
        if k % 2:
            coords = [[cx + 0.01 * t, cy + 0.004 * np.sin(t)] for t in range(12)]
            geometry = {"type": "LineString", "coordinates": coords}
        else:
            ring = [[cx, cy], [cx + 0.05, cy], [cx + 0.05, cy + 0.04], [cx, cy + 0.04], [cx, cy]]
            geometry = {"type": "Polygon", "coordinates": [ring]}
        features.append({"type": "Feature", "geometry": geometry, "properties": {"d": float(rng.uniform(800, 9000))}})
    path = tmp_path / "f.geojson"
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    args = [path, "--srs", "EPSG:32038", "--distance-field", "d", "--unit", "m", "--union"]
    run_meridian(meridian, args + ["-o", tmp_path / "one.wkt"])
    run_dask(meridian, args + ["-o", tmp_path / "many.wkt", "--tile-points", "5"], scheduler=dask_scheduler)
    assert_same_union(load_union(tmp_path / "many.wkt"), load_union(tmp_path / "one.wkt"), radius=800 / 0.3048)
