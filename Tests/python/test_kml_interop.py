"""KML/KMZ written by `meridian kml` open in GDAL (ogr2ogr, Debian's gdal-bin) with the same features and
geometries (coordinates compared to 1e-9 degrees), and pass the OGC KML 2.2 schema (xmllint, libxml2-utils).

GDAL is an independent reader: for each file we compare what GDAL reads from Meridian's output with what
GDAL reads from the input (samples) or with the input coordinates (created files)."""
import json
import pathlib
import shutil
import subprocess
import zipfile

import pytest

SAMPLES = ["libkml/kml_kmlsamples.kml", "openlayers/states.kml", "openlayers/iceland.kmz",
           "libkml/kml_gnis-ak-first-101.kml", "togeojson/multigeometry.kml", "togeojson/polygon.kml",
           "pykml/complete_tour_example.kml", "libkml/style_shared-stylemap.kml", "togeojson/extended_data.kml",
           "openlayers/2012_Earthquakes_Mag5.kml", "libkml/kmz_balloon-image-rel.kmz"]
TOLERANCE = 1e-9  # degrees


def gdal_features(path: pathlib.Path, tmp: pathlib.Path) -> list:
    """Every feature of every layer, as GDAL reads it (ogr2ogr to GeoJSON, one file per layer)."""
    out = tmp / f"gdal-{path.name}.geojson"
    layers = subprocess.run(["ogrinfo", "-ro", "-q", "-so", str(path)], capture_output=True, text=True, timeout=60)
    assert layers.returncode == 0, layers.stderr
    features = []
    names = [line.split(":", 1)[1].split("(")[0].strip() for line in layers.stdout.splitlines() if ":" in line and line.split(":")[0].strip().isdigit()]
    for name in names:
        if out.exists():
            out.unlink()
        r = subprocess.run(["ogr2ogr", "-f", "GeoJSON", str(out), str(path), name], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        features += json.loads(out.read_text())["features"]
    return features


def flat(coords):
    if isinstance(coords, (int, float)):
        return [coords]
    return [v for c in coords for v in flat(c)]


def geometry_values(feature):
    g = feature.get("geometry")
    if not g:
        return []
    if g["type"] == "GeometryCollection":
        return [v for m in g["geometries"] for v in flat(m["coordinates"])]
    return flat(g["coordinates"])


def assert_same_features(a: list, b: list):
    assert len(a) == len(b) and len(a) > 0
    for fa, fb in zip(a, b):
        va, vb = geometry_values(fa), geometry_values(fb)
        assert len(va) == len(vb)
        assert all(abs(x - y) <= TOLERANCE for x, y in zip(va, vb))
        assert (fa["properties"].get("Name") or fa["properties"].get("name")) == \
               (fb["properties"].get("Name") or fb["properties"].get("name"))


def xsd_valid(kml_text: bytes, fixtures: pathlib.Path, tmp: pathlib.Path) -> tuple:
    f = tmp / "validate.kml"
    f.write_bytes(kml_text)
    schema = fixtures / "kml/schema/fastkml-1.4.0/ogckml22.xsd"
    r = subprocess.run(["xmllint", "--noout", "--nonet", "--schema", str(schema), str(f)], capture_output=True, text=True)
    return r.returncode == 0, r.stderr


def kml_text(path: pathlib.Path) -> bytes:
    if path.suffix == ".kmz":
        with zipfile.ZipFile(path) as z:
            first = z.infolist()[0]
            assert first.filename == "doc.kml"
            assert first.compress_type == zipfile.ZIP_DEFLATED
            return z.read(first)
    return path.read_bytes()


@pytest.fixture(scope="module", autouse=True)
def tools():
    for tool in ["ogr2ogr", "ogrinfo", "xmllint"]:
        assert shutil.which(tool), f"{tool} is missing (scripts/install-deps.sh installs gdal-bin and libxml2-utils)"


@pytest.mark.parametrize("sample", SAMPLES)
@pytest.mark.parametrize("ext", ["kml", "kmz"])
def test_converted_samples_read_the_same_in_gdal(meridian, fixtures, tmp_path, sample, ext):
    source = fixtures / "kml/samples" / sample
    out = tmp_path / f"out.{ext}"
    r = subprocess.run([meridian, "kml", "convert", str(source), str(out)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert_same_features(gdal_features(source, tmp_path), gdal_features(out, tmp_path))
    original_ok, _ = xsd_valid(kml_text(source) if source.suffix == ".kml" else kml_text_any(source), fixtures, tmp_path)
    written_ok, errors = xsd_valid(kml_text(out), fixtures, tmp_path)
    if original_ok:
        assert written_ok, errors
    # Every case (schema-valid original or not): converting the written file again gives the same bytes.
    again = tmp_path / f"again.{ext}"
    r = subprocess.run([meridian, "kml", "convert", str(out), str(again)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert kml_text(again) == kml_text(out)



def kml_text_any(path: pathlib.Path) -> bytes:
    with zipfile.ZipFile(path) as z:
        names = [n for n in z.namelist() if n.endswith(".kml")]
        return z.read("doc.kml" if "doc.kml" in names else names[0])


@pytest.mark.parametrize("ext", ["kml", "kmz"])
def test_created_from_csv_and_geojson(meridian, fixtures, tmp_path, ext):
    csv = tmp_path / "pts.csv"
    csv.write_text("name,lon,lat,pop\nA,-96.797,32.7767,1\nB,2.294785,48.858093,2\nC,146.806,-12.219,3\n")
    out = tmp_path / f"pts.{ext}"
    r = subprocess.run([meridian, "kml", "create", str(csv), "-o", str(out), "--line-color", "#00ff00", "--icon-scale", "1.5"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    got = gdal_features(out, tmp_path)
    assert [f["properties"]["Name"] for f in got] == ["A", "B", "C"]
    assert [f["geometry"]["coordinates"][:2] for f in got] == [[-96.797, 32.7767], [2.294785, 48.858093], [146.806, -12.219]]
    ok, errors = xsd_valid(kml_text(out), fixtures, tmp_path)
    assert ok, errors

    gj = tmp_path / "shapes.geojson"
    gj.write_text(json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"name": "poly", "fill": "#ff0000", "fill-opacity": 0.25, "stroke-width": 3},
         "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]],
                                                         [[0.2, 0.2], [0.2, 0.8], [0.8, 0.8], [0.2, 0.2]]]}},
        {"type": "Feature", "properties": {"name": "line", "stroke": "#0000ff"},
         "geometry": {"type": "LineString", "coordinates": [[10, 10], [11.5, 12.25]]}},
        {"type": "Feature", "properties": {"name": "multi"},
         "geometry": {"type": "MultiPolygon", "coordinates": [[[[20, 20], [21, 20], [21, 21], [20, 20]]],
                                                              [[[30, 30], [31, 30], [31, 31], [30, 30]]]]}},
    ]}))
    out2 = tmp_path / f"shapes.{ext}"
    r = subprocess.run([meridian, "kml", "create", str(gj), "-o", str(out2)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    got = gdal_features(out2, tmp_path)
    assert len(got) == 3
    assert got[0]["geometry"]["type"] == "Polygon" and len(got[0]["geometry"]["coordinates"]) == 2
    assert got[1]["geometry"]["coordinates"] == [[10, 10], [11.5, 12.25]]
    assert got[2]["geometry"]["type"] in ("MultiPolygon", "GeometryCollection")
    ok, errors = xsd_valid(kml_text(out2), fixtures, tmp_path)
    assert ok, errors
    # simplestyle → KML style → simplestyle
    back = tmp_path / "back.geojson"
    r = subprocess.run([meridian, "kml", "convert", str(out2), str(back)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    props = json.loads(back.read_text())["features"][0]["properties"]
    assert props["fill"] == "#ff0000" and props["fill-opacity"] == 0.251 and props["stroke-width"] == 3


def test_hostile_inputs_fail_cleanly(meridian, fixtures):
    for sample in ["libkml/kml_billion.kml", "gdal_autotest/truncated.kml", "libkml/kmz_nokml.kmz",
                   "libkml/kmz_overflow_bad_offset.kmz"]:
        r = subprocess.run([meridian, "kml", "info", str(fixtures / "kml/samples" / sample)],
                           capture_output=True, text=True, timeout=10)
        assert r.returncode == 1, sample
        assert r.stderr.startswith("meridian kml: "), r.stderr
        assert "Traceback" not in r.stderr and len(r.stderr.splitlines()) == 1
