"""`meridian buffer` against the peer stack a GIS developer would otherwise use: pyproj (PROJ) for the projection
and shapely (GEOS) for the buffer and the union.

Tolerances:
- Areas of single buffers depend only on radius and segment count, not on the projection: 1e-9 relative.
- Vertex positions depend on the projected centre. pyproj's wheel bundles its own PROJ and proj.db, so the centres
  agree only as closely as the two PROJ builds pick the same WGS84->NAD27 operation; both pick the Helmert
  "NAD27 to WGS 84 (6)" here (no NADCON grid in either), which agree to well under 1e-6 ft. We allow 1e-4 ft
  (0.03 mm), far below the 7 m accuracy of the operation itself.
- The union's area: shapely's and Meridian's GEOS builds differ (3.13 vs 3.11) in noding details at the 1e-9 ft
  level; 1e-9 relative.
"""
import csv
import json
import pathlib
import subprocess

import numpy as np
import pytest
import shapely
from pyproj import Transformer
from shapely import wkt as shapely_wkt

US_FT = 1200 / 3937          # metres per US survey foot (exact)
MILE = 1609.344               # metres per international mile (exact)


def _points(n, seed):
    rng = np.random.default_rng(seed)
    lon = rng.uniform(-102.5, -94.5, n)
    lat = rng.uniform(32.0, 34.3, n)
    radius = rng.uniform(0.5, 30.0, n)
    return lon, lat, radius


def _write_csv(path, lon, lat, radius):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "lon", "lat", "r_mi"])
        for i, (x, y, r) in enumerate(zip(lon, lat, radius)):
            w.writerow([i, repr(float(x)), repr(float(y)), repr(float(r))])


