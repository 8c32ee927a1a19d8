"""`meridian near` against the reference libraries: planar pairs within a distance against shapely's
`STRtree.query(predicate="dwithin")`, per-feature radii and `--count` against a brute force over the same pairs,
`--nearest 1` against `STRtree.query_nearest`, and geodesic pairs (points near ±180° and the poles) against
geographiclib's inverse problem for every pair; and both joins against PostGIS's `ST_DWithin` with a GiST
index (geometry in EPSG:32038, geography on the spheroid). Pairs must be identical; planar distances agree to 1e-9 relative,
geodesic ones to 1 µm (the stated accuracy: Karney's inverse, or for points less than 99.7 km apart the chord formula,
within 0.26 µm of it on WGS 84). Coordinates are written with 17 significant digits, so both sides see the same doubles.
"""
import csv
import os
import subprocess
import uuid

import numpy as np
import pytest
import shapely
from geographiclib.geodesic import Geodesic

SEED = 20261207


def _write_points(path, xs, ys, names=("x", "y"), extra=None):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", *names, *(extra or {}).keys()])
        for i, (x, y) in enumerate(zip(xs, ys)):
            w.writerow([f"p{i}", repr(float(x)), repr(float(y)), *(repr(float(v[i])) for v in (extra or {}).values())])


