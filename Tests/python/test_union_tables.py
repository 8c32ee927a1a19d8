"""A union of buffers written to a GeoPackage, a Shapefile and a FlatGeobuf holds exactly the polygon the same
command writes as WKT: every part, every hole, every vertex, in the same order (bench case P6's job: the feature-table writer
builds GDAL's geometry ring by ring, and a dropped, reordered or wrongly turned ring must show here).

The input: 300 points in EPSG:32038 (written by pyogrio as a GeoPackage): 6 circles of 24 points whose 1000 ft buffers
overlap into annuli (each part has one hole) and 156 scattered points (parts with and without holes, some merging).

Checked by readers that are not Meridian's:
- GeoPackage and FlatGeobuf: read back by pyogrio (its wheel's GDAL 3.12) as WKB → shapely; the rings, in order and
  in their written direction, equal the WKT's bit for bit (WKT writes shortest round-trip decimals, so the doubles
  are the same).
- Shapefile: the `.shp` record is read byte by byte here (ESRI Shapefile Technical Description, 1998: a polygon
  record is its parts' start indices and the points): the rings come in the WKT's order, shells clockwise and holes
  counter-clockwise (the format's rule; GDAL does not rewind them: SHAPE_REWIND_ON_WRITE=NO), each the WKT's ring
  bit for bit, reversed where the WKT's direction is the other one.
- The union against shapely's union of shapely's buffers: areas within relative 1e-9 (only summation order differs
  between two unions of the same circles), the same number of parts and holes.
"""
import struct

import numpy as np
import pyogrio
import pytest
import shapely

from test_feature_data_interop import run

R_FT = 1000.0
FORMATS = ("gpkg", "shp", "fgb")


@pytest.fixture(scope="module")
def union(meridian, tmp_path_factory):
    """The points, and the union of their buffers as WKT (shapely geometry) from the same GeoPackage input."""
    folder = tmp_path_factory.mktemp("union-tables")
    rng = np.random.default_rng(2706)
    xy = []
    for cx, cy in rng.uniform([2_300_000, 380_000], [2_500_000, 520_000], size=(6, 2)):
        angles = np.arange(24) * 2 * np.pi / 24
        xy += list(zip(cx + 3000 * np.cos(angles), cy + 3000 * np.sin(angles)))
    xy += list(rng.uniform([2_300_000, 380_000], [2_330_000, 410_000], size=(156, 2)))
    xy = np.array(xy)
    src = folder / "points.gpkg"
    pyogrio.raw.write(str(src), shapely.to_wkb(shapely.points(xy)), [np.arange(len(xy))], ["pid"],
                      geometry_type="Point", crs="EPSG:32038", driver="GPKG", layer="points")
    wkt = folder / "union.wkt"
    run(meridian, "buffer", str(src), "--srs", "EPSG:32038", "--distance", f"{R_FT}us-ft", "--union", "-o", str(wkt))
    return {"folder": folder, "src": src, "xy": xy, "wkt": shapely.from_wkt(wkt.read_text().strip())}


def rings(geometry):
    """Every ring of a (multi)polygon in order: each part's shell, then its holes."""
    out = []
    for p in getattr(geometry, "geoms", [geometry]):
        out.append(np.asarray(p.exterior.coords))
        out.extend(np.asarray(r.coords) for r in p.interiors)
    return out


def signed_area(ring):
    x, y = ring[:, 0] - ring[0, 0], ring[:, 1] - ring[0, 1]
    return 0.5 * float(np.sum(x[:-1] * y[1:] - x[1:] * y[:-1]))


