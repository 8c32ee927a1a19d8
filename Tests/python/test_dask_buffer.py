"""meridian-dask without --union: the same features in the same order as `meridian buffer`, byte for
byte, in every streamed format, from inputs cut into many chunks: CSV, GeoJSON text sequences (RS-separated and
newline-delimited), several files and folders; and GeoParquet read with pyarrow, compared with the same rows as
CSV."""
import json
import pathlib
import re
import shlex
import shutil

import numpy as np
import pytest

from dask_support import run_dask, run_meridian


@pytest.fixture(scope="module")
def cities(tmp_path_factory):
    """400 points in Texas with properties, as CSV (about 20 kB: many 4 kB chunks)."""
    folder = tmp_path_factory.mktemp("cities")
    rng = np.random.default_rng(2)
    lon, lat = rng.uniform(-100, -95, 400), rng.uniform(32, 34, 400)
    rows = ["lon,lat,name,radius_mi"] + [f"{a!r},{b!r},town {i},{c!r}" for i, (a, b, c) in
                                         enumerate(zip(lon.tolist(), lat.tolist(), rng.uniform(1, 9, 400).tolist()))]
    path = folder / "cities.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("extension", ["geojson", "geojsons", "wkt", "csv"])
def test_same_features_in_the_same_order(meridian, dask_scheduler, cities, tmp_path, extension):
    args = [cities, "--srs", "EPSG:32038", "--distance-field", "radius_mi", "--unit", "mi", "--segments", "4"]
    run_meridian(meridian, args + ["-o", tmp_path / f"one.{extension}"])
    run_dask(meridian, args + ["-o", tmp_path / f"many.{extension}", "--chunk-bytes", "4000"],
             scheduler=dask_scheduler)
    expected = (tmp_path / f"one.{extension}").read_bytes()
    assert (tmp_path / f"many.{extension}").read_bytes() == expected
    assert len(expected) > 100_000


def test_geojson_sequences_and_folders(meridian, dask_scheduler, cities, tmp_path):
    # The cities as GeoJSON text sequences, RS-separated and newline-delimited, in a folder with the CSV: the
    # output is each file's buffers in the folder's order (files sorted by name).
    features = []
    for line in cities.read_text().splitlines()[1:]:
        lon, lat, name, r = line.split(",")
        features.append({"type": "Feature", "geometry": {"type": "Point", "coordinates": [float(lon), float(lat)]},
                         "properties": {"name": name, "r": float(r)}})
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.geojsons").write_text("".join("\x1e" + json.dumps(f) + "\n" for f in features[:250]))
    (folder / "b.geojsonl").write_text("".join(json.dumps(f) + "\n" for f in features[250:]))
    (folder / "c.csv").write_text(cities.read_text())
    (folder / "notes.txt").write_text("not an input")
    args = ["--srs", "EPSG:32038", "--distance", "3km", "-o"]
    expected = b""
    for name in ["a.geojsons", "b.geojsonl", "c.csv"]:
        run_meridian(meridian, [folder / name, *args, tmp_path / f"{name}.geojsons"])
        expected += (tmp_path / f"{name}.geojsons").read_bytes()
    run_dask(meridian, [folder, *args, tmp_path / "many.geojsons", "--chunk-bytes", "12000"],
             scheduler=dask_scheduler)
    assert (tmp_path / "many.geojsons").read_bytes() == expected
    # The same files named one by one, and a partitioned output of the same records.
    run_dask(meridian, [folder / "a.geojsons", folder / "b.geojsonl", folder / "c.csv", *args,
                        f"{tmp_path}/parts/", "--chunk-bytes", "12000"], scheduler=dask_scheduler)
    parts = sorted((tmp_path / "parts").iterdir())
    assert len(parts) > 3
    assert b"".join(p.read_bytes() for p in parts) == expected


def test_geoparquet_reads_like_the_same_rows_as_csv(meridian, dask_scheduler, cities, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    lines = cities.read_text().splitlines()[1:]
    lon = [float(line.split(",")[0]) for line in lines]
    lat = [float(line.split(",")[1]) for line in lines]
    wkb = [b"\x01\x01\x00\x00\x00" + np.array([x, y], dtype="<f8").tobytes() for x, y in zip(lon, lat)]
    radius = [float(line.split(",")[3]) for line in lines]
    geo = {"version": "1.1.0", "primary_column": "geometry",
           "columns": {"geometry": {"encoding": "WKB", "geometry_types": ["Point"]}}}
    table = pa.table({"geometry": pa.array(wkb, pa.binary()), "radius_mi": radius})
    table = table.replace_schema_metadata({"geo": json.dumps(geo)})
    pq.write_table(table, tmp_path / "cities.parquet", row_group_size=128)
    (tmp_path / "cities.csv").write_text("lon,lat,radius_mi\n" + "".join(
        f"{a!r},{b!r},{c!r}\n" for a, b, c in zip(lon, lat, radius)))
    args = ["--srs", "EPSG:32038", "--distance-field", "radius_mi", "--unit", "mi", "-o"]
    run_meridian(meridian, [tmp_path / "cities.csv", *args, tmp_path / "one.wkt"])
    run_dask(meridian, [tmp_path / "cities.parquet", *args, tmp_path / "many.wkt"], scheduler=dask_scheduler)
    assert (tmp_path / "many.wkt").read_bytes() == (tmp_path / "one.wkt").read_bytes()
    # A bad row is named by the file and its row number.
    radius[300] = float("nan")
    table = pa.table({"geometry": pa.array(wkb, pa.binary()), "radius_mi": radius})
    pq.write_table(table.replace_schema_metadata({"geo": json.dumps(geo)}), tmp_path / "bad.parquet",
                   row_group_size=128)
    result = run_dask(meridian, [tmp_path / "bad.parquet", *args, tmp_path / "bad.wkt"], scheduler=dask_scheduler,
                      check=False)
    assert result.returncode == 1
    assert f"{tmp_path / 'bad.parquet'}: feature 300" in result.stderr
    assert not (tmp_path / "bad.wkt").exists()


def test_the_readme_example(meridian, dask_scheduler, tmp_path):
    # Every meridian-dask line of the README runs as written (on the shared cluster instead of its own) and writes
    # what meridian writes for the same arguments.
    root = pathlib.Path(__file__).resolve().parents[2]
    shutil.copytree(root / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("output"))
    lines = [re.sub(r"\s+#.*$", "", line).strip() for line in (root / "README.md").read_text().splitlines()]
    commands = [shlex.split(line) for line in lines if line.startswith("meridian-dask buffer ")]
    assert commands
    for args in commands:
        args = [tmp_path / a if a.startswith("examples/") else a for a in args[2:]]
        args[args.index("-o") + 1] = tmp_path / "many.wkt"
        if "--workers" in args:
            del args[args.index("--workers"):args.index("--workers") + 2]
        run_dask(meridian, args, scheduler=dask_scheduler)
        args[args.index("-o") + 1] = tmp_path / "one.wkt"
        run_meridian(meridian, args)
        got, expected = (tmp_path / "many.wkt").read_text(), (tmp_path / "one.wkt").read_text()
        assert got.count("((") == expected.count("((") and len(got) == len(expected) > 100
