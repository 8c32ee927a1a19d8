"""GeoParquet input (version 1.x, WKB geometry column), read with pyarrow a row group at a time.

`meridian` does not read Parquet: each row group becomes text that it does read, with the file's name and the row
numbers in its messages (lines are left out: a row group has none). Points become CSV (lon,lat in OGC:CRS84 or
EPSG:4326, else x,y with the file's EPSG code as --in-srs), written by pyarrow's CSV writer, which writes every
double so that it reads back bit for bit; other geometries become a GeoJSON text sequence with their properties
(longitude/latitude files only: GeoJSON has no other coordinates).
"""
from __future__ import annotations

import json
import math
import os
import struct

import numpy as np

from .chunks import Chunk, InputFormat
from .runner import MeridianError, SetupError

LONLAT = {("OGC", "CRS84"), ("EPSG", "4326"), ("OGC", "CRS84H")}


def chunks(file: int, path: str) -> list[Chunk]:
    """One chunk per row group."""
    import pyarrow.parquet as pq

    try:
        metadata = pq.ParquetFile(path).metadata
    except Exception as e:  # pyarrow raises several kinds for a damaged file
        raise SetupError(f"{path}: not a readable Parquet file ({e})") from None
    result, before = [], 0
    for g in range(metadata.num_row_groups):
        result.append(Chunk(file, path, InputFormat.PARQUET, row_group=g, rows_before=before))
        before += metadata.row_group(g).num_rows
    if not result:
        result.append(Chunk(file, path, InputFormat.PARQUET, row_group=-1))
    return result


def _geo(path: str, schema) -> tuple[str, str | None]:
    """The geometry column and its CRS (authority:code), or None for longitude/latitude."""
    raw = (schema.metadata or {}).get(b"geo")
    if raw is None:
        raise SetupError(f"{path}: a Parquet file without GeoParquet metadata (no 'geo' key)")
    geo = json.loads(raw)
    column = geo.get("primary_column", "geometry")
    meta = geo.get("columns", {}).get(column, {})
    if meta.get("encoding", "WKB").upper() != "WKB":
        raise SetupError(f"{path}: GeoParquet encoding {meta.get('encoding')!r}; only WKB is read")
    crs = meta.get("crs")
    if crs is None:
        return column, None
    ident = crs.get("id", {}) if isinstance(crs, dict) else {}
    key = (str(ident.get("authority", "")).upper(), str(ident.get("code", "")))
    if key in LONLAT or (key[0] == "OGC" and key[1].upper().startswith("CRS84")):
        return column, None
    if not key[0] or not key[1]:
        raise SetupError(f"{path}: the GeoParquet CRS has no authority code; give the file an EPSG CRS")
    return column, f"{key[0]}:{key[1]}"