def shp_rings(path):
    """The rings of the one polygon record of a .shp, read from its bytes."""
    data = path.read_bytes()
    assert struct.unpack(">i", data[:4])[0] == 9994 and struct.unpack("<i", data[32:36])[0] == 5
    content = data[108:]
    shape, = struct.unpack("<i", content[:4])
    assert shape == 5, "a polygon record"
    n_parts, n_points = struct.unpack("<ii", content[36:44])
    starts = list(struct.unpack(f"<{n_parts}i", content[44:44 + 4 * n_parts])) + [n_points]
    points = np.frombuffer(content, "<f8", 2 * n_points, 44 + 4 * n_parts).reshape(-1, 2)
    assert 100 + 8 + len(content) == len(data), "one record and nothing after it"
    return [points[a:b] for a, b in zip(starts, starts[1:])]


def test_the_union_has_parts_with_holes(union):
    ref = shapely.union_all(shapely.buffer(shapely.points(union["xy"]), R_FT, quad_segs=16))
    ours = union["wkt"]
    assert abs(ours.area - ref.area) / ref.area <= 1e-9
    holes = sum(len(p.interiors) for p in ours.geoms)
    assert len(ours.geoms) == len(ref.geoms) >= 8
    assert holes == sum(len(p.interiors) for p in ref.geoms) >= 6, "the circles of points leave holes"


@pytest.mark.parametrize("ext", ["gpkg", "fgb"])
def test_geopackage_and_flatgeobuf_hold_the_wkt_rings_as_written(meridian, union, ext):
    out = union["folder"] / f"union.{ext}"
    run(meridian, "buffer", str(union["src"]), "--srs", "EPSG:32038", "--distance", f"{R_FT}us-ft", "--union",
        "-o", str(out))
    meta, _, wkb, fields = pyogrio.raw.read(str(out))
    assert len(wkb) == 1 and list(fields[0]) == [len(union["xy"])]
    ours, ref = rings(shapely.from_wkb(wkb[0])), rings(union["wkt"])
    assert len(ours) == len(ref), "every shell and hole"
    for a, b in zip(ours, ref):
        assert np.array_equal(a, b), "the same vertices in the same order and direction"


def test_a_shapefile_holds_the_wkt_rings_clockwise_shells_counterclockwise_holes(meridian, union):
    out = union["folder"] / "union.shp"
    run(meridian, "buffer", str(union["src"]), "--srs", "EPSG:32038", "--distance", f"{R_FT}us-ft", "--union",
        "-o", str(out))
    ours = shp_rings(out)
    expected = []
    for p in union["wkt"].geoms:
        for k, ring in enumerate([np.asarray(p.exterior.coords)] + [np.asarray(r.coords) for r in p.interiors]):
            clockwise = k == 0
            expected.append(ring if (signed_area(ring) < 0) == clockwise else ring[::-1])
    assert len(ours) == len(expected), "every shell and hole"
    for k, (a, b) in enumerate(zip(ours, expected)):
        assert np.array_equal(a, b), f"ring {k}: the WKT's vertices, oriented as the format requires"
    # The orientation itself, independently of the WKT: as many clockwise rings as parts.
    assert sum(signed_area(r) < 0 for r in ours) == len(union["wkt"].geoms)


@pytest.fixture(scope="module")
def streamed(meridian, tmp_path_factory):
    """More points than one union batch (65,536): the union is made and written batch by batch, to WKT and to each
    table alike. 100,000 points in 16 clusters (rings of points leave holes), 4 chords a quarter circle to keep it
    small; 100,000 points or more make the GeoPackage one for large geometries (64 KiB pages)."""
    folder = tmp_path_factory.mktemp("union-streamed")
    rng = np.random.default_rng(2707)
    centres = rng.uniform([2_300_000, 380_000], [2_500_000, 520_000], size=(16, 2))
    xy = centres[rng.integers(0, 16, 100_000)] + rng.normal(0, 4000, size=(100_000, 2))
    src = folder / "points.gpkg"
    pyogrio.raw.write(str(src), shapely.to_wkb(shapely.points(xy)), [np.arange(len(xy))], ["pid"],
                      geometry_type="Point", crs="EPSG:32038", driver="GPKG", layer="points")
    args = ["buffer", str(src), "--srs", "EPSG:32038", "--distance", "30us-ft", "--segments", "4", "--union"]
    wkt = folder / "union.wkt"
    run(meridian, *args, "-o", str(wkt))
    return {"folder": folder, "args": args, "n": len(xy), "wkt": shapely.from_wkt(wkt.read_text().strip())}


