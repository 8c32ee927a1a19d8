"""Rebuilding the union's parts from the cells' shares (see `UnionTileShare` in the engine).

- Rings: every chain ends at the vertex where the next one (owned by another cell) starts, with the same
  coordinates bit for bit, so the rings are rebuilt by matching ends with starts exactly; nothing is computed, no
  vertex is moved, nothing is unioned again.
- Parts: the cells' local parts are joined through the circles they share (the same circle, bit for bit, lies in
  one local part of every cell that holds it); a joined set is one part of the union, with exactly one
  counter-clockwise ring (its shell) among its stitched rings, and its holes: the clockwise stitched rings and the
  holes the cells own entirely. Those stay where they are: a cell writes their text itself, and the part names
  the (cell, local part) whose holes' text goes into it, so nothing here grows with the holes inside a part.

Anything that does not match (an end without a start, two starts at one vertex, a part without exactly one shell)
raises `StitchError`; the caller then unions the whole input in one task, which is always right.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


class StitchError(Exception):
    """The cells' shares do not fit together (possible only where GEOS computed a cell's union)."""


class UnionFind:
    """Disjoint sets over 0..n-1."""

    def __init__(self, n: int):
        self.parent = list(range(n))

    def find(self, a: int) -> int:
        parent = self.parent
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


@dataclass
class Share:
    """What stitching needs of one cell: its chains with their local parts, the local parts of which it owns holes
    (their text stays with the cell), and the circles (x, y, r rows) it shares with other cells with the local
    part of each."""
    chains: list[tuple[int, np.ndarray]] = field(default_factory=list)
    hole_parts: list[int] = field(default_factory=list)
    shared: np.ndarray = field(default_factory=lambda: np.empty((0, 3)))
    shared_parts: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))


def _twice_area(ring: np.ndarray) -> float:
    """Twice the signed area of a closed ring (shoelace, about its first vertex)."""
    x = ring[:, 0] - ring[0, 0]
    y = ring[:, 1] - ring[0, 1]
    return float(np.sum(x[:-1] * y[1:] - x[1:] * y[:-1]))


@dataclass
class Part:
    """A part of the union made of several cells' pieces: its shell and the holes stitched from chains (closed
    rings), and the (cell, local part) pairs whose holes, written by the cells, belong to it too."""
    rings: list[np.ndarray]
    cell_holes: list[tuple[int, int]]


def stitch(shares: list[Share]) -> list[Part]:
    """The parts that the cells' shares make together."""
    nodes: dict[tuple[int, int], int] = {}

    def node(cell: int, part: int) -> int:
        return nodes.setdefault((cell, part), len(nodes))

    chains: list[tuple[int, np.ndarray]] = []
    holes: list[tuple[int, tuple[int, int]]] = []
    for cell, share in enumerate(shares):
        chains += [(node(cell, p), c) for p, c in share.chains]
        holes += [(node(cell, p), (cell, p)) for p in sorted(set(share.hole_parts))]
        for p in np.unique(share.shared_parts):
            node(cell, int(p))
    sets = UnionFind(len(nodes))
    _join_shared_circles(shares, nodes, sets)
    rings = _rings(chains, sets)
    by_set: dict[int, list[np.ndarray]] = {}
    shells: dict[int, list[np.ndarray]] = {}
    cell_holes: dict[int, list[tuple[int, int]]] = {}
    for n, ring in rings:
        root = sets.find(n)
        (shells if _twice_area(ring) > 0 else by_set).setdefault(root, []).append(ring)
    for n, owner in holes:
        cell_holes.setdefault(sets.find(n), []).append(owner)
    parts = []
    for root in sorted(set(by_set) | set(shells) | set(cell_holes)):
        found = shells.get(root, [])
        if len(found) != 1:
            raise StitchError(f"a part of the union has {len(found)} shells among the cells' pieces")
        parts.append(Part([found[0]] + by_set.get(root, []), cell_holes.get(root, [])))
    return parts


def _join_shared_circles(shares: list[Share], nodes: dict[tuple[int, int], int], sets: UnionFind) -> None:
    """Joins the local parts that hold the same circle (rows equal bit for bit)."""
    keys, owners = [], []
    for cell, share in enumerate(shares):
        if len(share.shared):
            keys.append(np.ascontiguousarray(share.shared, dtype="<f8"))
            owners.append(np.array([nodes[(cell, int(p))] for p in share.shared_parts], dtype=np.int64))
    if not keys:
        return
    key = np.concatenate(keys)
    owner = np.concatenate(owners)
    raw = key.view(np.uint64)  # bits, so that equal means identical
    order = np.lexsort((raw[:, 2], raw[:, 1], raw[:, 0]))
    raw, owner = raw[order], owner[order]
    same = np.all(raw[1:] == raw[:-1], axis=1)
    pairs = np.unique(np.stack([owner[:-1][same], owner[1:][same]], axis=1), axis=0)
    for a, b in pairs:
        sets.union(int(a), int(b))


def _rings(chains: list[tuple[int, np.ndarray]], sets: UnionFind) -> list[tuple[int, np.ndarray]]:
    """The closed rings the chains make, each with the node of its first chain (its chains' nodes joined)."""
    starts: dict[tuple[float, float], int] = {}
    for i, (_, c) in enumerate(chains):
        key = (float(c[0, 0]), float(c[0, 1]))
        if key in starts:
            raise StitchError(f"two pieces of the union's boundary start at ({key[0]!r}, {key[1]!r})")
        starts[key] = i
    seen = [False] * len(chains)
    rings = []
    for first in range(len(chains)):
        if seen[first]:
            continue
        pieces, i = [], first
        while not seen[i]:
            seen[i] = True
            n, c = chains[i]
            sets.union(n, chains[first][0])
            pieces.append(c[:-1])
            end = (float(c[-1, 0]), float(c[-1, 1]))
            if end not in starts:
                raise StitchError(f"a piece of the union's boundary ends at ({end[0]!r}, {end[1]!r}) where no "
                                  "other starts")
            i = starts[end]
        if i != first:
            raise StitchError("pieces of the union's boundary join into a figure eight")
        ring = np.concatenate(pieces + [pieces[0][:1]])
        rings.append((chains[first][0], ring))
    return rings
