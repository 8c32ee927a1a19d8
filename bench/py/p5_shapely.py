"""P5 peer: the job as a shapely 2.1 script. Usage: p5_shapely.py wkt|geojson IN.csv OUT RADIUS_M
Reads x,y with numpy, buffers each point (64-gon, quad_segs=16), unions with disjoint_subset_union_all (the faster
of shapely's union methods on P1's overlapping points), writes WKT, or GeoJSON after pyproj's transform to WGS84."""
import json
import sys

import numpy as np
import shapely

fmt, src, out, radius = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
xy = np.loadtxt(src, delimiter=",", skiprows=1, usecols=(1, 2))
union = shapely.disjoint_subset_union_all(shapely.buffer(shapely.points(xy), radius, quad_segs=16))
with open(out, "w") as f:
    if fmt == "wkt":
        f.write(shapely.to_wkt(union, rounding_precision=-1) + "\n")
    else:
        from pyproj import Transformer
        t = Transformer.from_crs("EPSG:5070", "EPSG:4326", always_xy=True)
        union = shapely.transform(union, lambda c: np.column_stack(t.transform(c[:, 0], c[:, 1])))
        f.write('{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"count":%d},"geometry":%s}]}\n'
                % (len(xy), shapely.to_geojson(union)))