def _run(meridian, *args):
    out = subprocess.run([meridian, "near", *map(str, args)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _planar_inputs(tmp_path, rng):
    # EPSG:32038 (NAD27 / Texas North Central, US survey feet): a 60,000 ft square around Dallas.
    lx, ly = rng.uniform(2.20e6, 2.26e6, 3000), rng.uniform(3.70e5, 4.30e5, 3000)
    rx, ry = rng.uniform(2.20e6, 2.26e6, 400), rng.uniform(3.70e5, 4.30e5, 400)
    radii = rng.uniform(0, 3000, 3000)
    left, right = tmp_path / "left.csv", tmp_path / "right.csv"
    _write_points(left, lx, ly, extra={"radius": radii})
    _write_points(right, rx, ry)
    return left, right, shapely.points(lx, ly), shapely.points(rx, ry), radii


def _antimeridian_and_polar_points(rng, n):
    """n longitudes and latitudes: half around ±180° (both signs of longitude, within 5° of the equator), half above
    88° north and below 88° south."""
    k = n // 2
    lon = np.concatenate([rng.uniform(179.0, 181.0, k), rng.uniform(-180.0, 180.0, n - k)])
    lon = np.where(lon > 180, lon - 360, lon)
    lat = np.concatenate([rng.uniform(-5, 5, k), rng.choice([-1, 1], n - k) * rng.uniform(88.0, 90.0, n - k)])
    return lon, lat


def _geodesic_pairs_within_150_km(meridian, tmp_path, rng):
    """300 LEFT and 200 RIGHT points around ±180° and the poles, and `meridian near --geodesic --distance 150km`'s
    pairs of them: (LEFT lon, lat, RIGHT lon, lat, {(left id, right id): metres})."""
    llon, llat = _antimeridian_and_polar_points(rng, 300)
    rlon, rlat = _antimeridian_and_polar_points(rng, 200)
    left, right, out = tmp_path / "left.csv", tmp_path / "right.csv", tmp_path / "pairs.csv"
    _write_points(left, llon, llat, names=("lon", "lat"))
    _write_points(right, rlon, rlat, names=("lon", "lat"))
    _run(meridian, "--geodesic", left, right, "--distance", "150km", "-o", out)
    return llon, llat, rlon, rlat, _pairs(_rows(out), "distance_m")


def _pairs(rows, distance_column):
    return {(r["id_left"], r["id_right"]): float(r[distance_column]) for r in rows}


def test_planar_pairs_match_shapely_dwithin(meridian, tmp_path):
    rng = np.random.default_rng(SEED)
    left, right, lg, rg, _ = _planar_inputs(tmp_path, rng)
    out = tmp_path / "pairs.csv"
    _run(meridian, left, right, "--in-srs", "EPSG:32038", "--distance", "2000", "-o", out)
    got = _pairs(_rows(out), "distance_us_ft")
    li, ri = shapely.STRtree(rg).query(lg, predicate="dwithin", distance=2000)
    expected = {(f"p{i}", f"p{j}"): float(shapely.distance(lg[i], rg[j])) for i, j in zip(li, ri)}
    assert len(expected) > 1000
    assert got.keys() == expected.keys()
    for key, d in expected.items():
        assert abs(got[key] - d) <= 1e-9 * max(d, 1.0), key
    # Ranks count from 1 per LEFT feature, nearest first.
    ranks = {}
    for r in _rows(out):
        ranks.setdefault(r["id_left"], []).append((float(r["distance_us_ft"]), int(r["rank"])))
    for found in ranks.values():
        assert [rank for _, rank in found] == list(range(1, len(found) + 1))
        assert [d for d, _ in found] == sorted(d for d, _ in found)


def test_planar_per_feature_radii_and_count_match_brute_force(meridian, tmp_path):
    rng = np.random.default_rng(SEED + 1)
    left, right, lg, rg, radii = _planar_inputs(tmp_path, rng)
    distances = shapely.distance(lg[:, None], rg[None, :])
    within = distances <= radii[:, None]
    pairs, counts = tmp_path / "pairs.csv", tmp_path / "count.csv"
    _run(meridian, left, right, "--in-srs", "EPSG:32038", "--distance-field", "radius", "-o", pairs)
    got = _pairs(_rows(pairs), "distance_us_ft")
    expected = {(f"p{i}", f"p{j}"): distances[i, j] for i, j in zip(*np.nonzero(within))}
    assert len(expected) > 1000 and got.keys() == expected.keys()
    for key, d in expected.items():
        assert abs(got[key] - d) <= 1e-9 * max(d, 1.0), key
    # --count: every LEFT feature once, its number of pairs (a groupby of the pairs), 0 included.
    _run(meridian, left, right, "--in-srs", "EPSG:32038", "--distance-field", "radius", "--count", "-o", counts)
    by_left = {}
    for (a, _b) in got:
        by_left[a] = by_left.get(a, 0) + 1
    rows = _rows(counts)
    assert [r["id"] for r in rows] == [f"p{i}" for i in range(len(radii))]
    assert {r["id"]: int(r["near_count"]) for r in rows} == {f"p{i}": by_left.get(f"p{i}", 0) for i in range(len(radii))}
    assert any(int(r["near_count"]) == 0 for r in rows)


def test_planar_nearest_matches_shapely_query_nearest(meridian, tmp_path):
    rng = np.random.default_rng(SEED + 2)
    left, right, lg, rg, _ = _planar_inputs(tmp_path, rng)
    out = tmp_path / "nearest.csv"
    _run(meridian, left, right, "--in-srs", "EPSG:32038", "--nearest", "1", "-o", out)
    rows = _rows(out)
    (li, ri), d = shapely.STRtree(rg).query_nearest(lg, return_distance=True, all_matches=False)
    assert len(rows) == len(lg) == len(li)
    assert [(r["id_left"], r["id_right"]) for r in rows] == [(f"p{i}", f"p{j}") for i, j in zip(li, ri)]
    for r, expected in zip(rows, d):
        assert abs(float(r["distance_us_ft"]) - expected) <= 1e-9 * max(expected, 1.0)
        assert r["rank"] == "1"


def test_geodesic_pairs_near_the_antimeridian_and_poles_match_geographiclib(meridian, tmp_path):
    rng = np.random.default_rng(SEED + 3)
    llon, llat, rlon, rlat, got = _geodesic_pairs_within_150_km(meridian, tmp_path, rng)
    expected = {}
    for i in range(len(llon)):
        for j in range(len(rlon)):
            s = Geodesic.WGS84.Inverse(llat[i], llon[i], rlat[j], rlon[j])["s12"]
            if s <= 150_000:
                expected[(f"p{i}", f"p{j}")] = s
    assert len(expected) > 300
    crossing = [k for k in expected if (llon[int(k[0][1:])] > 0) != (rlon[int(k[1][1:])] > 0)
                and abs(llat[int(k[0][1:])]) < 10]
    assert crossing, "no pair across ±180°"
    assert got.keys() == expected.keys()
    for key, s in expected.items():
        assert abs(got[key] - s) <= 1e-6, key  # the stated accuracy of geodesic distances: 1 µm


# PostGIS: the same joins as SQL (`ST_DWithin` with a GiST index, planar in EPSG:32038 and on the spheroid with
# geography), run by the private server of scripts/postgis.sh. ------------------------------------------------------

@pytest.fixture(scope="module")
def postgis():
    """A libpq connection string for the PostGIS server of scripts/postgis.sh (MERIDIAN_PG without GDAL's 'PG:')."""
    pg = os.environ.get("MERIDIAN_PG")
    assert pg, "MERIDIAN_PG is not set: run through scripts/test.sh, or eval \"$(scripts/postgis.sh start)\""
    return pg.removeprefix("PG:")


def _sql(conninfo, script):
    """Runs SQL with psql (stop at the first error) and returns the rows of its last query, '|'-separated."""
    out = subprocess.run(["psql", conninfo, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1"], input=script,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return [line.split("|") for line in out.stdout.splitlines() if line]


def _load_points(table, xs, ys, srid, geography=False):
    """SQL that creates `table` (id, geom) with a GiST index from the points, written with 17 significant digits."""
    kind = "geography(Point, 4326)" if geography else f"geometry(Point, {srid})"
    values = ",\n".join(f"('p{i}', 'SRID={srid};POINT({x!r} {y!r})')" for i, (x, y) in
                        enumerate(zip(map(float, xs), map(float, ys))))
    return (f"DROP TABLE IF EXISTS {table};\nCREATE TABLE {table} (id text PRIMARY KEY, geom {kind});\n"
            f"INSERT INTO {table} VALUES\n{values};\nCREATE INDEX ON {table} USING gist (geom);\nANALYZE {table};\n")


def test_planar_pairs_and_distances_match_postgis_st_dwithin(meridian, postgis, tmp_path):
    """PostGIS `ST_DWithin(geometry, geometry, 2000)` in EPSG:32038 through its GiST index: the same pairs, distances
    (`ST_Distance`, printed with 17 significant digits) within 1e-9 relative (both are GEOS/PostGIS double-precision
    point distances; the bound allows for a different evaluation order)."""
    rng = np.random.default_rng(SEED + 4)
    left, right, lg, rg, _ = _planar_inputs(tmp_path, rng)
    out = tmp_path / "pairs.csv"
    _run(meridian, left, right, "--in-srs", "EPSG:32038", "--distance", "2000", "-o", out)
    got = _pairs(_rows(out), "distance_us_ft")
    suffix = uuid.uuid4().hex[:8]
    l, r = f"near_left_{suffix}", f"near_right_{suffix}"
    rows = _sql(postgis, "SET extra_float_digits = 3;\n"
                + _load_points(l, shapely.get_x(lg), shapely.get_y(lg), 32038)
                + _load_points(r, shapely.get_x(rg), shapely.get_y(rg), 32038)
                + f"SELECT a.id, b.id, ST_Distance(a.geom, b.geom) FROM {l} a JOIN {r} b "
                  f"ON ST_DWithin(a.geom, b.geom, 2000);\nDROP TABLE {l}, {r};\n")
    expected = {(a, b): float(d) for a, b, d in rows}
    assert len(expected) > 1000
    assert got.keys() == expected.keys()
    for key, d in expected.items():
        assert abs(got[key] - d) <= 1e-9 * max(d, 1.0), key


def test_geodesic_pairs_and_distances_match_postgis_geography(meridian, postgis, tmp_path):
    """PostGIS geography `ST_DWithin(…, 150 km, use_spheroid => true)` (WGS84) through its GiST index, on points around
    ±180° and both poles: the same pairs, distances within 1 µm (PostGIS solves Karney's inverse problem, good to
    ~15 nm; Meridian too, or below 99.7 km the chord formula, within 0.26 µm of it; the bench's largest difference at
    1M places was 1.2e-8 m). No pair lies within 1 µm of
    the 150 km boundary, so the pair sets cannot differ by rounding."""
    rng = np.random.default_rng(SEED + 5)
    llon, llat, rlon, rlat, got = _geodesic_pairs_within_150_km(meridian, tmp_path, rng)
    suffix = uuid.uuid4().hex[:8]
    l, r = f"near_gleft_{suffix}", f"near_gright_{suffix}"
    rows = _sql(postgis, "SET extra_float_digits = 3;\n"
                + _load_points(l, llon, llat, 4326, geography=True)
                + _load_points(r, rlon, rlat, 4326, geography=True)
                + f"SELECT a.id, b.id, ST_Distance(a.geom, b.geom, true) FROM {l} a JOIN {r} b "
                  f"ON ST_DWithin(a.geom, b.geom, 150000, true);\n"
                  f"SELECT count(*) FROM {l} a JOIN {r} b ON abs(ST_Distance(a.geom, b.geom, true) - 150000) < 1e-6;\n"
                  f"DROP TABLE {l}, {r};\n")
    *pairs, (on_boundary,) = rows
    assert on_boundary == "0"
    expected = {(a, b): float(d) for a, b, d in pairs}
    assert len(expected) > 300
    assert any((llon[int(a[1:])] > 0) != (rlon[int(b[1:])] > 0) and abs(llat[int(a[1:])]) < 10 for a, b in expected)
    assert got.keys() == expected.keys()
    for key, s in expected.items():
        assert abs(got[key] - s) <= 1e-6, key
