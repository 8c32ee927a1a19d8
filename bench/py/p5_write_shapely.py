"""P5 writer check: GEOS's own WKT and GeoJSON writers (shapely 2.1 to_wkt, to_geojson)
on the same (multi)polygon meridian-bench p5-write writes. Usage: p5_write_shapely.py FILE.wkt REPS"""
import json
import sys
import time

import shapely

from common import peak_rss_mb

g = shapely.from_wkt(open(sys.argv[1]).readline())
reps = int(sys.argv[2])
wkt, geojson = [], []
for _ in range(reps):
    t0 = time.perf_counter()
    text = shapely.to_wkt(g, rounding_precision=-1)
    wkt.append(time.perf_counter() - t0)
for _ in range(reps):
    t0 = time.perf_counter()
    shapely.to_geojson(g)
    geojson.append(time.perf_counter() - t0)
print(json.dumps({"tool": "shapely", "wkt_times": wkt, "geojson_times": geojson,
                  "coordinates": int(shapely.get_num_coordinates(g)), "wkt_bytes": len(text),
                  "peak_rss_mb": round(peak_rss_mb(), 1)}))
