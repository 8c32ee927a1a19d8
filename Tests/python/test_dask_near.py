"""`meridian-dask near` gives the bytes `meridian near` gives on one machine: LEFT cut into many small tiles (pairs
across the tiles' edges, LEFT points exactly on them), per-feature search distances, planar and geodesic across the
antimeridian and around a pole, every output shape (--right-only: RIGHT features matched from several tiles, written
once each in RIGHT's order, twins included); and the same one-line error for bad input, with nothing written."""
import contextlib
import io
import json
import subprocess

import numpy as np
import pytest

from meridian_dask.chunks import InputFormat
from meridian_dask.cli import main
from meridian_dask.near import tagged_right


def near_dask(meridian, scheduler, args, tile_points=7, chunk_bytes=2000):
    """Runs `meridian-dask near ARGS` in this process: (exit status, standard error)."""
    command = ["near", *map(str, args), "--meridian", meridian, "--quiet", "--verbose", "--scheduler", scheduler,
               "--tile-points", str(tile_points), "--chunk-bytes", str(chunk_bytes)]
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = main(command)
    return status, err.getvalue()


def near_one(meridian, args):
    """Runs `meridian near ARGS`, the one-machine reference."""
    return subprocess.run([meridian, "near", *map(str, args)], capture_output=True, text=True, timeout=600)


def assert_same_bytes(meridian, scheduler, args, output, min_tiles=8, **tiles):
    """Both commands write the same bytes, and meridian-dask did it in tiles (not in one task)."""
    expected = output.with_name("one" + output.suffix)
    one = near_one(meridian, [*args, "-o", expected])
    assert one.returncode == 0, one.stderr
    status, err = near_dask(meridian, scheduler, [*args, "-o", output], **tiles)
    assert status == 0, err
    assert "one task runs" not in err, err
    tiles_line = [line for line in err.splitlines() if " tiles" in line and "LEFT" in line]
    assert tiles_line and int(tiles_line[0].split()[-2]) >= min_tiles, err  # many tiles, so many pairs cross edges
    assert output.read_bytes() == expected.read_bytes()
    return expected.read_bytes()


@pytest.fixture(scope="module")
def planar(tmp_path_factory):
    """LEFT: 300 points in EPSG:5070 on a lattice of 500 m (many share an x or a y, so the tiles' edges pass
    through them), 30 of them repeated, with radii 0 to 1,400 m; RIGHT: 250 points scattered over the same square,
    some on the lattice too (distances of exactly a radius), as CSV and as GeoJSON text sequences."""
    folder = tmp_path_factory.mktemp("near-planar")
    rng = np.random.default_rng(42)
    lx = 1_000_000 + 500.0 * rng.integers(0, 12, 300)
    ly = 1_500_000 + 500.0 * rng.integers(0, 12, 300)
    lx[270:], ly[270:] = lx[:30], ly[:30]
    radius = rng.choice([0.0, 250.0, 500.0, 707.5, 1400.0], 300)
    rx = np.concatenate([1_000_000 + rng.uniform(-600, 6100, 200), 1_000_000 + 500.0 * rng.integers(0, 12, 50)])
    ry = np.concatenate([1_500_000 + rng.uniform(-600, 6100, 200), 1_500_000 + 500.0 * rng.integers(0, 12, 50)])
    (folder / "left.csv").write_text("x,y,name,r\n" + "".join(
        f"{x!r},{y!r},\"left, {i}\",{r!r}\n" for i, (x, y, r) in enumerate(zip(lx.tolist(), ly.tolist(),
                                                                              radius.tolist()))))
    (folder / "right.csv").write_text("x,y,name,kind\n" + "".join(
        f"{x!r},{y!r},right {i},{i % 3}\n" for i, (x, y) in enumerate(zip(rx.tolist(), ry.tolist()))))
    return folder


