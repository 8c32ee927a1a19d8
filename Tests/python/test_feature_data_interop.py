"""GeoPackage, Shapefile, FlatGeobuf and PostGIS through `meridian`, checked by the field's own readers:
pyogrio (its wheel's GDAL 3.12, not the Debian GDAL 3.6 Meridian links) and `ogrinfo`/`ogr2ogr` read what Meridian
writes; pyogrio writes what Meridian reads; the buffers are compared vertex for vertex with the same command's WKT
and GeoJSON paths and with shapely; reprojections with pyproj.

Tolerances:
- Vertices written to a GeoPackage, FlatGeobuf or PostGIS table against the same command's WKT output: exactly equal
  (both are the same doubles; WKT writes shortest round-trip decimals, GeoPackage/FlatGeobuf/PostGIS store binary).
  Shapefiles store the same doubles with shells clockwise (the format's rule): equal after orienting.
- Against shapely's buffers of the same points (GEOS of shapely's wheel): 1e-4 ft, as test_output_vertices.py
  (its docstring gives the reasons).
- Reprojection against pyproj: 1e-9° (about 0.1 mm), as test_output_vertices.py.
- Areas of unions: relative 1e-9 (the two unions have the same vertices; only summation order differs).
"""
import datetime
import json
import os
import pathlib
import subprocess
import uuid
import zipfile

import numpy as np
import pyogrio
import pytest
import shapely
from pyproj import CRS, Transformer

FT_TOL = 1e-4
DEG_TOL = 1e-9
N = 40
R_FT = 1000.0
FORMATS = {"gpkg": "GPKG", "shp": "ESRI Shapefile", "fgb": "FlatGeobuf"}


def run(meridian, *args, ok=True):
    out = subprocess.run([meridian, *args], capture_output=True, text=True, timeout=300)
    if ok:
        assert out.returncode == 0, out.stderr
    return out


@pytest.fixture(scope="module")
def points(tmp_path_factory):
    """40 points in north Texas in EPSG:32038 (US survey feet) with an integer, a text, a real and a date field,
    written by pyogrio as a GeoPackage, a shapefile, a FlatGeobuf, and the same x,y as CSV."""
    folder = tmp_path_factory.mktemp("feature-data")
    rng = np.random.default_rng(27)
    x = rng.uniform(2_300_000, 2_500_000, N)
    y = rng.uniform(380_000, 520_000, N)
    ids = np.arange(N, dtype=np.int64) * 7 - 20
    names = np.array([f"parcel {i} – Dallas" for i in range(N)], dtype=object)
    area = rng.uniform(0, 1e6, N)
    founded = np.array([np.datetime64("1841-02-01") + np.timedelta64(int(d), "D") for d in rng.integers(0, 60000, N)])
    wkb = shapely.to_wkb(shapely.points(x, y))
    for ext, driver in FORMATS.items():
        pyogrio.raw.write(str(folder / f"points.{ext}"), wkb, [ids, names, area, founded],
                          ["pid", "name", "area", "founded"], geometry_type="Point", crs="EPSG:32038",
                          driver=driver, layer="points")
    lines = ["pid,x,y,name,area,founded"] + [f"{i},{a!r},{b!r},{n},{s!r},{d}" for i, a, b, n, s, d in
                                              zip(ids.tolist(), x.tolist(), y.tolist(), names, area.tolist(),
                                                  founded.astype(str))]
    (folder / "points.csv").write_text("\n".join(lines) + "\n")
    return {"folder": folder, "x": x, "y": y, "ids": ids, "names": names, "area": area, "founded": founded}


def read(path, layer=None):
    """(fields, geometries) of a file, read by pyogrio."""
    meta, _, wkb, field_data = pyogrio.raw.read(str(path), layer=layer)
    return dict(zip(meta["fields"], field_data)), shapely.from_wkb(wkb), meta


def rings(geometry, clockwise_shells=False):
    """The rings of a (multi)polygon as arrays, oriented as Meridian writes them (counter-clockwise shells), or as a
    shapefile stores them (clockwise shells)."""
    out = []
    for p in getattr(geometry, "geoms", [geometry]):
        p = shapely.geometry.polygon.orient(p, -1.0 if clockwise_shells else 1.0)
        out.append(np.asarray(p.exterior.coords))
        out.extend(np.asarray(r.coords) for r in p.interiors)
    return out


