"""Builds poly.gpkg from GDAL's SQL dump poly.gpkg.sql (autotest/ogr/data/gpkg/poly.gpkg.sql, kept unmodified here)
with Python's own sqlite3, as GDAL's test suite loads such dumps: it runs every statement except the last one (which
fills the R-tree with GDAL's ST_MinX/ST_MaxX SQL functions, which plain SQLite lacks: the R-tree table is created and
left empty), then sets the GeoPackage application id (`GPKG`) and user_version 10200 (GeoPackage 1.2), which a dump
cannot carry. Run: python3 make_poly_gpkg.py (from this folder)."""
import pathlib
import sqlite3

here = pathlib.Path(__file__).resolve().parent
statements = [s for s in (here / "poly.gpkg.sql").read_text().split(";\n") if s.strip()]
out = here / "poly.gpkg"
out.unlink(missing_ok=True)
db = sqlite3.connect(out)
for statement in statements:
    if statement.lstrip().startswith("INSERT INTO rtree_poly_geom"):
        continue
    db.execute("\n".join(line for line in statement.splitlines() if not line.startswith("--")))
db.execute("PRAGMA application_id = 1196444487")  # 0x47504B47, 'GPKG'
db.execute("PRAGMA user_version = 10200")
db.commit()
db.close()
