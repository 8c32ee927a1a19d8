"""GeoJSON reference files: independent expectations (Python's json module, the basemap README) for what
Tests/MeridianCoreTests/GeoJSONTests.swift asserts, and a shapely check of the files Meridian re-encoded.

The re-encoding compared with shapely is produced inside the test run, by the built CLI (`meridian project FILE
--to EPSG:4326 -o OUT.geojson`: WGS84 to WGS84 is Meridian's GeoJSON reader then writer, properties kept) into
pytest's temporary folder, so nothing left over from an earlier run can stand in for it.
"""
import json
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SWIFT_TEST = ROOT / "Tests" / "MeridianCoreTests" / "GeoJSONTests.swift"

# Feature counts as the basemap README states them.
README_COUNTS = {
    "cities/geonames_tx_cities_pop15000.geojson": 196,
    "cities/geonames_us_cities_pop250000.geojson": 94,
    "texas_counties_census2016/cb_2016_tx_county_500k.geojson": 254,
    "usa_states_census2016/cb_2016_tx_state_500k.geojson": 1,
}


def _load(path: pathlib.Path) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _positions(coords) -> list:
    """The innermost [x, y(, z)] lists of a GeoJSON coordinates value, in document order."""
    if coords and isinstance(coords[0], (int, float)):
        return [coords]
    return [p for c in coords for p in _positions(c)]


@pytest.mark.parametrize("relative", sorted(README_COUNTS))
def test_feature_counts_match_readme(fixtures, relative):
    doc = _load(fixtures / "basemap" / relative)
    assert doc["type"] == "FeatureCollection"
    assert len(doc["features"]) == README_COUNTS[relative]


def test_texas_state_vertices_and_parts(fixtures):
    # README: "the Texas feature only (12,969 vertices, 31 parts)".
    doc = _load(fixtures / "basemap" / "usa_states_census2016" / "cb_2016_tx_state_500k.geojson")
    geometry = doc["features"][0]["geometry"]
    assert geometry["type"] == "MultiPolygon"
    assert len(geometry["coordinates"]) == 31
    assert len(_positions(geometry["coordinates"])) == 12_969


def test_swift_expectations_agree_with_python(fixtures):
    """The (file, count) arguments typed in the Swift test are the counts Python's json module finds."""
    pairs = re.findall(r'\("([^"]+\.geojson)", (\d+)\)', SWIFT_TEST.read_text(encoding="utf-8"))
    assert {p for p, _ in pairs} == set(README_COUNTS)
    for relative, count in pairs:
        doc = _load(fixtures / "basemap" / relative)
        assert len(doc["features"]) == int(count), relative


@pytest.mark.parametrize("relative", sorted(README_COUNTS))
def test_reencoded_files_agree_with_shapely(meridian, fixtures, relative, tmp_path):
    """Meridian's re-encoding has the same properties, vertex counts, areas and (normalized) shapes as the original,
    and its rings follow RFC 7946 §3.1.6 (shells counter-clockwise, holes clockwise).

    Tolerances: none for vertices (the same doubles must come back: normalized shapes compared with
    equals_exact(tolerance=0)); areas in square degrees to a relative 1e-12 (only the summation order may differ).
    """
    shapely = pytest.importorskip("shapely")
    from shapely.geometry import shape

    original_path = fixtures / "basemap" / relative
    ours_path = tmp_path / original_path.name
    run = subprocess.run([meridian, "project", str(original_path), "--to", "EPSG:4326", "-o", str(ours_path)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    original, ours = _load(original_path), _load(ours_path)
    assert ours["type"] == "FeatureCollection"
    assert len(ours["features"]) == len(original["features"])
    for a, b in zip(original["features"], ours["features"]):
        assert b["type"] == "Feature"
        assert b["properties"] == a["properties"]
        ga, gb = shape(a["geometry"]), shape(b["geometry"])
        assert gb.geom_type == ga.geom_type
        assert shapely.get_num_coordinates(gb) == shapely.get_num_coordinates(ga)
        assert gb.area == pytest.approx(ga.area, rel=1e-12, abs=0)
        assert shapely.normalize(gb).equals_exact(shapely.normalize(ga), 0)
        polygons = list(gb.geoms) if gb.geom_type == "MultiPolygon" else [gb] if gb.geom_type == "Polygon" else []
        for p in polygons:
            assert p.exterior.is_ccw
            assert not any(ring.is_ccw for ring in p.interiors)
