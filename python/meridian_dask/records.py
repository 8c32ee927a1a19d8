"""The binary records `meridian internal` exchanges with meridian-dask (the layouts are documented with
`BinaryRecords` in Sources/MeridianCLI/Output/BinaryRecords.swift): little-endian 8-byte integers and doubles, so
coordinates cross between the processes bit for bit."""
from __future__ import annotations

import struct

import numpy as np

_INT = struct.Struct("<q")


def read_pieces(data: bytes) -> list[tuple[int, int, np.ndarray]]:
    """A cell's pieces: (kind 0 chain / 1 hole, local part, vertices as an (n, 2) array)."""
    pieces = []
    offset = 0
    while offset < len(data):
        kind, part, n = struct.unpack_from("<qqq", data, offset)
        offset += 24
        coords = np.frombuffer(data, dtype="<f8", count=2 * n, offset=offset).reshape(n, 2)
        offset += 16 * n
        pieces.append((kind, part, coords))
    return pieces


def write_parts(parts: list[list[np.ndarray]]) -> bytes:
    """Polygon parts (each a list of rings, shell first, each an (n, 2) array) in the `parts` layout."""
    out = [_INT.pack(len(parts))]
    for rings in parts:
        out.append(_INT.pack(len(rings)))
        for ring in rings:
            ring = np.ascontiguousarray(ring, dtype="<f8")
            out.append(_INT.pack(len(ring)))
            out.append(ring.tobytes())
    return b"".join(out)


def read_texts(data: bytes, keyed: bool = True) -> list[tuple[int, bytes]]:
    """Texts with their lengths, each after a key when `keyed` (holes: the local part) - (key or -1, text)."""
    texts = []
    offset = 0
    while offset < len(data):
        key = -1
        if keyed:
            (key,) = _INT.unpack_from(data, offset)
            offset += 8
        (n,) = _INT.unpack_from(data, offset)
        texts.append((key, data[offset + 8:offset + 8 + n]))
        offset += 8 + n
    return texts


def read_indices(data: bytes) -> np.ndarray:
    """Integers, one per entry."""
    return np.frombuffer(data, dtype="<i8")


def split_geometries(data: bytes) -> list[tuple[int, int]]:
    """The byte range of each record of the `geometries` layout (WKB, distance, label)."""
    ranges = []
    offset = 0
    while offset < len(data):
        start = offset
        (n,) = _INT.unpack_from(data, offset)
        offset += 8 + n + 8
        (m,) = _INT.unpack_from(data, offset)
        offset += 8 + m
        ranges.append((start, offset))
    return ranges


def geometry_record(data: bytes, start: int) -> tuple[bytes, float]:
    """The WKB and the distance of the record at `start`."""
    (n,) = _INT.unpack_from(data, start)
    wkb = data[start + 8:start + 8 + n]
    (distance,) = struct.unpack_from("<d", data, start + 8 + n)
    return wkb, distance


def point_records(circles: np.ndarray) -> bytes:
    """Circles (x, y, r rows) as `geometries` records of points (ISO WKB, little-endian), without labels."""
    out = []
    for x, y, r in circles:
        wkb = struct.pack("<BIdd", 1, 1, x, y)
        out.append(_INT.pack(len(wkb)) + wkb + struct.pack("<d", r) + _INT.pack(0))
    return b"".join(out)


def wkb_coordinates(wkb: bytes) -> np.ndarray:
    """Every vertex (x, y) of an ISO or EWKB geometry, as an (n, 2) array (for extents)."""
    coords: list[tuple[float, float]] = []

    def geometry(offset: int) -> int:
        order = "<" if wkb[offset] == 1 else ">"
        (kind,) = struct.unpack_from(order + "I", wkb, offset + 1)
        offset += 5
        if kind & 0x20000000:  # EWKB SRID
            offset += 4
        dims = 2
        if kind & 0x80000000 or kind & 0x40000000:  # EWKB Z / M
            dims += bool(kind & 0x80000000) + bool(kind & 0x40000000)
        kind &= 0x0FFFFFFF
        base = kind % 1000
        dims += {1: 1, 2: 1, 3: 2}.get(kind // 1000, 0)
        fmt = order + "d" * dims

        def positions(offset: int, n: int) -> int:
            for _ in range(n):
                values = struct.unpack_from(fmt, wkb, offset)
                coords.append((values[0], values[1]))
                offset += 8 * dims
            return offset

        if base == 1:
            return positions(offset, 1)
        (n,) = struct.unpack_from(order + "I", wkb, offset)
        offset += 4
        if base == 2:
            return positions(offset, n)
        if base == 3:
            for _ in range(n):
                (m,) = struct.unpack_from(order + "I", wkb, offset)
                offset = positions(offset + 4, m)
            return offset
        for _ in range(n):  # multi* and collections
            offset = geometry(offset)
        return offset

    geometry(0)
    return np.array(coords, dtype=float).reshape(-1, 2)
