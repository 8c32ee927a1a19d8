"""P6 peer: the job as a geopandas script. Usage: p6_geopandas.py IN OUT RADIUS_M unary|disjoint_subset
Reads IN with pyogrio (read_dataframe), buffers each point (64-gon, resolution=16), unions with
GeoSeries.union_all(method=…) (shapely 2.1), writes the union with pyogrio (write_dataframe) in IN's format."""
import sys

import geopandas as gpd
import pyogrio

src, out, radius, method = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
points = pyogrio.read_dataframe(src)
union = points.geometry.buffer(radius, resolution=16).union_all(method=method)
result = gpd.GeoDataFrame(geometry=[union], crs=points.crs)
pyogrio.write_dataframe(result, out, promote_to_multi=not out.endswith(".shp"))
