"""The one area-of-use rule: a projection's horizon, its area of use widened by 5° where PROJ's
round trip returns the point. Checked against PROJ's own NAD27 test points (NGS l176) with pyproj as the reference,
and the command line against the viewer on the same points."""
import csv
import math
import re
import subprocess

import pytest
from geographiclib.geodesic import Geodesic
from pyproj import CRS, Transformer

US_FT = 1200 / 3937
MARGIN = 5.0  # ProjectionHorizon.margin


def _yaml_points(fixtures):
    """(zone, label, lon_dms, lat_dms, l176 E, l176 N, PROJ E, PROJ N) of PROJ's test_proj_nad27.yaml."""
    text = (fixtures / "stateplane" / "proj_test_proj_nad27.yaml").read_text()
    points = []
    for args, given, out in re.findall(r"- args: (.*)\n  in: (.*)\n  out: \"(.*)\"", text):
        zone = re.search(r"nad27:(\d+)", args).group(1)
        lon, lat, e, n, *label = given.split()
        result = out.replace("\\t", " ").split()
        if "-E" in args.split():
            result = result[2:]
        points.append((zone, " ".join(label), lon, lat, e, n, result[0], result[1]))
    return points


def _rows(fixtures):
    with open(fixtures / "stateplane" / "nad27_l176_points.csv", newline="") as f:
        return list(csv.DictReader(f))


def _dms(text):
    m = re.fullmatch(r"(-?)(\d+)d(\d+)'([\d.]+)", text)
    return (-1 if m.group(1) else 1) * (int(m.group(2)) + int(m.group(3)) / 60 + float(m.group(4)) / 3600)


def _to_feet(crs, x, y):
    factor = crs.axis_info[0].unit_conversion_factor / US_FT
    return x * factor, y * factor


def test_the_fixture_is_projs_yaml_with_epsg_codes_pyproj_reproduces(fixtures):
    """The CSV holds exactly the YAML's 265 points, and each row's EPSG CRS (on its geographic base) projects the
    point to PROJ's published value within 0.01 ft (see the README: EPSG's Rhode Island and Alaska zone 1 parameters
    differ from the old nad27 file's in their last digits)."""
    rows = _rows(fixtures)
    assert [(r["zone"], r["label"], r["lon_dms"], r["lat_dms"], r["l176_easting_usft"], r["l176_northing_usft"],
             r["proj_easting_usft"], r["proj_northing_usft"]) for r in rows] == _yaml_points(fixtures)
    assert len({r["zone"] for r in rows}) == 126
    for r in rows:
        assert abs(_dms(r["lon_dms"]) - float(r["lon"])) < 1e-12 and abs(_dms(r["lat_dms"]) - float(r["lat"])) < 1e-12
        crs = CRS.from_epsg(int(r["epsg"]))
        assert crs.geodetic_crs.to_epsg() == int(r["geographic_epsg"]), r["label"]
        x, y = Transformer.from_crs(int(r["geographic_epsg"]), crs, always_xy=True).transform(float(r["lon"]), float(r["lat"]))
        e, n = _to_feet(crs, x, y)
        assert max(abs(e - float(r["proj_easting_usft"])), abs(n - float(r["proj_northing_usft"]))) <= 0.01, r["label"]