@pytest.mark.parametrize("ext", FORMATS)
def test_a_union_written_batch_by_batch_holds_the_streamed_wkt_rings(meridian, streamed, ext):
    out = streamed["folder"] / f"union.{ext}"
    run(meridian, *streamed["args"], "-o", str(out))
    ref = rings(streamed["wkt"])
    assert len(streamed["wkt"].geoms) > 1000 and len(ref) > len(streamed["wkt"].geoms), "many parts, some holes"
    if ext == "shp":
        ours = shp_rings(out)
        ref = [r if (signed_area(r) < 0) == (k in shells) else r[::-1]
               for shells in [shell_indices(streamed["wkt"])] for k, r in enumerate(ref)]
    else:
        meta, _, wkb, fields = pyogrio.raw.read(str(out))
        assert len(wkb) == 1 and list(fields[0]) == [streamed["n"]]
        ours = rings(shapely.from_wkb(wkb[0]))
    assert len(ours) == len(ref), "every shell and hole of every batch"
    for k, (a, b) in enumerate(zip(ours, ref)):
        assert np.array_equal(a, b), f"ring {k}"


def gpkg_page_size_and_rtree(path):
    """SQLite's page size of a GeoPackage and the rows of its one spatial index (read with Python's sqlite3)."""
    import sqlite3
    with sqlite3.connect(path) as db:
        size = db.execute("PRAGMA page_size").fetchone()[0]
        (table, column), = db.execute("SELECT table_name, column_name FROM gpkg_extensions "
                                      "WHERE extension_name = 'gpkg_rtree_index'").fetchall()
        rows = db.execute(f'SELECT id, minx, maxx, miny, maxy FROM "rtree_{table}_{column}"').fetchall()
    return size, rows


def test_a_large_union_geopackage_has_large_pages_and_its_spatial_index(meridian, union, streamed):
    """A union of 100,000 points or more goes into a GeoPackage with 64 KiB pages and a spatial index made before
    the feature (filled by the GeoPackage's insert trigger, not by GDAL reading the geometry back), a small one with
    SQLite's 4 KiB and GDAL's index filled at the end; the spatial index holds the one feature's box either way (an
    R-tree stores float32 bounds rounded outwards)."""
    small = union["folder"] / "small-union.gpkg"
    run(meridian, "buffer", str(union["src"]), "--srs", "EPSG:32038", "--distance", f"{R_FT}us-ft", "--union",
        "-o", str(small))
    large = streamed["folder"] / "union.gpkg"
    if not large.exists():
        run(meridian, *streamed["args"], "-o", str(large))
    for path, geometry, size in [(small, union["wkt"], 4096), (large, streamed["wkt"], 65536)]:
        page, rows = gpkg_page_size_and_rtree(path)
        assert page == size, path.name
        assert len(rows) == 1 and rows[0][0] == 1, "the one feature is indexed"
        minx, miny, maxx, maxy = geometry.bounds
        _, lo_x, hi_x, lo_y, hi_y = rows[0]
        assert lo_x <= minx and hi_x >= maxx and lo_y <= miny and hi_y >= maxy, "the box holds the union"
        assert max(minx - lo_x, hi_x - maxx, miny - lo_y, hi_y - maxy) < 1.0, "float32 rounding only (< 1 ft here)"


def shell_indices(geometry):
    """The positions of the shells among `rings(geometry)`."""
    out, k = set(), 0
    for p in geometry.geoms:
        out.add(k)
        k += 1 + len(p.interiors)
    return out
