"""`meridian` maps libgdal only when a command reads or writes a GDAL format (GeoPackage, Shapefile, FlatGeobuf,
PostGIS): GDAL is opened with dlopen on its first use, not linked (Sources/CGDAL/include/CGDAL.h). A program linked
with libgdal maps it and the ~110 libraries it depends on at every start (about 50 ms), which made `meridian
--version` and small CSV runs 20-30 % slower than a build without GDAL.

The dynamic loader says what it maps with LD_DEBUG=libs (on standard error); each test that asserts libgdal is absent
also asserts that a library `meridian` does link (GEOS) is reported, so an LD_DEBUG that printed nothing could not
pass. MERIDIAN_GDAL_LIBRARY names the library to open instead of libgdal: a missing one, or one without GDAL's
functions (libc), stands for a machine without a usable GDAL.
"""
import os
import shutil
import subprocess

import pytest

CSV = "x,y\n2400000,450000\n2401000,451000\n"


def run(meridian, *args, env=None, debug=False):
    environment = dict(os.environ, **(env or {}))
    if debug:
        environment["LD_DEBUG"] = "libs"
    return subprocess.run([meridian, *args], capture_output=True, text=True, timeout=120, env=environment)


def csv_buffer(meridian, tmp_path, **kwargs):
    src = tmp_path / "points.csv"
    src.write_text(CSV)
    out = tmp_path / "buffers.wkt"
    result = run(meridian, "buffer", str(src), "--srs", "EPSG:32038", "--distance", "100", "-o", str(out), **kwargs)
    return result, out


@pytest.mark.skipif(shutil.which("readelf") is None, reason="readelf (binutils) is not installed")
def test_the_binary_does_not_link_libgdal(meridian):
    dynamic = subprocess.run(["readelf", "-d", meridian], capture_output=True, text=True, check=True).stdout
    needed = [line for line in dynamic.splitlines() if "(NEEDED)" in line]
    assert any("libgeos_c" in line for line in needed), dynamic
    assert not any("libgdal" in line for line in needed), needed


def test_version_does_not_map_libgdal(meridian):
    result = run(meridian, "--version", debug=True)
    assert result.returncode == 0 and result.stdout.startswith("meridian "), result.stderr[-2000:]
    assert "libgeos_c" in result.stderr, "LD_DEBUG=libs reported nothing"
    assert "libgdal" not in result.stderr


def test_a_csv_buffer_to_wkt_does_not_map_libgdal(meridian, tmp_path):
    result, out = csv_buffer(meridian, tmp_path, debug=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert out.read_text().count("POLYGON") == 2
    assert "libgeos_c" in result.stderr, "LD_DEBUG=libs reported nothing"
    assert "libgdal" not in result.stderr


def test_a_geopackage_read_maps_libgdal_and_works(meridian, fixtures, tmp_path):
    out = tmp_path / "poly.wkt"
    result = run(meridian, "project", str(fixtures / "gdal" / "poly.gpkg"), "--to", "EPSG:4326", "-o", str(out),
                 debug=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert out.read_text().startswith("POLYGON")
    assert "libgdal.so" in result.stderr, "the GeoPackage was read without loading libgdal?"


@pytest.mark.parametrize("library, reason", [
    ("libgdal-missing.so.99", "libgdal-missing.so.99: cannot open shared object file"),
    ("libc.so.6", "undefined symbol"),  # a library that opens but has none of GDAL's functions
])
def test_without_a_usable_gdal_only_gdal_formats_fail_in_one_line(meridian, fixtures, tmp_path, library, reason):
    env = {"MERIDIAN_GDAL_LIBRARY": library}
    read = run(meridian, "project", str(fixtures / "gdal" / "poly.gpkg"), "--to", "EPSG:4326", env=env)
    assert read.returncode == 1, read.stderr
    assert read.stderr.count("\n") == 1 and "poly.gpkg" in read.stderr, read.stderr
    assert "GDAL is not available" in read.stderr and reason in read.stderr, read.stderr
    written = tmp_path / "out.gpkg"
    src = tmp_path / "points.csv"
    src.write_text(CSV)
    write = run(meridian, "buffer", str(src), "--srs", "EPSG:32038", "--distance", "100", "-o", str(written), env=env)
    assert write.returncode == 1, write.stderr
    assert write.stderr.count("\n") == 1 and reason in write.stderr, write.stderr
    assert not written.exists() and not list(tmp_path.glob(".out.gpkg*")), "nothing written"
    result, out = csv_buffer(meridian, tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    assert out.read_text().count("POLYGON") == 2
    version = run(meridian, "--version", env=env)
    assert version.returncode == 0 and version.stdout.startswith("meridian "), version.stderr
