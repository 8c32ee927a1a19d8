"""P5 peer: the job as one DuckDB spatial query (duckdb + the duckdb-ext-spatial wheel, loaded from the wheel's
file: no download). Usage: p5_duckdb.py wkt|geojson IN.csv OUT RADIUS_M
ST_Union_Agg(ST_Buffer(ST_Point(x, y), r, 16)) over read_csv, written as WKT, or as GeoJSON after ST_Transform to
WGS84 (x = longitude)."""
import pathlib
import sys
import sysconfig

import duckdb

fmt, src, out, radius = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
ext = next((pathlib.Path(sysconfig.get_paths()["purelib"]) / "duckdb_ext" / "extensions").glob(
    f"v{duckdb.__version__}/*/spatial.duckdb_extension"))
con = duckdb.connect()
con.execute(f"LOAD '{ext}'")
union = f"SELECT ST_Union_Agg(ST_Buffer(ST_Point(x, y), {radius!r}, 16)) AS g FROM read_csv('{src}')"
if fmt == "wkt":
    text = con.execute(f"SELECT ST_AsText(g) FROM ({union})").fetchone()[0]
    pathlib.Path(out).write_text(text + "\n")
else:
    n = con.execute(f"SELECT count(*) FROM read_csv('{src}')").fetchone()[0]
    geometry = con.execute(f"SELECT ST_AsGeoJSON(ST_Transform(g, 'EPSG:5070', 'EPSG:4326', always_xy := true)) "
                           f"FROM ({union})").fetchone()[0]
    pathlib.Path(out).write_text('{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"count":%d},'
                                 '"geometry":%s}]}\n' % (n, geometry))
