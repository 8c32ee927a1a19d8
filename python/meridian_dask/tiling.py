"""The cells of a planar union: a k-d partition of the plane into rectangles holding about the same number of
circle centres, and the assignment of every circle to the cells it can reach.

A cell owns the points with x0 <= x < x1 and y0 <= y < y1 (`UnionTile` in the engine); the outermost cells reach to
infinity, so every vertex of the union has exactly one owner. A circle goes to every cell whose rectangle, grown by
the margin (`GeometryEngine.unionTileMarginPerRadius` times the largest radius), meets the circle's box: that is what
the engine needs to compute the owned edges exactly (see UnionTile.swift).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Node:
    """A node of the k-d tree: a leaf (`cell` is its index) or a split at `value` on `axis` (0: x, 1: y)."""
    cell: int = -1
    axis: int = 0
    value: float = 0.0
    low: "Node | None" = None
    high: "Node | None" = None


@dataclass
class Tiling:
    """The cells (x0, y0, x1, y1, possibly infinite) and the tree that finds them."""
    cells: list[tuple[float, float, float, float]]
    root: Node


def build(xs: np.ndarray, ys: np.ndarray, weights: np.ndarray, target: float, min_side: float) -> Tiling:
    """Splits the plane until every cell holds at most about `target` (weighted) sample points, never into cells
    narrower than `min_side` (so that the margin stays small beside a cell).

    Each split is at the weighted median of the longer side of the points' extent, so dense places (cities) get
    small cells and the countryside large ones."""
    cells: list[tuple[float, float, float, float]] = []

    def split(index: np.ndarray, box: tuple[float, float, float, float]) -> Node:
        total = float(weights[index].sum()) if len(index) else 0.0
        px, py = xs[index], ys[index]
        if total > target and len(index) > 1:
            spans = (px.max() - px.min(), py.max() - py.min())
            axis = 0 if spans[0] >= spans[1] else 1
            coords = px if axis == 0 else py
            order = np.argsort(coords, kind="stable")
            cumulative = np.cumsum(weights[index][order])
            k = int(np.searchsorted(cumulative, total / 2))
            k = min(max(k, 1), len(order) - 1)
            value = float(coords[order[k]])
            lo, hi = (box[0], box[2]) if axis == 0 else (box[1], box[3])
            # Both halves wide enough (only the point cloud's side matters for an infinite outer cell).
            low_min, high_max = max(lo, float(coords.min())), min(hi, float(coords.max()))
            if value - low_min >= min_side and high_max - value >= min_side and value > coords.min():
                low_box = (box[0], box[1], value, box[3]) if axis == 0 else (box[0], box[1], box[2], value)
                high_box = (value, box[1], box[2], box[3]) if axis == 0 else (box[0], value, box[2], box[3])
                below = coords < value
                return Node(axis=axis, value=value, low=split(index[below], low_box),
                            high=split(index[~below], high_box))
        cells.append(box)
        return Node(cell=len(cells) - 1)

    inf = float("inf")
    root = split(np.arange(len(xs)), (-inf, -inf, inf, inf))
    return Tiling(cells, root)


def grid(xs: np.ndarray, ys: np.ndarray, side: float, limit: int = 100_000) -> Tiling:
    """The cells of a regular grid of squares of `side`, aligned at multiples of `side` (x = k·side), over the
    points' extent (the outer cells reach to infinity); at most `limit` cells."""
    def lines(values: np.ndarray) -> list[float]:
        first, last = np.floor(values.min() / side) + 1, np.floor(values.max() / side)
        return [float(k * side) for k in np.arange(first, last + 1)] if last >= first else []

    vertical, horizontal = lines(xs), lines(ys)
    if (len(vertical) + 1) * (len(horizontal) + 1) > limit:
        raise ValueError(f"a grid of {side} makes more than {limit} cells")
    cells: list[tuple[float, float, float, float]] = []
    inf = float("inf")

    def tree(values: list[float], axis: int, box: tuple[float, float, float, float]) -> Node:
        if not values:
            if axis == 0:
                return tree(horizontal, 1, box)
            cells.append(box)
            return Node(cell=len(cells) - 1)
        k = len(values) // 2
        v = values[k]
        low = (box[0], box[1], v, box[3]) if axis == 0 else (box[0], box[1], box[2], v)
        high = (v, box[1], box[2], box[3]) if axis == 0 else (box[0], v, box[2], box[3])
        return Node(axis=axis, value=v, low=tree(values[:k], axis, low), high=tree(values[k + 1:], axis, high))

    return Tiling(cells, tree(vertical, 0, (-inf, -inf, inf, inf)))


def assign(tiling: Tiling, circles: np.ndarray, margin: float) -> tuple[list[np.ndarray], np.ndarray]:
    """The circles (rows x, y, r) each cell needs: for every cell, the indices of the circles whose box, grown by
    `margin`, meets it (a little more is harmless); and for every circle the number of cells it went to."""
    per_cell: list[np.ndarray] = [np.empty(0, dtype=np.int64)] * len(tiling.cells)
    x, y, r = circles[:, 0], circles[:, 1], circles[:, 2]
    reach = r * (1 + 1e-9) + margin

    def descend(node: Node, index: np.ndarray) -> None:
        if len(index) == 0:
            return
        if node.cell >= 0:
            per_cell[node.cell] = index
            return
        c = (x if node.axis == 0 else y)[index]
        descend(node.low, index[c - reach[index] <= node.value])
        descend(node.high, index[c + reach[index] >= node.value])

    descend(tiling.root, np.arange(len(circles)))
    counts = np.zeros(len(circles), dtype=np.int64)
    for index in per_cell:
        counts[index] += 1
    return per_cell, counts
