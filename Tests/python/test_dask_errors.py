"""meridian-dask's errors are `meridian buffer`'s: the same message (after the command's name), the same
exit status, located in the whole file (file, feature, line) even when the bad record is deep in a later chunk,
the error meridian would meet first when several chunks fail, and nothing written (an existing output is left as
it was)."""
import pathlib

import numpy as np
import pytest

from dask_support import run_dask, run_meridian


def message(result, command):
    """The error line without the command's name."""
    lines = [line for line in result.stderr.splitlines() if line.startswith(command + ": ")]
    assert len(lines) == 1, result.stderr
    return lines[0][len(command) + 2:]


def assert_same_error(meridian, scheduler, args, output, chunk_bytes=3000):
    """Both commands fail alike and leave `output` as it was."""
    output.write_text("before")
    one = run_meridian(meridian, args + ["-o", output], check=False)
    many = run_dask(meridian, args + ["-o", output, "--chunk-bytes", chunk_bytes], scheduler=scheduler,
                    check=False)
    assert one.returncode != 0
    assert (many.returncode, message(many, "meridian-dask buffer")) == (one.returncode,
                                                                        message(one, "meridian buffer"))
    assert output.read_text() == "before"
    return message(one, "meridian buffer")


@pytest.fixture(scope="module")
def rows():
    """600 rows of x,y,r in EPSG:5070, in Texas (about 30 kB)."""
    rng = np.random.default_rng(9)
    x, y, r = rng.uniform(0, 50_000, 600), rng.uniform(1e6, 1.05e6, 600), rng.uniform(100, 300, 600)
    return [f"{a!r},{b!r},{c!r}" for a, b, c in zip(x.tolist(), y.tolist(), r.tolist())]


@pytest.mark.parametrize("union", [[], ["--union"]])
def test_bad_records_deep_in_the_file_are_located_like_meridian(meridian, dask_scheduler, rows, tmp_path, union):
    args = ["--srs", "EPSG:5070", "--distance-field", "r", "--unit", "m", *union]
    bad = list(rows)
    bad[450] = "12.5,abc,100"
    (tmp_path / "coordinates.csv").write_text("x,y,r\n" + "\n".join(bad) + "\n")
    said = assert_same_error(meridian, dask_scheduler, [tmp_path / "coordinates.csv", *args], tmp_path / "o.wkt")
    assert "line 452" in said
    bad = list(rows)
    bad[500] = bad[500].rsplit(",", 1)[0] + ",wide"
    (tmp_path / "field.csv").write_text("x,y,r\n" + "\n".join(bad) + "\n")
    said = assert_same_error(meridian, dask_scheduler, [tmp_path / "field.csv", *args], tmp_path / "o.wkt")
    assert "feature 500 (line 502)" in said


def test_the_error_meridian_meets_first_is_reported(meridian, dask_scheduler, rows, tmp_path):
    # meridian reads a union's whole input (and a whole GeoJSON file) before it checks: a record that cannot be
    # read late in the file comes before a point outside the area of use early in it.
    bad = list(rows)
    bad[40] = "-9000000.0,100.0,100"  # outside EPSG:5070's area of use
    bad[560] = "1,2,3,4"
    (tmp_path / "p.csv").write_text("x,y,r\n" + "\n".join(bad) + "\n")
    args = [tmp_path / "p.csv", "--srs", "EPSG:5070", "--distance-field", "r", "--unit", "m", "--union"]
    assert "line 562" in assert_same_error(meridian, dask_scheduler, args, tmp_path / "o.wkt")
    records = [f'\x1e{{"type":"Feature","geometry":{{"type":"Point","coordinates":[{-97 + i * 1e-3!r},32.5]}},'
               f'"properties":{{}}}}\n' for i in range(300)]
    records[30] = records[30].replace("-97", "-9")  # outside EPSG:32038's area of use
    records[260] = '\x1e{"type":"Feature","geometry":{"type":"Point","coordinates":[-97,]},"properties":{}}\n'
    (tmp_path / "p.geojsons").write_text("".join(records))
    said = assert_same_error(meridian, dask_scheduler, [tmp_path / "p.geojsons", "--srs", "EPSG:32038",
                                                        "--distance", "1km"], tmp_path / "o.geojson")
    assert "line 261" in said
    # Without --union, CSV is read and buffered 4,096 rows at a time: a bad record in an earlier batch comes first.
    bad = (rows * 9)[:5000]
    bad[40] = "-9000000.0,100.0,100"
    bad[4900] = "1,2,3,4"
    (tmp_path / "long.csv").write_text("x,y,r\n" + "\n".join(bad) + "\n")
    args = [tmp_path / "long.csv", *args[1:-1], "--segments", "1"]
    said = assert_same_error(meridian, dask_scheduler, args, tmp_path / "o.wkt", chunk_bytes=50_000)
    assert "feature 40 (line 42)" in said


