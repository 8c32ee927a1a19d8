"""The two ArcGIS samples ported to Meridian (examples/BufferAroundPoints, examples/CreateAndSaveKML; executable
targets of Package.swift, built by `swift build` in scripts/test.sh): each runs, its output is checked against values
computed here independently (closed forms for the buffers, the KMZ read back with zipfile/ElementTree and pyproj),
and their sources get a typed geometry back without `guard case`, force-unwraps or casts (the API's typed results)."""
import math
import pathlib
import re
import subprocess
import xml.etree.ElementTree as ET
import zipfile

import pytest
from pyproj import Transformer

from viewer_support import ROOT

EXAMPLES = ROOT / "examples"
KML = "{http://www.opengis.net/kml/2.2}"
# A point's planar buffer is the regular 64-gon inscribed in the circle (16 chords per quarter circle, the default
# BufferParameters): area 32·r²·sin(π/32), 0.16 % below π·r². Its inscribed circle has radius r·cos(π/64).
N = 64


@pytest.fixture(scope="module")
def bin_dir():
    """Where `swift build` put the sample executables: the debug build's folder (scripts/test.sh builds every target
    there; MERIDIAN_BIN may name a release `meridian` elsewhere, built alone)."""
    return pathlib.Path(subprocess.check_output(["swift", "build", "--show-bin-path"], cwd=ROOT, text=True).strip())


def run(bin_dir, name, *args):
    exe = bin_dir / name
    assert exe.exists(), f"{exe} is missing: scripts/test.sh builds every target with swift build"
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=120)


BUFFER_LINE = re.compile(r"^buffer (\d+): centre \(([-\d.e+]+), ([-\d.e+]+)\) ft, radius ([\d.]+) mi, "
                         r"area ([\d.e+]+) sq mi, (\d+) vertices$")


def buffers(bin_dir, *taps):
    p = run(bin_dir, "BufferAroundPoints", *taps)
    assert p.returncode == 0, p.stderr
    rows = [BUFFER_LINE.match(line) for line in p.stdout.splitlines() if line.startswith("buffer ")]
    assert rows and all(rows), p.stdout
    return [(float(m[2]), float(m[3]), float(m[4]), float(m[5]), int(m[6])) for m in rows]


def union_area(bin_dir, *taps):
    p = run(bin_dir, "BufferAroundPoints", "--union", *taps)
    assert p.returncode == 0, p.stderr
    m = re.search(r"^union: (\d+) parts, area ([\d.e+]+) sq mi", p.stdout, re.M)
    assert m, p.stdout
    return int(m[1]), float(m[2])


def test_each_buffer_is_the_inscribed_64_gon_of_its_radius(bin_dir):
    # The sample's default taps (Dallas 10 mi, Fort Worth 20 mi) and radii from near 0 to near the 300-mile limit.
    rows = buffers(bin_dir) + buffers(bin_dir, "33.0,-97.0,0.5", "32.9,-97.2,299")
    assert [r[2] for r in rows] == [10, 20, 0.5, 299]
    for _, _, miles, area, vertices in rows:
        assert vertices == N + 1  # closed ring
        polygon = N / 2 * miles ** 2 * math.sin(2 * math.pi / N)
        # Rounding only: coordinates ~2e6 ft, area from 64 cross products (relative error ~1e-12); 1e-9 is ample.
        assert abs(area - polygon) <= 1e-9 * polygon, (miles, area, polygon)
        # Hence within the stated chord error of the true circle: 0 < 1 - area/(π r²) < 0.17 %.
        assert 0 < 1 - area / (math.pi * miles ** 2) < 0.0017


def lens_union(r1, r2, d):
    """Area of the union of two discs (radii r1, r2, centres d apart), the closed form."""
    if d >= r1 + r2:
        return math.pi * (r1 * r1 + r2 * r2)
    if d <= abs(r1 - r2):
        return math.pi * max(r1, r2) ** 2
    a1 = r1 * r1 * math.acos((d * d + r1 * r1 - r2 * r2) / (2 * d * r1))
    a2 = r2 * r2 * math.acos((d * d + r2 * r2 - r1 * r1) / (2 * d * r2))
    k = 0.5 * math.sqrt((-d + r1 + r2) * (d + r1 - r2) * (d - r1 + r2) * (d + r1 + r2))
    return math.pi * (r1 * r1 + r2 * r2) - (a1 + a2 - k)


@pytest.mark.parametrize("taps", [
    ("32.7767,-96.797,10", "32.7555,-97.3308,20"),  # ~31 mi apart: two parts, union = sum
    ("32.7767,-96.797,10", "32.80,-96.70,8"),       # ~6 mi apart: overlapping, one part
])
def test_union_area_lies_between_the_discs_unions(bin_dir, taps):
    (x1, y1, r1, a1, _), (x2, y2, r2, a2, _) = buffers(bin_dir, *taps)
    parts, area = union_area(bin_dir, *taps)
    ft_per_mile = 1609.344 / (1200 / 3937)  # international mile in US survey feet
    d = math.hypot(x2 - x1, y2 - y1) / ft_per_mile
    # The polygons lie between their inscribed circles (radius r·cos(π/64)) and their circumcircles (radius r).
    c = math.cos(math.pi / N)
    lower, upper = lens_union(r1 * c, r2 * c, d), lens_union(r1, r2, d)
    assert lower <= area <= upper, (lower, area, upper)
    if d > r1 + r2:
        assert parts == 2 and abs(area - (a1 + a2)) <= 1e-9 * area
    else:
        assert parts == 1 and area < a1 + a2