@pytest.mark.parametrize("shape", ["--pairs", "--count", "--left-only", "--right-only"])
def test_planar_near_is_byte_identical_to_one_machine(meridian, dask_scheduler, planar, tmp_path, shape):
    args = [planar / "left.csv", planar / "right.csv", "--srs", "EPSG:5070", "--in-srs", "EPSG:5070",
            "--distance-field", "r", shape]
    text = assert_same_bytes(meridian, dask_scheduler, args, tmp_path / "near.csv")
    if shape == "--pairs":
        assert text.count(b"\n") > 300  # pairs of most LEFT features, many across the tiles' edges
    if shape == "--right-only":
        assert 200 < text.count(b"\n") < 251  # most RIGHT features (not all), many matched from several tiles
    assert_same_bytes(meridian, dask_scheduler, args, tmp_path / "near.geojson")


def test_planar_nearest_and_a_fixed_distance_in_another_unit(meridian, dask_scheduler, planar, tmp_path):
    args = [planar / "left.csv", planar / "right.csv", "--srs", "EPSG:5070", "--in-srs", "EPSG:5070",
            "--distance", "0.5mi", "--nearest", "2"]
    assert_same_bytes(meridian, dask_scheduler, args, tmp_path / "near.geojsons")
    args[-4:] = ["--distance-field", "r", "--unit", "ft", "--nearest", "2"]
    assert_same_bytes(meridian, dask_scheduler, args, tmp_path / "feet.csv")
    # --right-only after --nearest: the RIGHT features among some LEFT feature's two nearest (ties by RIGHT's order).
    assert_same_bytes(meridian, dask_scheduler, [*args, "--right-only"], tmp_path / "nearest-right.geojsons")
    args[-6:] = ["--distance", "0.5mi", "--right-only"]
    assert_same_bytes(meridian, dask_scheduler, args, tmp_path / "right.csv")


def test_lines_and_polygons_of_geojson(meridian, dask_scheduler, tmp_path):
    """A GeoJSON FeatureCollection of lines and polygons as LEFT (their boxes reach across tiles; 20 of them two
    degrees away from RIGHT, in tiles without RIGHT features) and a text sequence of points as RIGHT, projected into
    --srs."""
    rng = np.random.default_rng(5)
    features = []
    for i in range(120):
        lon, lat = -97 + rng.uniform(0, 0.3) + (2 if i % 6 == 5 else 0), 32 + rng.uniform(0, 0.3)
        if i % 2:
            geometry = {"type": "LineString", "coordinates": [[lon, lat], [lon + 0.02, lat + 0.01]]}
        else:
            geometry = {"type": "Polygon", "coordinates": [[[lon, lat], [lon + 0.01, lat], [lon + 0.01, lat + 0.01],
                                                            [lon, lat]]]}
        features.append({"type": "Feature", "geometry": geometry, "properties": {"id": i, "d": float(i % 4) * 300}})
    (tmp_path / "left.geojson").write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    points = "".join("\x1e" + json.dumps({"type": "Feature", "properties": {"id": f"p{i}"}, "geometry": {
        "type": "Point", "coordinates": [-97 + rng.uniform(0, 0.32), 32 + rng.uniform(0, 0.32)]}}) + "\n"
        for i in range(150))
    (tmp_path / "right.geojsons").write_text(points)
    args = [tmp_path / "left.geojson", tmp_path / "right.geojsons", "--srs", "EPSG:5070", "--distance-field", "d"]
    assert_same_bytes(meridian, dask_scheduler, args, tmp_path / "near.csv", tile_points=10)
    assert_same_bytes(meridian, dask_scheduler, args + ["--count"], tmp_path / "count.geojson", tile_points=10)
    # --right-only of a GeoJSON text sequence RIGHT (some tiles have none in reach: their columns lack RIGHT's).
    assert_same_bytes(meridian, dask_scheduler, args + ["--right-only"], tmp_path / "right-only.csv", tile_points=10)
    # The lines and polygons as RIGHT (a FeatureCollection), written with their own geometry, around LEFT points.
    args = [tmp_path / "right.geojsons", tmp_path / "left.geojson", "--srs", "EPSG:5070", "--distance", "400m",
            "--right-only"]
    assert_same_bytes(meridian, dask_scheduler, args, tmp_path / "shapes.geojson", tile_points=10)