@pytest.fixture(scope="module")
def reference_wkt(meridian, points):
    """The same buffers through the text path: CSV in, WKT out (shortest round-trip decimals, in EPSG:32038)."""
    out = points["folder"] / "reference.wkt"
    run(meridian, "buffer", str(points["folder"] / "points.csv"), "--in-srs", "EPSG:32038", "--srs", "EPSG:32038",
        "--distance", f"{R_FT}us-ft", "-o", str(out))
    return [shapely.from_wkt(line) for line in out.read_text().splitlines()]


@pytest.mark.parametrize("ext", FORMATS)
def test_buffers_are_the_wkt_paths_vertex_for_vertex(meridian, points, reference_wkt, ext):
    src = points["folder"] / f"points.{ext}"
    out = points["folder"] / f"buffers-from-{ext}.{ext}"
    run(meridian, "buffer", str(src), "--srs", "EPSG:32038", "--distance", f"{R_FT}us-ft", "-o", str(out))
    fields, geometries, meta = read(out)
    assert CRS.from_user_input(meta["crs"]).to_epsg() == 32038
    assert len(geometries) == N
    # A FlatGeobuf with a spatial index (pyogrio's default) holds the points in the index's order: match by pid.
    position = {pid: k for k, pid in enumerate(points["ids"].tolist())}
    order = [position[pid] for pid in fields["pid"].tolist()]
    assert ext == "fgb" or order == list(range(N)), "input order kept"
    for ours, ref in zip(geometries, [reference_wkt[k] for k in order]):
        a, b = rings(ours, ext == "shp"), rings(ref, ext == "shp")
        assert len(a) == len(b)
        for r, s in zip(a, b):
            assert np.array_equal(r, s), f"{ext}: a vertex differs from the WKT path's"
    # And against shapely's own buffers of the same points.
    for k, ours in zip(order, geometries):
        ref = shapely.Point(points["x"][k], points["y"][k]).buffer(R_FT, quad_segs=16)
        for r, s in zip(rings(ours), rings(ref)):
            assert r.shape == s.shape and np.abs(r - s).max() <= FT_TOL


@pytest.mark.parametrize("ext", FORMATS)
def test_attributes_keep_their_values_and_types(meridian, points, ext):
    src = points["folder"] / f"points.{ext}"
    out = points["folder"] / f"typed-{ext}.{ext}"
    run(meridian, "buffer", str(src), "--srs", "EPSG:32038", "--distance", "10ft", "-o", str(out))
    fields, _, meta = read(out)
    position = {pid: k for k, pid in enumerate(points["ids"].tolist())}
    order = [position[pid] for pid in fields["pid"].tolist()]  # a FlatGeobuf's index order (see above)
    assert sorted(order) == list(range(N))
    assert list(fields["name"]) == list(points["names"][order])
    assert np.issubdtype(fields["pid"].dtype, np.integer)
    if ext == "shp":  # a .dbf holds reals as N(24,15) decimal text, exact to 1e-15 absolute
        assert np.abs(fields["area"] - points["area"][order]).max() <= 1e-9
    else:
        assert np.array_equal(fields["area"], points["area"][order])
    founded = np.asarray(fields["founded"], dtype="datetime64[D]")
    assert np.array_equal(founded, points["founded"][order].astype("datetime64[D]"))
    info = subprocess.run(["ogrinfo", "-ro", "-so", "-al", str(out)], capture_output=True, text=True).stdout
    assert f"Feature Count: {N}" in info
    assert ("Polygon" if ext == "shp" else "Multi Polygon") in info
    assert 'ID["EPSG",32038]' in info
    assert "pid: Integer" in info and "name: String" in info and "area: Real" in info
    assert ("founded: DateTime" if ext == "fgb" else "founded: Date") in info


def test_the_geojson_path_gives_the_same_coordinates(meridian, points):
    """GeoPackage in, GeoJSON out (WGS84) is the CSV-in, GeoJSON-out path: the same coordinates and properties."""
    a, b = points["folder"] / "from-gpkg.geojson", points["folder"] / "from-csv.geojson"
    run(meridian, "buffer", str(points["folder"] / "points.gpkg"), "--srs", "EPSG:32038", "--distance", "1mi", "-o", str(a))
    run(meridian, "buffer", str(points["folder"] / "points.csv"), "--in-srs", "EPSG:32038", "--srs", "EPSG:32038",
        "--distance", "1mi", "-o", str(b))
    fa, fb = json.loads(a.read_text())["features"], json.loads(b.read_text())["features"]
    assert [f["geometry"] for f in fa] == [f["geometry"] for f in fb]
    assert [f["properties"]["name"] for f in fa] == [f["properties"]["name"] for f in fb]
    assert [f["properties"]["pid"] for f in fa] == [f["properties"]["pid"] for f in fb]