@pytest.mark.parametrize("args", [
    ["--srs", "EPSG:5070", "--distance", "5 furlongs"],
    ["--distance", "5km"],
    ["--srs", "EPSG:4326", "--distance", "5km"],
    ["--srs", "EPSG:5070", "--distance", "5km", "--distance-field", "r"],
    ["--srs", "EPSG:5070", "--distance", "5km", "--union", "-o", "x.csv"],
    ["--geodesic", "--srs", "EPSG:5070", "--distance", "5km"],
    ["--srs", "EPSG:5070", "--distance", "5km", "--segments", "0"],
    ["--srs", "EPSG:5070", "--distance", "5km", "--frobnicate"],
])
def test_option_errors_are_meridians(meridian, dask_scheduler, rows, tmp_path, args):
    (tmp_path / "p.csv").write_text("x,y,r\n" + "\n".join(rows) + "\n")
    if "-o" not in args:
        args = args + ["-o", str(tmp_path / "o.wkt")]
    one = run_meridian(meridian, [tmp_path / "p.csv", *args], check=False)
    many = run_dask(meridian, [tmp_path / "p.csv", *args], scheduler=dask_scheduler, check=False)
    assert one.returncode == 2
    assert (many.returncode, message(many, "meridian-dask buffer")) == (2, message(one, "meridian buffer"))


def test_vertex_limit_over_all_chunks(meridian, dask_scheduler, rows, tmp_path):
    (tmp_path / "p.csv").write_text("x,y,r\n" + "\n".join(rows) + "\n")
    args = [tmp_path / "p.csv", "--srs", "EPSG:5070", "--distance", "1km", "--max-vertices", "30000",
            "-o", tmp_path / "o.wkt"]
    result = run_dask(meridian, args + ["--chunk-bytes", "3000"], scheduler=dask_scheduler, check=False)
    assert result.returncode == 1
    # 600 circles of 65 vertices: 39,000 in all, over the limit though no chunk is.
    assert ("the buffers would have about 39000 vertices (600 features, --segments 16), more than the limit of "
            "30000") in result.stderr
    assert not (tmp_path / "o.wkt").exists()


def test_own_errors(meridian, dask_scheduler, rows, tmp_path, monkeypatch):
    from meridian_dask import runner

    (tmp_path / "p.csv").write_text("x,y,r\n" + "\n".join(rows) + "\n")
    base = [tmp_path / "p.csv", "--srs", "EPSG:5070", "--distance", "1km"]
    cases = [
        (base + ["-o", tmp_path / "o.kmz"], "not .kmz; for .svg, .kml and .kmz use meridian buffer"),
        (["--srs", "EPSG:5070", "--distance", "1km", "-o", tmp_path / "o.wkt"], "give the input"),
        ([tmp_path / "missing.csv", *base[1:], "-o", tmp_path / "o.wkt"],
         f"cannot read {tmp_path / 'missing.csv'}: No such file or directory"),
        (base + ["-o", tmp_path / "o.wkt", "--workers", "2"], "give either --workers or --scheduler"),
    ]
    for args, expected in cases:
        result = run_dask(meridian, args, scheduler=dask_scheduler, check=False)
        assert result.returncode in (1, 2) and expected in result.stderr, result.stderr
    result = run_dask("/nonexistent/meridian", base + ["-o", tmp_path / "o.wkt"], scheduler=dask_scheduler,
                      check=False)
    assert result.returncode == 2 and "--meridian /nonexistent/meridian: not an executable file" in result.stderr
    # Nothing on PATH and no release build in the clone: the message says how to build it.
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(runner, "__file__", str(tmp_path / "a" / "b" / "runner.py"))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(runner.SetupError, match=r"swift build -c release"):
        runner.find_meridian(None)
    assert pathlib.Path(meridian).exists()