@pytest.mark.parametrize("place", ["antimeridian", "pole"])
def test_geodesic_near_across_the_antimeridian_and_around_a_pole(meridian, dask_scheduler, tmp_path, place):
    """Points within 60 km of 180° (LEFT on one side, RIGHT on both), or above 89.3° N (pairs on the far side of
    the pole are nearer than a degree of longitude suggests); distances up to 40 km."""
    rng = np.random.default_rng(11)
    if place == "antimeridian":
        def points(n):
            lon = 180 + rng.uniform(-0.7, 0.7, n)
            return (lon + 180) % 360 - 180, rng.uniform(-20.4, -19.6, n)
    else:
        def points(n):
            return rng.uniform(-180, 180, n), rng.uniform(89.3, 89.95, n)
    lon, lat = points(200)
    (tmp_path / "left.csv").write_text("lon,lat,name,d\n" + "".join(
        f"{a!r},{b!r},l{i},{d}\n" for i, (a, b, d) in enumerate(zip(lon.tolist(), lat.tolist(),
                                                                   rng.choice([0, 10, 25, 40], 200).tolist()))))
    lon, lat = points(200)
    (tmp_path / "right.csv").write_text("lon,lat,name\n" + "".join(
        f"{a!r},{b!r},r{i}\n" for i, (a, b) in enumerate(zip(lon.tolist(), lat.tolist()))))
    args = [tmp_path / "left.csv", tmp_path / "right.csv", "--geodesic", "--in-srs", "EPSG:4326",
            "--distance-field", "d", "--unit", "km"]
    text = assert_same_bytes(meridian, dask_scheduler, args, tmp_path / "near.csv")
    assert text.count(b"\n") > 200
    assert_same_bytes(meridian, dask_scheduler, args + ["--left-only"], tmp_path / "near.geojsons")
    text = assert_same_bytes(meridian, dask_scheduler, args + ["--right-only"], tmp_path / "right.geojson")
    assert text.count(b'"Feature"') == 200
    text = assert_same_bytes(meridian, dask_scheduler, args[:-4] + ["--distance", "3km", "--right-only"],
                             tmp_path / "right.csv")
    assert 20 < text.count(b"\n") < 150, text.count(b"\n")  # some RIGHT features, not all


def message(err, command):
    """The error line without the command's name."""
    lines = [line for line in err.splitlines() if line.startswith(command + ": ")
             and not line.startswith(command + ": [")]  # --verbose notes begin with the time
    assert len(lines) == 1, err
    return lines[0][len(command) + 2:]


def test_bad_input_gives_meridian_nears_error_and_no_output(meridian, dask_scheduler, planar, tmp_path,
                                                          monkeypatch):
    monkeypatch.chdir(tmp_path)  # the inputs named as given (relative), as meridian near names them
    rows = (planar / "left.csv").read_text().splitlines(keepends=True)
    rows[251] = "1001000.0,1501000.0,bad,-5\n"
    (tmp_path / "left.csv").write_text("".join(rows))
    (tmp_path / "right.csv").write_bytes((planar / "right.csv").read_bytes())
    args = ["left.csv", "right.csv", "--srs", "EPSG:5070", "--in-srs", "EPSG:5070", "--distance-field", "r"]
    output = tmp_path / "near.csv"
    output.write_text("before")

    def assert_same_error(args):
        one = near_one(meridian, [*args, "-o", tmp_path / "one.csv"])
        status, err = near_dask(meridian, dask_scheduler, [*args, "-o", output])
        assert (status, message(err, "meridian-dask near")) == (one.returncode, message(one.stderr, "meridian near"))
        assert output.read_text() == "before"
        return status, message(err, "meridian-dask near")

    assert assert_same_error(args) == (1, "left.csv: feature 250 (line 252): 'r' is negative; a search distance "
                                          "must be 0 or more")
    assert assert_same_error(["left.csv", "nope.csv", *args[2:]]) == (1, "cannot read nope.csv: No such file or "
                                                                        "directory")
    assert assert_same_error([*args, "--bogus"]) == (2, "unknown option --bogus")
    assert assert_same_error([*args, "--right-only"])[0] == 1