@pytest.mark.parametrize("ext", FORMATS)
def test_a_union_in_each_format(meridian, points, ext):
    out = points["folder"] / f"union.{ext}"
    run(meridian, "buffer", str(points["folder"] / f"points.{ext}"), "--srs", "EPSG:32038", "--distance", "5mi",
        "--union", "-o", str(out))
    fields, geometries, _ = read(out)
    assert len(geometries) == 1 and list(fields["count"]) == [N]
    r = 5 * 1609.344 / (1200 / 3937)
    ref = shapely.union_all(shapely.buffer(shapely.points(points["x"], points["y"]), r, quad_segs=16))
    assert abs(geometries[0].area - ref.area) / ref.area <= 1e-9
    assert len(getattr(geometries[0], "geoms", [geometries[0]])) == len(getattr(ref, "geoms", [ref]))


def test_projecting_a_geopackage_keeps_attributes_against_pyproj(meridian, points):
    out = points["folder"] / "wgs84.gpkg"
    run(meridian, "project", str(points["folder"] / "points.gpkg"), "--to", "EPSG:4326", "-o", str(out))
    fields, geometries, meta = read(out)
    assert CRS.from_user_input(meta["crs"]).to_epsg() == 4326
    lon, lat = Transformer.from_crs("EPSG:32038", "EPSG:4326", always_xy=True).transform(points["x"], points["y"])
    assert np.abs(shapely.get_x(geometries) - lon).max() <= DEG_TOL
    assert np.abs(shapely.get_y(geometries) - lat).max() <= DEG_TOL
    assert list(fields["name"]) == list(points["names"])


def test_gdals_own_geopackage_outside_epsg_projects_as_pyproj_does(meridian, fixtures, tmp_path):
    """GDAL's autotest poly.gpkg: British National Grid under organisation NONE, so its spatial reference comes from
    the WKT in gpkg_spatial_ref_sys; pyproj reads that WKT and projects the polygon independently."""
    src = fixtures / "gdal" / "poly.gpkg"
    out = tmp_path / "poly.wkt"
    run(meridian, "project", str(src), "--to", "EPSG:4326", "-o", str(out))
    ours = shapely.from_wkt(out.read_text().strip())
    _, geometries, meta = read(src)
    t = Transformer.from_crs(CRS.from_wkt(meta["crs"]) if meta["crs"].startswith(("PROJCS", "PROJCRS")) else meta["crs"],
                             "EPSG:4326", always_xy=True)
    ref = shapely.transform(geometries[0], lambda c: np.column_stack(t.transform(c[:, 0], c[:, 1])))
    a, b = np.asarray(ours.exterior.coords), np.asarray(ref.exterior.coords)
    assert a.shape == b.shape and np.abs(a - b).max() <= DEG_TOL


def test_natural_earth_countries_measure_as_pyproj(meridian, fixtures):
    """The Natural Earth shapefile (pyogrio's fixture): every country's geodesic area as pyproj's Geod gives it."""
    from pyproj import Geod
    src = fixtures / "gdal" / "pyogrio" / "naturalearth_lowres.shp"
    out = run(meridian, "measure", str(src), "--geodesic").stdout.splitlines()
    header = out[0].split("\t")
    rows = [dict(zip(header, line.split("\t"))) for line in out[1:] if line.split("\t")[0].isdigit()]
    _, geometries, _ = read(src)
    assert len(rows) == len(geometries) == 177
    geod = Geod(ellps="WGS84")
    for row, g in zip(rows, geometries):
        area = abs(geod.geometry_area_perimeter(g)[0])
        assert abs(float(row["area_m2"]) - area) <= 1e-6 * area + 1.0, row


def test_a_zipped_shapefile_reads_like_the_files(meridian, points, tmp_path):
    archive = tmp_path / "points.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for ext in ("shp", "shx", "dbf", "prj", "cpg"):
            path = points["folder"] / f"points.{ext}"
            if path.exists():
                z.write(path, f"points.{ext}")
    a, b = tmp_path / "a.wkt", tmp_path / "b.wkt"
    run(meridian, "buffer", str(archive), "--srs", "EPSG:32038", "--distance", "100ft", "-o", str(a))
    run(meridian, "buffer", str(points["folder"] / "points.shp"), "--srs", "EPSG:32038", "--distance", "100ft", "-o", str(b))
    assert a.read_text() == b.read_text()


