"""Groups of features whose buffers cannot touch another group's, for the unions that are not cut into cells:
geodesic unions, and planar unions of lines and polygons. Each group is unioned by one task, as `meridian buffer
--union` unions the whole input; the union of all is then the disjoint union of the groups' unions.

A feature's reach is a box that holds everything its buffer can cover: its vertices' box grown by the distance
(planar), or for geodesic buffers of longitude/latitude input a box around the spherical cap of the vertices' unit
normals grown by the distance over 6,330 km (less than the ellipsoid's smallest radius of curvature, a(1 − e²) =
6,335 km on WGS84, so a geodesic of length d turns the normal by less than that angle). Features are joined when
their boxes share a cell of a grid: that joins every pair of boxes that overlap (and some that do not, which only
makes groups larger), so features of different groups lie farther apart than their distances.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import records
from .results import Prepared

#: Below the smallest radius of curvature of common ellipsoids (WGS84: a(1 − e²) = 6,335,439 m), in meters.
RADIUS_BOUND = 6_330_000.0


@dataclass
class Extents:
    """The reach box of each record of a prepared chunk ((n, 4) planar or (n, 6) on the unit sphere, or None when
    every feature must be in one group) and the byte ranges of its geometry records (None for circles)."""
    boxes: np.ndarray | None
    ranges: list[tuple[int, int]] | None

    @property
    def count(self) -> int:
        """How many records (circles or geometries) the chunk holds."""
        return len(self.boxes) if self.boxes is not None else len(self.ranges or ())


def extents(prepared: Prepared, geodesic: bool, geographic: bool) -> Extents:
    """The reach boxes and record ranges of a prepared chunk (`Extents`)."""
    payload = prepared.payload
    if isinstance(payload, np.ndarray):  # circles (points of a planar union)
        x, y, r = payload[:, 0], payload[:, 1], payload[:, 2] * (1 + 1e-9)
        return Extents(np.stack([x - r, y - r, x + r, y + r], axis=1), None)
    ranges = records.split_geometries(payload)
    if geodesic and not geographic:
        return Extents(None, ranges)
    boxes = np.empty((len(ranges), 6 if geodesic else 4))
    for k, (start, _) in enumerate(ranges):
        wkb, distance = records.geometry_record(payload, start)
        xy = records.wkb_coordinates(wkb)
        boxes[k] = _cap_box(xy, distance) if geodesic else _planar_box(xy, distance)
    return Extents(boxes, ranges)


def _planar_box(xy: np.ndarray, distance: float) -> list[float]:
    d = abs(distance) * (1 + 1e-9) + 1e-9 * float(np.abs(xy).max(initial=1.0))
    return [xy[:, 0].min() - d, xy[:, 1].min() - d, xy[:, 0].max() + d, xy[:, 1].max() + d]


def _cap_box(lonlat: np.ndarray, distance: float) -> list[float]:
    lon, lat = np.radians(lonlat[:, 0]), np.radians(lonlat[:, 1])
    normals = np.stack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)], axis=1)
    centre = normals.mean(axis=0)
    length = float(np.linalg.norm(centre))
    centre = centre / length if length > 1e-9 else normals[0]
    spread = float(np.arccos(np.clip(normals @ centre, -1, 1)).max())
    angle = spread * 1.01 + abs(distance) / RADIUS_BOUND * (1 + 1e-6) + 1e-9
    if angle >= math.pi / 2:
        return [-1.0, -1.0, -1.0, 1.0, 1.0, 1.0]
    chord = 2 * math.sin(angle / 2)
    return list(centre - chord) + list(centre + chord)


def components(boxes: np.ndarray) -> np.ndarray:
    """A component label per box: boxes sharing a grid cell (directly or through others) get the same label."""
    n, dims = len(boxes), boxes.shape[1] // 2
    if n == 0:
        return np.empty(0, dtype=np.int64)
    low, high = boxes[:, :dims], boxes[:, dims:]
    sides = (high - low).max(axis=1)
    side = max(float(np.median(sides)) * 2, 1e-12)
    origin = low.min(axis=0)
    first = np.floor((low - origin) / side).astype(np.int64)
    last = np.floor((high - origin) / side).astype(np.int64)
    span = last - first + 1
    huge = np.nonzero(span.prod(axis=1) > 4 ** dims * 16)[0]
    normal = np.setdiff1d(np.arange(n), huge)
    # Every (cell, box) pair: box i covers span[i].prod() cells, enumerated by a running index within the box.
    counts = span[normal].prod(axis=1)
    owner = np.repeat(normal, counts)
    within = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    cell = np.empty((len(owner), dims), dtype=np.int64)
    for d in range(dims):
        extent = span[owner, d]
        cell[:, d] = first[owner, d] + within % extent
        within //= extent
    a_parts, b_parts = [], []
    if len(owner):
        shifted = cell - cell.min(axis=0)
        key = np.zeros(len(owner), dtype=np.int64)
        for d in range(dims):  # a key per cell (distinct cells may share one only if the grid is enormous)
            key = key * (int(shifted[:, d].max()) + 1) + shifted[:, d]
        order = np.lexsort((owner, key))
        key, o = key[order], owner[order]
        same = key[1:] == key[:-1]
        a_parts.append(o[:-1][same])
        b_parts.append(o[1:][same])
    for h in huge:  # a box over many cells: joined to every box it overlaps, tested directly
        overlap = np.nonzero(np.all(low <= high[h], axis=1) & np.all(high >= low[h], axis=1))[0]
        a_parts.append(np.full(len(overlap), h))
        b_parts.append(overlap)
    a = np.concatenate(a_parts) if a_parts else np.empty(0, dtype=np.int64)
    b = np.concatenate(b_parts) if b_parts else np.empty(0, dtype=np.int64)
    return connected(n, a, b)


def connected(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Connected components of the graph on 0..n-1 with edges (a[i], b[i]): each node's smallest member, found by
    hooking roots to smaller roots and pointer jumping (vectorised, a logarithmic number of rounds)."""
    parent = np.arange(n)
    while True:
        while True:
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            parent = grand
        pa, pb = parent[a], parent[b]
        differ = pa != pb
        if not differ.any():
            return parent
        low, high = np.minimum(pa[differ], pb[differ]), np.maximum(pa[differ], pb[differ])
        np.minimum.at(parent, high, low)


def groups(labels: np.ndarray, weights: np.ndarray, target: float) -> list[np.ndarray]:
    """Whole components packed into groups of about `target` weight (a larger component is a group of its own), in
    the order of their first members; each group as the sorted indices of its members."""
    if len(labels) == 0:
        return []
    order = np.argsort(labels, kind="stable")
    sorted_labels = labels[order]
    starts = np.concatenate([[0], np.nonzero(sorted_labels[1:] != sorted_labels[:-1])[0] + 1, [len(labels)]])
    result, current, load = [], [], 0.0
    for s, e in zip(starts[:-1], starts[1:]):
        members = order[s:e]
        w = float(weights[members].sum())
        if current and load + w > target:
            result.append(np.sort(np.concatenate(current)))
            current, load = [], 0.0
        current.append(members)
        load += w
    if current:
        result.append(np.sort(np.concatenate(current)))
    return result