def test_right_only_writes_each_right_feature_once_in_rights_order(meridian, dask_scheduler, planar, tmp_path):
    """RIGHT in an order unrelated to the tiles', with twins (records written twice, far apart in the file: two
    features, written alike, both rows) and points on LEFT's lattice (at exactly a search distance): every matched
    RIGHT feature once, in RIGHT's order, as CSV and as GeoJSON text sequences, constant and per-feature
    distances. RIGHT's lines end in CR LF and its last column, quoted, has the name of the column the tiles tag
    RIGHT's records with."""
    rng = np.random.default_rng(7)
    rows = (planar / "right.csv").read_text().splitlines()
    rows = [rows[0] + ",meridian_dask_right\r\n"] + [f'{row},"t, {i}"\r\n' for i, row in enumerate(rows[1:])]
    body = rows[1:] + rows[1:41]
    rng.shuffle(body)
    (tmp_path / "right.csv").write_bytes((rows[0] + "".join(body)).encode())
    base = [planar / "left.csv", tmp_path / "right.csv", "--srs", "EPSG:5070", "--in-srs", "EPSG:5070",
            "--right-only"]
    text = assert_same_bytes(meridian, dask_scheduler, [*base, "--distance-field", "r"], tmp_path / "near.csv")
    lines = text.splitlines()[1:]
    assert len(lines) - len(set(lines)) >= 20  # twins, each a row
    text = assert_same_bytes(meridian, dask_scheduler, [*base, "--distance", "200"], tmp_path / "near.geojsons")
    assert 50 < text.count(b"\x1e") < 250, text.count(b"\x1e")  # some RIGHT features, not all
    text = assert_same_bytes(meridian, dask_scheduler, [*base, "--distance", "0"], tmp_path / "zero.csv")
    assert 10 < text.count(b"\n") < 100, text.count(b"\n")  # RIGHT points on LEFT's lattice


def test_right_records_are_tagged_with_a_name_right_does_not_have():
    """The tag a tile adds to RIGHT's records for --right-only: a CSV column after the others (before each record's
    own line ending; meridian compares column names in lowercase), a GeoJSON property (null properties, a bare
    geometry)."""
    header = b"x,y,Meridian_Dask_Right\r\n"
    tagged, tag = tagged_right(b'1,2,"a\r\nb"\r\n3,4,c\n', header, InputFormat.CSV)
    assert (tagged, tag) == (b'x,y,Meridian_Dask_Right,meridian_dask_right_\r\n1,2,"a\r\nb",0\r\n3,4,c,1\n',
                             "meridian_dask_right_")
    point = {"type": "Point", "coordinates": [1.5, 2]}
    records = [{"type": "Feature", "geometry": point, "properties": None}, point,
               {"type": "Feature", "geometry": point, "properties": {"meridian_dask_right": 7}, "id": 3}]
    text = b"".join(b"\x1e" + json.dumps(r).encode() + b"\n" for r in records)
    tagged, tag = tagged_right(text, b"", InputFormat.SEQUENCE_RS)
    assert tag == "meridian_dask_right_"
    features = [json.loads(r) for r in tagged.split(b"\x1e")[1:]]
    assert [f["properties"] for f in features] == [{tag: 0}, {tag: 1}, {"meridian_dask_right": 7, tag: 2}]
    assert [f["geometry"] for f in features] == [point] * 3 and features[2]["id"] == 3
    with pytest.raises(ValueError):  # which geometry meridian reads would be a guess: the tile fails, one task runs
        tagged_right(b'\x1e{"type":"Feature","geometry":null,"geometry":null,"properties":{}}\n', b"",
                     InputFormat.SEQUENCE_RS)