def test_a_source_with_several_layers_needs_layer(meridian, points, tmp_path):
    gpkg = tmp_path / "two.gpkg"
    wkb = shapely.to_wkb(shapely.points(points["x"][:3], points["y"][:3]))
    for layer in ("roads", "parcels"):
        pyogrio.raw.write(str(gpkg), wkb, [], [], geometry_type="Point", crs="EPSG:32038", driver="GPKG", layer=layer,
                          append=gpkg.exists())
    out = run(meridian, "measure", str(gpkg), ok=False)
    assert out.returncode == 1 and out.stderr.count("\n") == 1
    assert "2 layers" in out.stderr and "'roads'" in out.stderr and "'parcels'" in out.stderr and "--layer" in out.stderr
    assert run(meridian, "measure", str(gpkg), "--layer", "parcels").stdout.count("Point") == 3
    missing = run(meridian, "measure", str(gpkg), "--layer", "x'; DROP TABLE roads; --", ok=False)
    assert missing.returncode == 1 and "no layer named" in missing.stderr
    assert run(meridian, "measure", str(gpkg), "--layer", "roads").returncode == 0


def test_bad_input_is_one_line_and_writes_nothing(meridian, points, tmp_path):
    data = (points["folder"] / "points.gpkg").read_bytes()
    truncated = tmp_path / "cut.gpkg"
    truncated.write_bytes(data[: len(data) // 2])
    noprj = tmp_path / "noprj.shp"
    for ext in ("shp", "shx", "dbf"):
        (tmp_path / f"noprj.{ext}").write_bytes((points["folder"] / f"points.{ext}").read_bytes())
    cases = [(truncated, "cut.gpkg"), (noprj, "no .prj")]
    for src, expected in cases:
        out_path = tmp_path / "out.gpkg"
        out = run(meridian, "buffer", str(src), "--srs", "EPSG:32038", "--distance", "1ft", "-o", str(out_path), ok=False)
        assert out.returncode == 1, out.stderr
        assert out.stderr.count("\n") == 1 and expected in out.stderr, out.stderr
        assert not out_path.exists() and not list(tmp_path.glob(".out.gpkg*")), "nothing written"
        assert "ERROR" not in out.stderr and "Warning" not in out.stderr, "GDAL printed"


def test_shapefile_field_names_are_shortened_with_a_note(meridian, points, tmp_path):
    src = tmp_path / "long.gpkg"
    wkb = shapely.to_wkb(shapely.points(points["x"][:2], points["y"][:2]))
    pyogrio.raw.write(str(src), wkb, [np.array([1, 2]), np.array([3.5, 4.5])], ["population_2020", "population_2021"],
                      geometry_type="Point", crs="EPSG:32038", driver="GPKG")
    out = tmp_path / "short.shp"
    r = run(meridian, "buffer", str(src), "--srs", "EPSG:32038", "--distance", "1ft", "-o", str(out))
    assert "'population_2020' is written as 'population'" in r.stderr
    assert "'population_2021' is written as 'populati_1'" in r.stderr
    fields, _, _ = read(out)
    assert list(fields["population"]) == [1, 2] and list(fields["populati_1"]) == [3.5, 4.5]


@pytest.fixture(scope="module")
def postgis():
    pg = os.environ.get("MERIDIAN_PG")
    assert pg, "MERIDIAN_PG is not set: run through scripts/test.sh, or eval \"$(scripts/postgis.sh start)\""
    return pg


def test_postgis_round_trip(meridian, points, postgis, tmp_path):
    """`meridian buffer PG:… --layer addresses … -o PG:… --layer buffers`: the table read back by ogr2ogr holds the
    GeoPackage path's buffers, attributes and SRID."""
    suffix = uuid.uuid4().hex[:8]
    addresses, buffers = f"addresses_{suffix}", f"buffers_{suffix}"
    load = subprocess.run(["ogr2ogr", "-f", "PostgreSQL", postgis, str(points["folder"] / "points.gpkg"),
                           "-nln", addresses, "-lco", "GEOMETRY_NAME=geom"], capture_output=True, text=True)
    assert load.returncode == 0, load.stderr
    run(meridian, "buffer", postgis, "--layer", addresses, "--srs", "EPSG:32038", "--distance", f"{R_FT}us-ft",
        "-o", postgis, "--layer", buffers)
    back = tmp_path / "back.gpkg"
    dump = subprocess.run(["ogr2ogr", "-f", "GPKG", str(back), postgis, buffers, "-sql",
                           f'SELECT * FROM "{buffers}" ORDER BY pid'], capture_output=True, text=True)
    assert dump.returncode == 0, dump.stderr
    fields, geometries, meta = read(back)
    assert CRS.from_user_input(meta["crs"]).to_epsg() == 32038
    order = np.argsort(points["ids"])
    assert list(fields["pid"]) == list(points["ids"][order])
    reference = shapely.buffer(shapely.points(points["x"][order], points["y"][order]), R_FT, quad_segs=16)
    for ours, ref in zip(geometries, reference):
        for r, s in zip(rings(ours), rings(ref)):
            assert r.shape == s.shape and np.abs(r - s).max() <= FT_TOL


def test_a_failed_connection_is_one_line_without_the_password(meridian, tmp_path):
    for conn in ["PG:host=127.0.0.1 port=1 dbname=nowhere user=u password=secret",
                 "PG:postgresql://u:secret@127.0.0.1:1/nowhere"]:
        out = run(meridian, "buffer", conn, "--layer", "a", "--srs", "EPSG:32038", "--distance", "1ft", ok=False)
        assert out.returncode == 1 and out.stderr.count("\n") == 1, out.stderr
        assert "secret" not in out.stderr and "***" in out.stderr, out.stderr
        out = run(meridian, "buffer", str(tmp_path / "none.csv"), "--srs", "EPSG:32038", "--distance", "1ft",
                  "-o", conn, "--layer", "t", ok=False)
        assert "secret" not in out.stderr + out.stdout


@pytest.mark.parametrize("command", [["measure"], ["buffer", "--srs", "EPSG:27700", "--distance", "1m"], ["project", "--to", "EPSG:4326"],
                                     ["kml", "create"]])
def test_a_malformed_geopackage_page_is_an_error_not_a_hang(meridian, fixtures, tmp_path, command):
    """Fuzzing found it (Tests/Fixtures/fuzz/README.md): GDAL's Arrow stream reported SQLite's "malformed" and then
    gave empty batches for ever. Each command reading the file ends at once with one line naming the file and layer;
    a regression shows as the 60 s timeout (the file is 45 KB; the read takes milliseconds)."""
    src = fixtures / "fuzz" / "ogr" / "malformed-page-endless-arrow-stream.gpkg"
    verb = command[:2] if command[0] == "kml" else command[:1]
    out_path = tmp_path / ("out.kml" if command[0] == "kml" else "out.gpkg")
    args = [*verb, str(src), *command[len(verb):], "-o", str(out_path)]
    if command[0] == "measure":
        args = ["measure", str(src)]
    out = subprocess.run([meridian, *args], capture_output=True, text=True, timeout=60)
    assert out.returncode == 1, out.stderr
    assert out.stderr.count("\n") == 1, out.stderr
    assert "malformed-page-endless-arrow-stream.gpkg" in out.stderr and "'poly'" in out.stderr, out.stderr
    assert "malformed" in out.stderr.split(":", 1)[1], out.stderr
    assert not out_path.exists()


@pytest.mark.parametrize("ext", FORMATS)
def test_projecting_csv_into_a_feature_table_keeps_the_columns_against_pyproj(meridian, points, ext):
    """CSV in, a feature table out: each row a point, the other columns its attributes (typed as `buffer` types
    them); the coordinates as pyproj projects them (DEG_TOL), in the output's spatial reference."""
    out = points["folder"] / f"projected-csv.{ext}"
    run(meridian, "project", str(points["folder"] / "points.csv"), "--from", "EPSG:32038", "--to", "EPSG:4326",
        "-o", str(out))
    fields, geometries, meta = read(out)
    assert CRS.from_user_input(meta["crs"]).to_epsg() == 4326
    lon, lat = Transformer.from_crs("EPSG:32038", "EPSG:4326", always_xy=True).transform(points["x"], points["y"])
    assert len(geometries) == N
    assert np.abs(shapely.get_x(geometries) - lon).max() <= DEG_TOL
    assert np.abs(shapely.get_y(geometries) - lat).max() <= DEG_TOL
    assert list(fields["name"]) == list(points["names"])
    assert fields["pid"].dtype.kind == "i" and list(fields["pid"]) == list(points["ids"])
    assert fields["area"].dtype.kind == "f" and np.array_equal(fields["area"], points["area"])
    assert "x" not in fields and "y" not in fields, "the coordinate columns are the geometry"
