"""The reference distances of geodesic proximity (Tests/Fixtures/geodesic/near_segments.csv, read by the Swift suite
ProximityGeodesicShapeTests) are GeographicLib's: the cases in the file are those the generator draws, and rows
recomputed here with GeographicLib (the minimum of its Inverse over the segments) equal the committed values.
Regenerate the whole file with scripts/make-geodesic-near-reference.py."""
import importlib.util
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CSV = ROOT / "Tests" / "Fixtures" / "geodesic" / "near_segments.csv"


def generator():
    spec = importlib.util.spec_from_file_location("near_reference", ROOT / "scripts" / "make-geodesic-near-reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def committed():
    lines = CSV.read_text(encoding="utf-8").splitlines()
    return lines[0], lines[1:]


def test_the_committed_cases_are_the_generators():
    gen = generator()
    header, rows = committed()
    assert header == gen.HEADER
    cases = gen.cases()
    assert len(rows) == len(cases) == 96
    for case, row in zip(cases, rows):
        assert gen.row(case, 0.0).rsplit(",", 1)[0] == row.rsplit(",", 1)[0]


def test_recomputed_reference_distances_equal_the_committed_ones():
    gen = generator()
    _, rows = committed()
    cases = gen.cases()
    # Every fourth point-segment row and one segment pair (the whole file takes about a minute of CPU).
    chosen = list(range(0, 80, 4)) + [80]
    for i in chosen:
        expected = float(rows[i].rsplit(",", 1)[1])
        got = gen.reference(cases[i])
        assert math.isclose(got, expected, rel_tol=0, abs_tol=1e-9), (i, got, expected)


def test_the_reference_finds_interior_minima():
    # A point 1 km north of the middle of an equatorial segment: the minimum is inside the segment, far below the
    # distance to either end (what a reference sampling only the ends would give).
    gen = generator()
    d = gen.point_segment((0.009043694, 0.5), (0.0, 0.0), (0.0, 1.0))
    assert abs(d - 1000.0) < 0.01
    assert gen.WGS84.Inverse(0.009043694, 0.5, 0.0, 0.0)["s12"] > 50_000