def test_unbounded_searches_are_refused(meridian, dask_scheduler, planar, tmp_path):
    base = [planar / "left.csv", planar / "right.csv", "--srs", "EPSG:5070", "--in-srs", "EPSG:5070"]
    status, err = near_dask(meridian, dask_scheduler, [*base, "--nearest", "3", "-o", tmp_path / "r.csv"])
    assert status == 2 and "give --distance D or --distance-field NAME" in message(err, "meridian-dask near")
    assert not (tmp_path / "r.csv").exists()


@pytest.mark.parametrize("argv", [["near"], ["near", "--help"], ["near", "left.csv", "-h"]])
def test_near_help_is_its_own_and_buffer_errors_keep_their_name(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    assert (status, err.getvalue()) == (0, "")
    assert out.getvalue().startswith("Usage: meridian-dask near LEFT RIGHT (--distance D")
    with contextlib.redirect_stderr(err):
        status = main(["buffer", "in.csv", "--workers", "0"])
    assert (status, err.getvalue()) == (2, "meridian-dask buffer: --workers expects a positive whole number, got '0'\n")


def test_planar_in_an_srs_of_feet_projected_from_longitude_latitude(meridian, dask_scheduler, tmp_path):
    """Points given in longitude/latitude, measured in EPSG:2263 (US survey feet): the halo is the search distance
    in the SRS unit (0.4 km = 1,312 ft), not in meters or in the unit given."""
    rng = np.random.default_rng(3)
    for side, n in (("left", 150), ("right", 150)):
        lon, lat = -73.95 + rng.uniform(0, 0.06, n), 40.70 + rng.uniform(0, 0.05, n)
        (tmp_path / f"{side}.csv").write_text("lon,lat,name,m\n" + "".join(
            f"{a!r},{b!r},{side[0]}{i},{float(rng.uniform(0, 600))!r}\n"
            for i, (a, b) in enumerate(zip(lon.tolist(), lat.tolist()))))
    args = [tmp_path / "left.csv", tmp_path / "right.csv", "--srs", "EPSG:2263", "--in-srs", "EPSG:4326"]
    assert_same_bytes(meridian, dask_scheduler, [*args, "--distance", "0.4km"], tmp_path / "km.csv")
    assert_same_bytes(meridian, dask_scheduler, [*args, "--distance-field", "m", "--unit", "m"], tmp_path / "m.csv")


@pytest.mark.parametrize("latitude", [-40.0, 88.0])
def test_geodesic_lines_and_polygons_across_the_antimeridian(meridian, dask_scheduler, tmp_path, latitude):
    """Geodesic LEFT lines and polygons whose edges cross 180° (their boxes are the caps around their vertices),
    at a middle latitude and next to the North Pole, against RIGHT points on both sides."""
    rng = np.random.default_rng(8)
    features = []
    for i in range(90):
        lon, lat = 179.6 + rng.uniform(0, 0.8), latitude + rng.uniform(0, 0.5)
        a, b = (lon + 180) % 360 - 180, (lon + 0.15 + 180) % 360 - 180
        if i % 2:
            geometry = {"type": "LineString", "coordinates": [[a, lat], [b, lat + 0.05]]}
        else:
            geometry = {"type": "Polygon", "coordinates": [[[a, lat], [b, lat], [b, lat + 0.05], [a, lat]]]}
        features.append({"type": "Feature", "geometry": geometry, "properties": {"id": i, "d": float(i % 3) * 4000}})
    (tmp_path / "left.geojson").write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    lon = (179.5 + rng.uniform(0, 1.1, 150) + 180) % 360 - 180
    lat = latitude - 0.1 + rng.uniform(0, 0.7, 150)
    (tmp_path / "right.csv").write_text("lon,lat,id\n" + "".join(
        f"{a!r},{b!r},p{i}\n" for i, (a, b) in enumerate(zip(lon.tolist(), lat.tolist()))))
    args = [tmp_path / "left.geojson", tmp_path / "right.csv", "--geodesic", "--distance-field", "d"]
    assert_same_bytes(meridian, dask_scheduler, args, tmp_path / "near.csv", min_tiles=4, tile_points=8)
    assert_same_bytes(meridian, dask_scheduler, args + ["--right-only"], tmp_path / "right.geojsons", min_tiles=4,
                      tile_points=8)