def test_meridian_project_accepts_and_projects_every_ngs_point(meridian, fixtures, tmp_path):
    """`meridian project` (no --allow-outside-area) projects every point of every zone, as pyproj does (to 1e-4 of
    the zone's unit: the CSV's 4 decimals), including the 14 points (of 11 zones) that lie outside EPSG's boxes."""
    zones = {}
    for r in _rows(fixtures):
        zones.setdefault((r["epsg"], r["geographic_epsg"]), []).append(r)
    outside = 0
    for (epsg, base), rows in zones.items():
        crs = CRS.from_epsg(int(epsg))
        src = tmp_path / f"{epsg}.csv"
        src.write_text("label,lon,lat\n" + "".join(f"p{i},{r['lon']},{r['lat']}\n" for i, r in enumerate(rows)))
        out = subprocess.run([meridian, "project", str(src), "--from", f"EPSG:{base}", "--to", f"EPSG:{epsg}"],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, f"EPSG:{epsg}: {out.stderr}"
        lines = list(csv.DictReader(out.stdout.splitlines()))
        to_wgs84 = Transformer.from_crs(int(base), 4326, always_xy=True)
        west, south, east, north = crs.area_of_use.bounds
        for r, line in zip(rows, lines, strict=True):
            x, y = Transformer.from_crs(int(base), crs, always_xy=True).transform(float(r["lon"]), float(r["lat"]))
            # The CSV keeps 4 decimals of the zone's unit (foot or metre): 5e-5 of rounding, then two PROJ versions.
            assert abs(float(line["x"]) - x) <= 1e-4 and abs(float(line["y"]) - y) <= 1e-4, (r["label"], line, x, y)
            lon, lat = to_wgs84.transform(float(r["lon"]), float(r["lat"]))
            inside = south <= lat <= north and (west <= lon <= east if west <= east else lon >= west or lon <= east)
            outside += not inside
    assert outside >= 12  # 14 points of 11 zones (pyproj 3.7's boxes)


def test_far_points_are_refused_with_an_override(meridian):
    r = subprocess.run([meridian, "project", "-", "--to", "EPSG:32038"], input="lon,lat\n170,30\n",
                       capture_output=True, text=True)
    assert r.returncode == 1 and "is outside the area of use of NAD27 / Texas North Central" in r.stderr
    assert "5° beyond it are accepted" in r.stderr and "--allow-outside-area" in r.stderr
    o = subprocess.run([meridian, "project", "-", "--to", "EPSG:32038", "--allow-outside-area"],
                       input="lon,lat\n170,30\n", capture_output=True, text=True)
    assert o.returncode == 0, o.stderr


# (wkid, [(lon, lat)]): per spatial reference, points inside, at the pole, within and beyond the margin, far away.
CASES = [
    (32038, [(-97.5, 33), (-96.797, 27.0), (-96.797, 26.5), (-90.0, 32.5), (-88.5, 32.5), (170, 30), (-97, -10)]),
    (26731, [(-129.5417, 54.5417), (-141.5, 60.5), (-125.5, 56), (-124.5, 56), (-135, 49)]),
    (3413, [(0, 90), (-45, 75), (100, 56), (100, 54), (0, -89)]),
    (32661, [(0, 90), (10, 85), (10, 56), (10, 54)]),
    (5041, [(0, 90), (120, 80), (120, 58), (120, 50)]),
    (3031, [(0, -90), (60, -70), (60, -56), (60, -54), (0, 89)]),
    (3857, [(0, 0), (179.99, 10), (-179.99, -10), (10, 85), (10, 89.5)]),
]


@pytest.mark.parametrize("wkid, points", CASES)
def test_the_viewer_answers_what_the_command_line_answers(meridian, viewer, wkid, points, tmp_path):
    """The same points, in the spatial reference's own coordinates (pyproj), asked of `meridian buffer` (exit 0 or
    the refusal) and of the viewer's POST /api/contains: the same answer for each, and the one the box widened by
    5° gives (pyproj's WGS84 box; the points are at least 0.2° from its edges); the pole of a polar projection is
    inside."""
    crs = CRS.from_epsg(wkid)
    west, south, east, north = crs.area_of_use.bounds
    forward = Transformer.from_crs(4326, crs, always_xy=True)
    for lon, lat in points:
        x, y = forward.transform(lon, lat)
        assert math.isfinite(x) and math.isfinite(y), (wkid, lon, lat)
        src = tmp_path / "p.csv"
        src.write_text(f"x,y\n{x!r},{y!r}\n")
        cli = subprocess.run([meridian, "buffer", str(src), "--srs", f"EPSG:{wkid}", "--distance", "1",
                              "-o", str(tmp_path / "b.wkt")], capture_output=True, text=True, timeout=60)
        assert cli.returncode in (0, 1), cli.stderr
        status, body = viewer.post_json("/api/contains", {"wkid": wkid, "x": x, "y": y})
        assert status == 200, body
        assert body["inside"] == (cli.returncode == 0), (wkid, lon, lat, cli.stderr, body)
        widened = (max(-90, south - MARGIN) <= lat <= min(90, north + MARGIN)
                   and (abs(lat) == 90 or east - west + 2 * MARGIN >= 360
                        or west - MARGIN <= lon <= east + MARGIN))
        assert body["inside"] == widened, (wkid, lon, lat, body)


@pytest.mark.parametrize("x", [20037508.342789244, -20037508.342789244])
def test_geodesic_buffers_at_the_antimeridian_in_the_viewer(viewer, x):
    """A geodesic buffer on ±180° in Web Mercator, as the command line computes it (longitude/latitude, split at
    ±180°), drawn in Web Mercator: every vertex 10 miles from the centre (geographiclib) within 0.05 m (JSON keeps
    centimetres), and no error naming a field the API does not have."""
    status, body = viewer.post_json("/api/buffer", {"wkid": 3857, "points": [{"x": x, "y": 0}], "radiiMiles": [10],
                                                    "mode": "geodesic"})
    assert status == 200, body
    inverse = Transformer.from_crs(3857, 4326, always_xy=True)
    vertices = [v for polygon in body["polygons"] for part in polygon["parts"] for v in part["shell"]]
    assert len(vertices) > 20 and len(body["polygons"][0]["parts"]) == 2
    for vx, vy in vertices:
        lon, lat = inverse.transform(vx, vy)
        if abs(abs(lon) - 180) < 1e-9 and abs(lat) < 1e-6:
            continue  # none expected: the circle's crossings of ±180° are at ±0.145° of latitude
        d = Geodesic.WGS84.Inverse(0, 180, lat, lon)["s12"]
        assert abs(d - 16093.44) <= 0.05, (vx, vy, d)