def _run(meridian, *args):
    out = subprocess.run([meridian, *args], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out


def _read_wkt(path):
    return [shapely_wkt.loads(line) for line in pathlib.Path(path).read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    folder = tmp_path_factory.mktemp("buffer-peers")
    lon, lat, radius = _points(60, seed=20261129)
    _write_csv(folder / "points.csv", lon, lat, radius)
    to_tx = Transformer.from_crs("EPSG:4326", "EPSG:32038", always_xy=True)
    x, y = to_tx.transform(lon, lat)
    radius_ft = radius * MILE / US_FT
    peers = [shapely.Point(px, py).buffer(r, quad_segs=16) for px, py, r in zip(x, y, radius_ft)]
    return folder, peers, (x, y, radius_ft)


def test_single_buffers_match_shapely(meridian, case):
    folder, peers, (x, y, radius_ft) = case
    _run(meridian, "buffer", str(folder / "points.csv"), "--srs", "EPSG:32038", "--distance-field", "r_mi",
         "--unit", "mi", "-o", str(folder / "separate.wkt"))
    ours = _read_wkt(folder / "separate.wkt")
    assert len(ours) == len(peers)
    for i, (a, b) in enumerate(zip(ours, peers)):
        assert a.is_valid
        assert len(a.exterior.coords) == len(b.exterior.coords) == 65
        assert abs(a.area - b.area) / b.area < 1e-9, i
        assert shapely.hausdorff_distance(a, b) < 1e-4, i


def test_union_matches_shapely(meridian, case):
    folder, peers, _ = case
    _run(meridian, "buffer", str(folder / "points.csv"), "--srs", "EPSG:32038", "--distance-field", "r_mi",
         "--unit", "mi", "--union", "-o", str(folder / "union.wkt"))
    ours = _read_wkt(folder / "union.wkt")
    assert len(ours) == 1
    peer = shapely.union_all(peers)
    assert ours[0].is_valid
    assert abs(ours[0].area - peer.area) / peer.area < 1e-9
    n_ours = len(getattr(ours[0], "geoms", [ours[0]]))
    n_peer = len(getattr(peer, "geoms", [peer]))
    assert n_ours == n_peer


def test_geojson_output_is_wgs84_and_keeps_properties(meridian, case):
    import json
    folder, peers, _ = case
    out = _run(meridian, "buffer", str(folder / "points.csv"), "--srs", "EPSG:32038", "--distance", "2km")
    doc = json.loads(out.stdout)
    assert doc["type"] == "FeatureCollection"
    assert len(doc["features"]) == len(peers)
    first = doc["features"][0]
    assert first["properties"]["id"] == 0
    ring = np.array(first["geometry"]["coordinates"][0])
    # WGS84 longitudes/latitudes in Texas, and a 2 km radius is about 0.018 degrees of latitude.
    assert ring[:, 0].min() > -104 and ring[:, 0].max() < -93
    assert 0.035 < ring[:, 1].max() - ring[:, 1].min() < 0.037


def test_kmz_output_opens_in_gdal_with_the_same_shapes(meridian, case):
    """GDAL reads the KMZ `meridian buffer` writes: one layer per folder, as many features as buffers and points,
    and each buffer's area (after projecting GDAL's WGS84 polygon back with pyproj) equals shapely's within the
    1e-9° coordinate rounding of KML (~0.1 mm, ~1e-7 relative on areas of miles)."""
    import json
    folder, peers, _ = case
    kmz = folder / "buffers.kmz"
    _run(meridian, "buffer", str(folder / "points.csv"), "--srs", "EPSG:32038", "--distance-field", "r_mi",
         "--unit", "mi", "-o", str(kmz))
    info = subprocess.run(["ogrinfo", "-ro", "-so", "-al", str(kmz)], capture_output=True, text=True, timeout=60)
    assert info.returncode == 0, info.stderr
    counts = [int(line.split(":")[1]) for line in info.stdout.splitlines() if line.startswith("Feature Count")]
    assert sorted(counts) == [len(peers), len(peers)]
    geojson = folder / "from-gdal.geojson"
    conv = subprocess.run(["ogr2ogr", "-f", "GeoJSON", str(geojson), str(kmz), "Buffers"], capture_output=True,
                          text=True, timeout=60)
    assert conv.returncode == 0, conv.stderr
    to_tx = Transformer.from_crs("EPSG:4326", "EPSG:32038", always_xy=True)
    features = json.loads(geojson.read_text())["features"]
    assert len(features) == len(peers)
    for feature, peer in zip(features, peers):
        ring = np.array(feature["geometry"]["coordinates"][0])[:, :2]
        x, y = to_tx.transform(ring[:, 0], ring[:, 1])
        area = shapely.Polygon(np.column_stack([x, y])).area
        assert abs(area - peer.area) / peer.area < 1e-7


def test_a_doubled_quote_in_a_field_is_carried_through(meridian, tmp_path):
    """A CSV field with doubled quotes, commas and a line break (RFC 4180) comes out of `buffer` as it was read: in
    the CSV output, read by Python's csv module, and as a GeoJSON property; the buffer beside it is shapely's
    (no command was checked with such a field before)."""
    names = ['say ""hi"", then go', 'a ""b""', '""', 'two\nlines, "" and ""']
    text = "lon,lat,name\n" + "".join(f'{-97 - i / 10},32.5,"{n}"\n' for i, n in enumerate(names))
    (tmp_path / "q.csv").write_text(text)
    expected = [n.replace('""', '"') for n in names]
    for suffix in ("csv", "geojson"):
        out = tmp_path / f"b.{suffix}"
        r = subprocess.run([meridian, "buffer", str(tmp_path / "q.csv"), "--srs", "EPSG:32038", "--distance", "1km",
                            "-o", str(out)], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        if suffix == "csv":
            with out.open(newline="") as f:
                rows = list(csv.DictReader(f))
            assert [row["name"] for row in rows] == expected
            tx = Transformer.from_crs("EPSG:4326", "EPSG:32038", always_xy=True)
            for i, row in enumerate(rows):
                x, y = tx.transform(-97 - i / 10, 32.5)
                peer = shapely.Point(x, y).buffer(1000 / US_FT, quad_segs=16)
                assert abs(shapely_wkt.loads(row["wkt"]).area - peer.area) < 1e-9 * peer.area
        else:
            features = json.loads(out.read_text())["features"]
            assert [f["properties"]["name"] for f in features] == expected