def test_taps_the_sample_refuses(bin_dir):
    p = run(bin_dir, "BufferAroundPoints", "40.7,-74.0,5", "32.8,-96.8,300", "32.8,-96.8,0", "32.8,-96.8,12")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "refused 40.7,-74.0,5: tap within the boundary to add a buffer"  # New York: outside Texas
    assert lines[1] == "refused 32.8,-96.8,300: enter a number between 0 and 300 miles"
    assert lines[2] == "refused 32.8,-96.8,0: enter a number between 0 and 300 miles"
    assert lines[3].startswith("buffer 1:") and ", radius 12.0 mi," in lines[3] and len(lines) == 4
    p = run(bin_dir, "BufferAroundPoints", "40.7,-74.0,5")
    assert p.returncode == 1 and "every tap was refused" in p.stdout
    p = run(bin_dir, "BufferAroundPoints", "Dallas")
    assert p.returncode == 2 and p.stderr == "BufferAroundPoints: expected LATITUDE,LONGITUDE,MILES, got 'Dallas'\n"


def test_create_and_save_kml_round_trip(bin_dir, tmp_path):
    out = tmp_path / "sketches.kmz"
    p = run(bin_dir, "CreateAndSaveKML", str(out))
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [
        "document: 3 placemarks",
        "placemark Star: Point, icon https://static.arcgis.com/images/Symbols/Shapes/BlueStarLargeB.png",
        "placemark Route: LineString, line #0000ff",
        "placemark Field: Polygon, fill #ffff00",
        f"saved {out}",
    ]
    # Read back here, independently: a KMZ whose first entry is doc.kml, placemarks in WGS84 longitude/latitude.
    with zipfile.ZipFile(out) as z:
        assert z.namelist()[0] == "doc.kml"
        root = ET.fromstring(z.read("doc.kml"))
    placemarks = root.findall(f".//{KML}Placemark")
    assert [pm.findtext(f"{KML}name") for pm in placemarks] == ["Star", "Route", "Field"]
    to_lonlat = Transformer.from_crs("EPSG:3857", "EPSG:4326", always_xy=True)
    lon, lat = to_lonlat.transform(-10_775_000, 3_865_000)
    x, y = map(float, placemarks[0].findtext(f".//{KML}Point/{KML}coordinates").split(",")[:2])
    assert abs(x - lon) < 1e-9 and abs(y - lat) < 1e-9  # spherical Mercator inverse: closed form, ~1e-14°
    ring = placemarks[2].findtext(f".//{KML}outerBoundaryIs/{KML}LinearRing/{KML}coordinates").split()
    assert len(ring) == 5 and ring[0] == ring[-1]
    for vertex in ring:
        x, y = map(float, vertex.split(",")[:2])
        mx, my = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True).transform(x, y)
        assert min(abs(mx + 10_790_000), abs(mx + 10_780_000)) < 1e-6
        assert min(abs(my - 3_850_000), abs(my - 3_858_000)) < 1e-6
    # Styles as the sample sets them; KML colours are aabbggrr.
    assert placemarks[1].findtext(f".//{KML}LineStyle/{KML}color") == "ffff0000"  # blue
    assert placemarks[1].findtext(f".//{KML}LineStyle/{KML}width") == "2"
    assert placemarks[2].findtext(f".//{KML}PolyStyle/{KML}color") == "ff00ffff"  # yellow
    assert placemarks[2].findtext(f".//{KML}PolyStyle/{KML}fill") == "1"
    assert placemarks[2].findtext(f".//{KML}PolyStyle/{KML}outline") == "0"
    assert placemarks[0].findtext(f".//{KML}IconStyle/{KML}Icon/{KML}href") == \
        "https://static.arcgis.com/images/Symbols/Shapes/BlueStarLargeB.png"
    # A bad output path is a one-line error and exit 1, with no partial file.
    p = run(bin_dir, "CreateAndSaveKML", str(tmp_path / "missing-dir" / "x.kmz"))
    assert p.returncode == 1 and p.stderr.startswith("CreateAndSaveKML: ") and p.stderr.count("\n") == 1
    assert not (tmp_path / "missing-dir").exists()


def code_only(source: str) -> str:
    """Swift source without comments and string literals, so that only code is searched."""
    source = re.sub(r'"""(?:.|\n)*?"""', '""', source)
    source = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', source)
    source = re.sub(r"/\*(?:.|\n)*?\*/", "", source)
    return re.sub(r"//[^\n]*", "", source)


FORBIDDEN = {
    "guard case": re.compile(r"\bguard\s+case\b"),
    "a force-unwrap or try!": re.compile(r"(?<=[\w)\]}])!(?!=)"),
    "a cast (as? / as!)": re.compile(r"\bas[?!]"),
}


def forbidden_in(source: str):
    code = code_only(source)
    return [name for name, pattern in FORBIDDEN.items() if pattern.search(code)]


def test_example_sources_get_typed_geometries_without_unwrapping():
    sources = sorted(EXAMPLES.glob("*/*.swift"))
    assert {s.parent.name for s in sources} == {"BufferAroundPoints", "CreateAndSaveKML"}
    for source in sources:
        assert forbidden_in(source.read_text()) == [], source


def test_the_source_check_catches_each_form():
    assert forbidden_in("guard case .polygon(let p) = g else { return }") == ["guard case"]
    assert forbidden_in("let p = g.polygon!") == ["a force-unwrap or try!"]
    assert forbidden_in("let u = URL(string: s)!") == ["a force-unwrap or try!"]
    assert forbidden_in("let p = try! GeometryEngine.project(g, into: .wgs84)") == ["a force-unwrap or try!"]
    assert forbidden_in("let p = g as? Polygon") == ["a cast (as? / as!)"]
    assert forbidden_in("if !a.isEmpty && b != c { print(\"wow!\") } // done!") == []