def convert(chunk: Chunk, folder: str, arguments: list[str]) -> tuple[str, list[str], dict]:
    """Writes the chunk's row group as text meridian reads; returns its path, the arguments to use (with --in-srs
    for a projected file) and the origin of its messages."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    parquet = pq.ParquetFile(chunk.path)
    column, crs = _geo(chunk.path, parquet.schema_arrow)
    table = parquet.read_row_group(chunk.row_group) if chunk.row_group >= 0 else parquet.schema_arrow.empty_table()
    origin = {"name": chunk.path, "featureOffset": chunk.rows_before, "lineNumbers": False}
    arguments = list(arguments)
    if crs is not None:
        if "--in-srs" in arguments and arguments[arguments.index("--in-srs") + 1].upper() != crs:
            raise SetupError(f"--in-srs {arguments[arguments.index('--in-srs') + 1]} does not match "
                             f"{chunk.path}'s CRS {crs}", 2)
        if "--in-srs" not in arguments:
            arguments += ["--in-srs", crs]
    geometry = table.column(column).combine_chunks()
    others = table.drop_columns([column])
    for i in range(len(geometry)):
        if not geometry[i].is_valid:
            raise MeridianError(f"{chunk.path}: feature {chunk.rows_before + i} has no geometry", 1, "read")
    points = _points(geometry)
    if points is not None:
        x, y = points
        bad = np.nonzero(~(np.isfinite(x) & np.isfinite(y)))[0]
        if len(bad):
            i = int(bad[0])
            raise MeridianError(f"{chunk.path}: feature {chunk.rows_before + i}: ({x[i]!r}, {y[i]!r}) is not a "
                                "finite coordinate pair", 1, "read")
        names = ("lon", "lat") if crs is None else ("x", "y")
        keep = [n for n in others.column_names if n.strip().lower() not in
                {"x", "y", "lon", "lat", "lng", "longitude", "latitude"}]
        columns = {names[0]: x, names[1]: y} | {n: others.column(n) for n in keep}
        path = os.path.join(folder, "rows.csv")
        pcsv.write_csv(pa.table(columns), path)
        return path, arguments, origin
    if crs is not None:
        raise SetupError(f"{chunk.path}: lines and polygons in GeoParquet are read in longitude/latitude only "
                         f"(OGC:CRS84 or EPSG:4326), not {crs}", 2)
    path = os.path.join(folder, "rows.geojsons")
    properties = others.to_pylist()
    with open(path, "w") as f:
        for i in range(len(geometry)):
            feature = {"type": "Feature", "geometry": _geojson(geometry[i].as_py()),
                       "properties": {k: _plain(v) for k, v in properties[i].items()}}
            f.write("\x1e" + json.dumps(feature, allow_nan=False) + "\n")
    return path, arguments, origin


def _plain(value):
    """A property value JSON can hold."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def _points(geometry) -> tuple[np.ndarray, np.ndarray] | None:
    """x and y of a WKB column of 2D little-endian points (read straight from the buffer), or None."""
    if len(geometry) == 0:
        return np.empty(0), np.empty(0)
    import pyarrow as pa

    width = 8 if pa.types.is_large_binary(geometry.type) else 4
    offsets = np.frombuffer(geometry.buffers()[1], dtype=np.int64 if width == 8 else np.int32,
                            count=len(geometry) + 1, offset=geometry.offset * width)
    data = np.frombuffer(geometry.buffers()[2], dtype=np.uint8)
    if not np.all(np.diff(offsets) == 21):
        return None
    starts = offsets[:-1]
    if not (np.all(data[starts] == 1) and np.all(data[starts + 1] == 1) and not np.any(data[starts + 2]) and
            not np.any(data[starts + 3]) and not np.any(data[starts + 4])):
        return None
    xy = np.ascontiguousarray(data[starts[:, None] + 5 + np.arange(16)]).view("<f8")
    return xy[:, 0].copy(), xy[:, 1].copy()


def _geojson(wkb: bytes) -> dict:
    """A GeoJSON geometry from ISO or EWKB (2D or with heights)."""
    def read(offset: int):
        order = "<" if wkb[offset] == 1 else ">"
        (kind,) = struct.unpack_from(order + "I", wkb, offset + 1)
        offset += 5
        if kind & 0x20000000:
            offset += 4
        dims = 2 + bool(kind & 0x80000000) + bool(kind & 0x40000000)
        kind &= 0x0FFFFFFF
        dims += {1: 1, 2: 1, 3: 2}.get(kind // 1000, 0)
        base = kind % 1000

        def position(offset):
            values = struct.unpack_from(order + "d" * dims, wkb, offset)
            return list(values[:3] if dims >= 3 and not (kind // 1000 == 2) else values[:2]), offset + 8 * dims

        def sequence(offset):
            (n,) = struct.unpack_from(order + "I", wkb, offset)
            offset += 4
            out = []
            for _ in range(n):
                p, offset = position(offset)
                out.append(p)
            return out, offset

        if base == 1:
            p, offset = position(offset)
            return {"type": "Point", "coordinates": p}, offset
        if base == 2:
            s, offset = sequence(offset)
            return {"type": "LineString", "coordinates": s}, offset
        (n,) = struct.unpack_from(order + "I", wkb, offset)
        offset += 4
        if base == 3:
            rings = []
            for _ in range(n):
                s, offset = sequence(offset)
                rings.append(s)
            return {"type": "Polygon", "coordinates": rings}, offset
        members = []
        for _ in range(n):
            g, offset = read(offset)
            members.append(g)
        names = {4: "MultiPoint", 5: "MultiLineString", 6: "MultiPolygon"}
        if base in names:
            return {"type": names[base], "coordinates": [m["coordinates"] for m in members]}, offset
        return {"type": "GeometryCollection", "geometries": members}, offset

    return read(0)[0]
