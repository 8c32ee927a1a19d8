"""`meridian-dask near LEFT RIGHT (--distance D | --distance-field NAME) [...] -o OUT`: `meridian near` on a Dask
cluster, with the same rows in the same order as one `meridian near` run.

1. **Locate** (a task per chunk of LEFT and of RIGHT, `locate`): meridian reads the chunk (the `prepare` step of
   `meridian buffer --union`, which puts the features in the spatial reference measured in: `--srs` for a planar
   search, the inputs' own longitude/latitude for `--geodesic`) and the task keeps each feature's box, its search
   distance (LEFT) and its record's bytes.
2. **Tiles.** LEFT's features are split into tiles by their boxes' centres (`tiling.build`, the cells of the buffer
   union); a tile owns the LEFT features whose centre lies in it, so every LEFT feature, and so every pair, has
   exactly one tile. A tile's task gets its LEFT features and every RIGHT feature whose box meets the tile's
   envelope (its features' boxes) grown by a halo, the largest search distance of its features: a RIGHT feature
   within that distance of one of them is among them (`halo_boxes`).
3. Each tile runs `meridian near` itself on its records (RIGHT's in RIGHT's order, so that equal distances are
   ranked as in one run), and, for `--pairs` and `--left-only`, `meridian near --count` to know each LEFT feature's
   number of rows. The client writes the rows in LEFT's order.
4. `--right-only`: a RIGHT feature is in reach of several tiles and may be matched in several. A tile runs
   `meridian near --right-only` on its records, and again with each RIGHT record tagged with its position among
   the tile's (a column or property more, `tagged_right`) to know which RIGHT feature each row is: the rows of one
   run are RIGHT's matched features in RIGHT's order, so the two runs' rows correspond one to one. The client keeps
   each RIGHT feature's row once, by its position in RIGHT (not by its text: two RIGHT features can be written
   alike), and writes them in RIGHT's order.

Anything the tiles cannot reproduce exactly (a chunk meridian cannot read, records that do not split as meridian
reads them, GeoJSON features with different properties, whose columns depend on which features a run sees) is
handed to one task running `meridian near` on the whole input: its answer, or its error, is the answer.
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np

from . import clusters, inputs, records, tasks, tiling
from .chunks import Chunk, InputFormat
from .driver import connect
from .output import Output
from .results import Delivery, Failure, JobResult, Prepared
from .runner import MeridianError, SetupError, find_meridian, worker_meridian

HELP = """\
Usage: meridian-dask near LEFT RIGHT (--distance D | --distance-field NAME [--unit U]) [--srs SRS | --geodesic]
                          [--in-srs SRS] [--nearest K] [--pairs | --count | --left-only | --right-only]
                          [--allow-outside-area] -o OUTPUT [--workers N | --scheduler ADDRESS] [--verbose]
                          [--meridian PATH]

Runs `meridian near` on a Dask cluster: LEFT is cut into tiles, each tile's task searches the RIGHT features within
the tile grown by the largest search distance, and the rows are written in LEFT's order (--right-only: each
matched RIGHT feature once, in RIGHT's order), the same as one `meridian near` run. See docs/cluster.md.

LEFT, RIGHT           a CSV file, a GeoJSON file or a GeoJSON text sequence each
-o, --output OUTPUT   .csv, .geojson or .geojsons, written atomically; without -o, CSV on standard output
--workers N           a LocalCluster of N single-threaded worker processes (default: one per core)
--scheduler ADDRESS   use a running Dask cluster instead (tcp://host:8786)
--verbose             say what is done, with the Dask dashboard's address
--quiet               no progress line
--meridian PATH       the meridian executable (default: meridian on PATH, else the clone's .build/release/meridian)
--tile-points N       LEFT features per tile (default: enough tiles for every worker to have four)
--chunk-bytes N       bytes of an input per reading task (default 64 MiB)

Every other option is meridian near's (meridian near --help); --nearest without a distance, layers and
feature-table outputs are left to meridian near.
"""

#: `meridian near` options that take a value, and its flags (the rest of its command line are LEFT and RIGHT).
NEAR_VALUES = {"--in-srs", "--left-layer", "--right-layer", "--srs", "--distance", "--distance-field", "--unit",
               "--distance-unit", "--nearest", "--output-layer"}
NEAR_FLAGS = {"--geodesic", "--allow-outside-area", "--pairs", "--count", "--left-only", "--right-only", "--quiet"}
#: What the tiles write (one `meridian near` output of these formats is rows that can be put together).
FORMATS = {"csv", "geojson", "geojsons"}
#: The input formats a tile reproduces (a GeoJSON document's features become a text sequence).
NEAR_INPUTS = {InputFormat.CSV, InputFormat.GEOJSON, InputFormat.SEQUENCE, InputFormat.SEQUENCE_RS}
#: The output shapes (`meridian near`'s flags) and the default.
SHAPES = ("--pairs", "--count", "--left-only", "--right-only")


@dataclass
class NearArguments:
    """`meridian near`'s command line, as meridian-dask needs to know it."""
    left: str
    right: str
    options: list[str]               # everything but LEFT and RIGHT (and -o, which is meridian-dask's)
    values: dict[str, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)

    @property
    def geodesic(self) -> bool:
        """`--geodesic`."""
        return "--geodesic" in self.flags

    @property
    def shape(self) -> str:
        """The output shape flag (`--pairs` by default)."""
        return next((s for s in SHAPES if s in self.flags), "--pairs")

    def without_shape(self) -> list[str]:
        """The options without the shape flags."""
        return [a for a in self.options if a not in SHAPES]


def split_arguments(arguments: list[str]) -> NearArguments:
    """Finds LEFT, RIGHT and the options meridian-dask needs among `meridian near`'s arguments (their values are
    checked by meridian)."""
    positional: list[str] = []
    options: list[str] = []
    values: dict[str, str] = {}
    flags: set[str] = set()
    i = 0
    while i < len(arguments):
        a = arguments[i]
        name, equals, inline = a.partition("=")
        if a == "--":
            positional += arguments[i + 1:]
            break
        if name in NEAR_VALUES:
            if equals:
                values[name] = inline
                options.append(a)
            else:
                if i + 1 >= len(arguments):
                    raise SetupError(f"{name} needs a value", 2)
                values[name] = arguments[i + 1]
                options += [a, arguments[i + 1]]
                i += 1
        elif a in NEAR_FLAGS:
            flags.add(a)
            options.append(a)
        elif a.startswith("-") and a != "-":
            options.append(a)  # meridian refuses it with its message
        else:
            positional.append(a)
        i += 1
    if len(positional) != 2:
        raise SetupError("give LEFT and RIGHT: two input files (meridian-dask near LEFT RIGHT --distance D -o OUT)",
                         2)
    return NearArguments(positional[0], positional[1], options, values, flags)


def run_near(meridian: str, arguments: list[str], folder: str) -> Failure | None:
    """Runs `meridian near` with `arguments` in `folder`: None when it succeeds, else its `Failure` (the last line
    it wrote to standard error, without the command's name, and its exit status; phase "options" for a usage
    error, exit status 2, else "check")."""
    result = subprocess.run([worker_meridian(meridian), "near", *arguments, "--quiet"], cwd=folder,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if result.returncode == 0:
        return None
    lines = result.stderr.decode(errors="replace").strip().splitlines()
    message = lines[-1] if lines else f"exit status {result.returncode}"
    return Failure(message.removeprefix("meridian near: "), result.returncode,
                   "options" if result.returncode == 2 else "check")


# MARK: What the tasks hand back


@dataclass
class Located(JobResult):
    """A chunk's features located (`locate`): `boxes` (n, 4) — planar (x0, y0, x1, y1) in the spatial reference
    measured in, geodesic (south, north, central longitude, half its width) in degrees —, LEFT's search `distances`
    (None for RIGHT), the records' text `data` (a CSV chunk without its header) and their byte `ranges` in it (both
    None in the copy the client keeps, `without_data`), the CSV `header`, the records' `format` (a GeoJSON document's
    features are a text sequence), the property names of GeoJSON features (`keys`) and the number of features."""
    unreported: ClassVar[tuple[str, ...]] = ("data", "ranges")
    boxes: np.ndarray
    distances: np.ndarray | None
    data: bytes | None
    ranges: np.ndarray | None
    header: bytes
    format: InputFormat
    keys: frozenset[str] | None
    count: int

    def without_data(self) -> Located:
        """The result without the records' text, which stays on the worker."""
        return replace(self, data=None, ranges=None)


@dataclass
class Unlocated(JobResult):
    """A chunk the tiles cannot reproduce (meridian refuses it, or its records do not split as meridian reads
    them): why. The whole command then runs in one task."""
    ok: ClassVar[bool] = False
    why: str


@dataclass
class TileRows(JobResult):
    """A tile's answer (`tile_task`): `meridian near`'s output, for --pairs and --left-only each LEFT feature's
    number of matches (`meridian near --count`; None otherwise), and for --right-only the position of each row's
    RIGHT feature among the tile's RIGHT records (`right_rows`, increasing; None otherwise)."""
    unreported: ClassVar[tuple[str, ...]] = ("text", "counts", "right_rows")
    text: bytes
    counts: np.ndarray | None
    right_rows: np.ndarray | None = None


# MARK: Locating the features (on the workers)

_ZERO = re.compile(r"\s*[+-]?(0+\.?0*|\.0+)([eE][+-]?\d+)?\s*[A-Za-z-]*\s*")


def locate_arguments(near: NearArguments, side: str) -> list[str]:
    """The `meridian buffer --union` arguments whose `prepare` step reads one side of the search: its features in the
    spatial reference measured in, each with a radius that is the search distance (LEFT with --distance D), or the
    size of one unit of the distance field (LEFT with --distance-field; the values are read here), or 1 (RIGHT)."""
    args = ["--union", "-o", "union.geojson"]
    args += ["--geodesic"] if near.geodesic else ["--srs", near.values.get("--srs", "")]
    if "--in-srs" in near.values:
        args += ["--in-srs", near.values["--in-srs"]]
    if "--allow-outside-area" in near.flags and not near.geodesic:
        args.append("--allow-outside-area")
    distance = near.values.get("--distance")
    unit = near.values.get("--unit", near.values.get("--distance-unit", ""))
    if side == "left" and distance is not None and not _ZERO.fullmatch(distance):
        args += ["--distance", distance]
    else:
        args += ["--distance", "1" + ("" if side == "right" or distance is not None else unit)]
    return args


def split_records(data: bytes, fmt: InputFormat) -> list[tuple[int, int]]:
    """The byte ranges of the records of a chunk's text as meridian reads them: CSV records end at a line feed
    outside quotes, GeoJSON text sequences at a line feed before a record separator or the next text. Blank lines
    are not records."""
    ranges: list[tuple[int, int]] = []
    start = 0
    if fmt is InputFormat.CSV:
        inside = False
        k = 0
        while True:
            feed = data.find(b"\n", k)
            if feed < 0:
                break
            inside ^= data.count(b'"', k, feed) % 2 == 1
            k = feed + 1
            if not inside:
                ranges.append((start, k))
                start = k
        if start < len(data):
            ranges.append((start, len(data)))
    elif fmt is InputFormat.SEQUENCE_RS:
        marks = [m.start() for m in re.finditer(b"\x1e", data)] + [len(data)]
        ranges = list(zip(marks[:-1], marks[1:]))
    else:
        for line in re.finditer(rb"[^\n]*\n?", data):
            if line.group().strip():
                ranges.append(line.span())
    return [(a, b) for a, b in ranges if data[a:b].strip(b"\x1e \t\r\n")]


def _collection_records(path: str) -> bytes:
    """A GeoJSON document's features as a GeoJSON text sequence (the same values; meridian writes properties in
    key order whatever their order here)."""
    with open(path, "rb") as f:
        document = json.loads(f.read())
    features = document.get("features") if isinstance(document, dict) else None
    if not isinstance(features, list) or set(document) - {"type", "features", "bbox"}:
        raise ValueError("not a plain FeatureCollection")
    return b"".join(b"\x1e" + json.dumps(f, separators=(",", ":"), allow_nan=False).encode() + b"\n"
                    for f in features)


def locate(meridian: str, chunk: Chunk, arguments: list[str], side: str, near: NearArguments
           ) -> Located | Unlocated:
    """A chunk's features (runs on a worker, `Located`); `Unlocated` when meridian refuses the chunk or its records
    do not split as meridian reads them (the whole command then runs in one task)."""
    fmt = chunk.format
    if fmt is InputFormat.GEOJSON:
        try:
            data = _collection_records(chunk.path)
        except (ValueError, OSError, RecursionError) as e:
            return Unlocated(f"{chunk.path}: {e}")
        with tempfile.TemporaryDirectory(prefix="meridian-dask-") as folder:
            path = os.path.join(folder, "records.geojsons")
            with open(path, "wb") as f:
                f.write(data)
            prepared = tasks.prepare(meridian, Chunk(0, path, InputFormat.SEQUENCE_RS, 0, len(data)), arguments)
        fmt = InputFormat.SEQUENCE_RS
    else:
        with open(chunk.path, "rb") as f:
            f.seek(chunk.start)
            data = f.read(chunk.end - chunk.start)
        prepared = tasks.prepare(meridian, chunk, arguments)
    if not isinstance(prepared, Prepared):
        return Unlocated(prepared.error)
    header = b""
    if fmt is InputFormat.CSV:
        with open(chunk.path, "rb") as f:
            header = _first_record(f.read(1 << 20) if chunk.header else data)
        if not chunk.header:
            data = data[len(header):]
        if not header.endswith(b"\n"):
            header += b"\n"
    ranges = split_records(data, fmt)
    count = prepared.features
    if len(ranges) != count or prepared.kind == "circles" and len(prepared.payload) != count:
        return Unlocated(f"{chunk.path}: {len(ranges)} records but meridian read {count} features")
    geodesic = near.geodesic
    if geodesic and not prepared.geographic:
        return Unlocated("a --geodesic search of projected coordinates")
    boxes, radii = _boxes(prepared, geodesic)
    distances = None
    if side == "left":
        distances = _field_distances(data, ranges, fmt, header, near.values["--distance-field"], radii) \
            if "--distance-field" in near.values else \
            (np.zeros(count) if _ZERO.fullmatch(near.values.get("--distance", "0")) else radii)
    keys = None
    if fmt is not InputFormat.CSV:
        names = {frozenset((json.loads(data[a:b].strip(b"\x1e \t\r\n")).get("properties") or {}).keys())
                 for a, b in ranges}
        keys = names.pop() if len(names) == 1 else None
        if len(names) > 0:
            return Unlocated(f"{chunk.path}: features with different properties")
    return Located(boxes, distances, data, np.array(ranges, dtype=np.int64).reshape(-1, 2), header, fmt, keys, count)


def _first_record(data: bytes) -> bytes:
    """The header record of a CSV text."""
    ranges = split_records(data, InputFormat.CSV)
    return data[:ranges[0][1]] if ranges else data


def _boxes(prepared: Prepared, geodesic: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each feature's box (see `Located`) and radius."""
    payload = prepared.payload
    if prepared.kind == "circles":
        x, y, r = payload[:, 0], payload[:, 1], payload[:, 2]
        return np.stack([x, y, x, y], axis=1), r.copy()
    ranges = records.split_geometries(payload)
    boxes = np.empty((len(ranges), 4))
    radii = np.empty(len(ranges))
    for k, (start, _) in enumerate(ranges):
        wkb, radii[k] = records.geometry_record(payload, start)
        xy = records.wkb_coordinates(wkb)
        boxes[k] = _cap(xy) if geodesic else [xy[:, 0].min(), xy[:, 1].min(), xy[:, 0].max(), xy[:, 1].max()]
    return boxes, radii


def _cap(lonlat: np.ndarray) -> list[float]:
    """A geodesic feature's box: the spherical cap around its vertices' normals (their spread grown by 1 %, as
    `clusters._cap_box`: a geodesic edge between two vertices stays in it) as latitudes and a longitude range."""
    if len(lonlat) == 1:
        return [lonlat[0, 1], lonlat[0, 1], lonlat[0, 0], 0.0]
    lon, lat = np.radians(lonlat[:, 0]), np.radians(lonlat[:, 1])
    normals = np.stack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)], axis=1)
    centre = normals.mean(axis=0)
    length = float(np.linalg.norm(centre))
    if length < 1e-9:
        return [-90.0, 90.0, 0.0, 180.0]
    centre /= length
    spread = float(np.arccos(np.clip(normals @ centre, -1, 1)).max()) * 1.01 + 1e-12
    clat = math.asin(max(-1.0, min(1.0, centre[2])))
    clon = math.degrees(math.atan2(centre[1], centre[0]))
    south, north = math.degrees(clat - spread), math.degrees(clat + spread)
    if north >= 90 or south <= -90 or spread >= math.pi / 2:
        return [max(south, -90.0), min(north, 90.0), clon, 180.0]
    half = math.degrees(math.asin(min(1.0, math.sin(spread) / math.cos(clat))))
    return [south, north, clon, half]


def _field_distances(data: bytes, ranges: list, fmt: InputFormat, header: bytes, name: str,
                     unit: np.ndarray) -> np.ndarray:
    """LEFT's search distances from `--distance-field` in the unit measured in (`unit`: one field unit in it, the
    radius meridian gave each feature). A value Python does not read as meridian does (meridian refuses it, or
    reads a form Python does not) counts as infinite: its tile then gets every RIGHT feature."""
    values = np.full(len(ranges), np.inf)
    if fmt is InputFormat.CSV:
        columns = next(csv.reader(io.StringIO(header.decode(errors="replace"))), [])
        column = columns.index(name) if name in columns else -1
    for k, (a, b) in enumerate(ranges):
        if fmt is InputFormat.CSV:
            row = next(csv.reader(io.StringIO(data[a:b].decode(errors="replace"))), [])
            value = row[column] if 0 <= column < len(row) else None
        else:
            value = (json.loads(data[a:b].strip(b"\x1e \t\r\n")).get("properties") or {}).get(name)
        try:
            number = float(value.strip()) if isinstance(value, str) else float(value)
        except (TypeError, ValueError):
            continue
        if math.isfinite(number) and number >= 0:
            values[k] = number
    return values * unit


def select(located: Located, rows: np.ndarray) -> bytes:
    """Some records of a located chunk (runs where it is), each ending with a line feed."""
    data, ranges = located.data, located.ranges
    out = []
    for a, b in ranges[rows]:
        record = data[a:b]
        out.append(record if record.endswith(b"\n") else record + b"\n")
    return b"".join(out)


def _meta(located: Located | Unlocated) -> Located | Unlocated:
    """A located chunk without its text."""
    return located.without_data() if isinstance(located, Located) else located


# MARK: Tiles

#: Below the smallest meridional radius of curvature of common ellipsoids (as `clusters.RADIUS_BOUND`): a geodesic of
#: length d changes the latitude by less than d / RADIUS_BOUND radians, and the longitude at latitude φ by less than
#: d / (RADIUS_BOUND cos φ).
RADIUS_BOUND = clusters.RADIUS_BOUND


def owners(cells: tiling.Tiling, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """The tile of each point: x0 <= x < x1 and y0 <= y < y1 (the split of `tiling.build`), so exactly one."""
    out = np.empty(len(xs), dtype=np.int64)

    def descend(node: tiling.Node, index: np.ndarray) -> None:
        if node.cell >= 0:
            out[index] = node.cell
            return
        c = (xs if node.axis == 0 else ys)[index]
        descend(node.low, index[c < node.value])
        descend(node.high, index[c >= node.value])

    descend(cells.root, np.arange(len(xs)))
    return out


def halo_boxes(boxes: np.ndarray, distance: float, geodesic: bool) -> np.ndarray:
    """A tile's envelope grown by the search distance: planar (x0, y0, x1, y1) grown by it (plus a relative 1e-9 for
    the last bits of a projection); geodesic (south, north, central longitude, half width) in degrees, the latitudes
    grown by distance / RADIUS_BOUND and the longitudes by distance / (RADIUS_BOUND cos φ) at the tile's largest
    |latitude| φ so grown (every longitude when that reaches a pole or the width 360°)."""
    if not geodesic:
        scale = float(np.abs(boxes).max(initial=1.0))
        d = distance * (1 + 1e-9) + 1e-9 * scale
        return np.array([boxes[:, 0].min() - d, boxes[:, 1].min() - d, boxes[:, 2].max() + d, boxes[:, 3].max() + d])
    grow = math.degrees(distance / RADIUS_BOUND) * (1 + 1e-6) + 1e-9
    south, north = boxes[:, 0].min() - grow, boxes[:, 1].max() + grow
    # A tile's centres lie within one k-d cell of longitudes (less than 360° wide): no unwrapping is needed.
    west, east = (boxes[:, 2] - boxes[:, 3]).min(), (boxes[:, 2] + boxes[:, 3]).max()
    polar = max(abs(south), abs(north))
    if polar >= 90 or boxes[:, 3].max() >= 180:
        return np.array([max(south, -90.0), min(north, 90.0), 0.0, 180.0])
    widen = grow / math.cos(math.radians(polar))
    half = (east - west) / 2 + widen
    return np.array([south, north, (west + east) / 2, min(half, 180.0)])


def reached(boxes: np.ndarray, halo: np.ndarray, geodesic: bool) -> np.ndarray:
    """The indices (in order) of the boxes that meet a tile's grown envelope (`halo_boxes`)."""
    if not geodesic:
        hit = (boxes[:, 0] <= halo[2]) & (boxes[:, 2] >= halo[0]) & (boxes[:, 1] <= halo[3]) & (boxes[:, 3] >= halo[1])
        return np.nonzero(hit)[0]
    latitudes = (boxes[:, 1] >= halo[0]) & (boxes[:, 0] <= halo[1])
    gap = np.abs((boxes[:, 2] - halo[2] + 180) % 360 - 180)
    longitudes = (gap <= halo[3] + boxes[:, 3] + 1e-9) | (halo[3] + boxes[:, 3] >= 180)
    return np.nonzero(latitudes & longitudes)[0]


def tile_task(meridian: str, near: NearArguments, extension: str, headers: tuple[bytes, bytes],
              formats: tuple[InputFormat, InputFormat], left_pieces: int, *pieces) -> TileRows | Failure:
    """One tile (runs on a worker): `meridian near` on its LEFT records and the RIGHT records in its reach
    (`TileRows`), or meridian's `Failure`."""
    with tempfile.TemporaryDirectory(prefix="meridian-dask-near-") as folder:
        names = []
        for side, header, fmt, chunk_pieces in (("left", headers[0], formats[0], pieces[:left_pieces]),
                                                 ("right", headers[1], formats[1], pieces[left_pieces:])):
            names.append(_tile_input(folder, side, fmt, header + b"".join(chunk_pieces)))
        out = os.path.join(folder, f"out.{extension}")
        if (failure := run_near(meridian, names + near.options + ["-o", out], folder)) is not None:
            return failure
        with open(out, "rb") as f:
            text = f.read()
        counts = right_rows = None
        if near.shape in ("--pairs", "--left-only"):
            counted = os.path.join(folder, "count.csv")
            counting = names + near.without_shape() + ["--count", "-o", counted]
            if (failure := run_near(meridian, counting, folder)) is not None:
                return failure
            counts = _csv_column(counted, "near_count")
        elif near.shape == "--right-only":
            right_rows = np.empty(0, dtype=np.int64)
            if output_rows(text, extension)[1]:
                try:
                    tagged, tag = tagged_right(b"".join(pieces[left_pieces:]), headers[1], formats[1])
                except (ValueError, TypeError, AttributeError, RecursionError) as e:
                    return Failure(f"RIGHT's records could not be tagged: {e}", 1, "check")
                tags = os.path.join(folder, "tags.csv")
                tagging = [names[0], _tile_input(folder, "tagged", formats[1], tagged)] + near.options + ["-o", tags]
                if (failure := run_near(meridian, tagging, folder)) is not None:
                    return failure
                try:
                    right_rows = _csv_column(tags, tag)
                except (ValueError, IndexError, StopIteration) as e:
                    return Failure(f"the tagged RIGHT's rows could not be read: {e}", 1, "check")
    return TileRows(text, counts, right_rows)


def _tile_input(folder: str, side: str, fmt: InputFormat, text: bytes) -> str:
    """Writes one side's records of a tile (a CSV header and its records, or a GeoJSON text sequence) in `folder`;
    its path."""
    name = os.path.join(folder, f"{side}.{'csv' if fmt is InputFormat.CSV else 'geojsons'}")
    if fmt is not InputFormat.CSV and not text:
        # No RIGHT in reach: meridian refuses an empty text sequence.
        name, text = name.removesuffix("s"), b'{"features":[],"type":"FeatureCollection"}\n'
    with open(name, "wb") as f:
        f.write(text)
    return name


def _csv_column(path: str, name: str) -> np.ndarray:
    """A column of whole numbers of a CSV file meridian wrote."""
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        rows = csv.reader(f)
        column = next(rows).index(name)
        return np.array([int(row[column]) for row in rows], dtype=np.int64)


#: The name of the column or property that `tagged_right` adds (with "_" appended while RIGHT has one so named).
TAG = "meridian_dask_right"


def tagged_right(text: bytes, header: bytes, fmt: InputFormat) -> tuple[bytes, str]:
    """A tile's RIGHT records with one more column (CSV) or property (GeoJSON, each record a feature written again)
    holding each record's position among them, and that column's name, one RIGHT does not have (meridian compares
    CSV column names trimmed and in lowercase): `meridian near --right-only` writes RIGHT's attributes, not which
    feature a row is. The geometries are unchanged (JSON numbers read and written again are the same doubles), so
    the same RIGHT features match (a record with a key twice, which meridian may read otherwise, is refused)."""
    ranges = split_records(text, fmt)
    if fmt is InputFormat.CSV:
        names = next(csv.reader(io.StringIO(header.decode(errors="replace"))), [])
        taken = {n.strip().lower() for n in names}
    else:
        features = [json.loads(text[a:b].strip(b"\x1e \t\r\n"), object_pairs_hook=_object) for a, b in ranges]
        features = [f if f.get("type") == "Feature" else {"type": "Feature", "geometry": f} for f in features]
        taken = {k.lower() for f in features for k in (f.get("properties") or {})}
    tag = TAG
    while tag in taken:
        tag += "_"
    if fmt is InputFormat.CSV:
        out = [_with_field(header, tag.encode())]
        out += [_with_field(text[a:b], str(k).encode()) for k, (a, b) in enumerate(ranges)]
        return b"".join(out), tag
    out = []
    for k, feature in enumerate(features):
        feature["properties"] = (feature.get("properties") or {}) | {tag: k}
        out.append(b"\x1e" + json.dumps(feature, separators=(",", ":"), allow_nan=False).encode() + b"\n")
    return b"".join(out), tag


def _object(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object whose keys are all different (ValueError otherwise)."""
    value = dict(pairs)
    if len(value) != len(pairs):
        raise ValueError("a JSON object names a key twice")
    return value


def _with_field(record: bytes, value: bytes) -> bytes:
    """A CSV record with one field more at its end, before its line ending."""
    body = record.rstrip(b"\r\n")
    return body + b"," + value + (record[len(body):] or b"\n")


def output_rows(text: bytes, extension: str) -> tuple[bytes, list[bytes]]:
    """A tile's output as its header (CSV) and its rows: CSV records, or GeoJSON features (from a text sequence)."""
    if extension == "csv":
        ranges = split_records(text, InputFormat.CSV)
        if not ranges:
            return b"", []
        return text[slice(*ranges[0])], [text[a:b] for a, b in ranges[1:]]
    return b"", [text[a:b] for a, b in split_records(text, InputFormat.SEQUENCE_RS)]


# MARK: The run


@dataclass
class Near:
    """A run under way."""
    near: NearArguments
    options: object                  # driver.Options
    meridian: str
    extension: str                   # the output's format: csv, geojson or geojsons
    output: Output
    client: object = None
    started: float = field(default_factory=time.monotonic)

    def say(self, text: str) -> None:
        """A note on standard error with --verbose, with the seconds since the run began."""
        if self.options.verbose:
            print(f"meridian-dask near: [{time.monotonic() - self.started:.1f} s] {text}", file=sys.stderr,
                  flush=True)


def check(near: NearArguments, options, meridian: str) -> str:
    """Refuses what meridian-dask near does not do, after meridian has checked the options (its own parser, run on
    inputs that do not exist: an option error comes before reading them). Returns the output's format."""
    with tempfile.TemporaryDirectory(prefix="meridian-dask-") as folder:
        missing = [os.path.join(folder, "left"), os.path.join(folder, "right")]
        probe = os.path.join(folder, "probe." + (_extension(options.output) or "csv"))
        failure = run_near(meridian, missing + near.options + ["-o", probe], folder)
    if failure is not None and failure.phase == "options":
        raise MeridianError(failure.error, failure.status, failure.phase)
    for unsupported, why in (("--left-layer", "layers"), ("--right-layer", "layers"), ("--output-layer", "layers")):
        if unsupported in near.values:
            raise SetupError(f"{unsupported}: meridian-dask near reads files of features, not {why}; use meridian near",
                             2)
    if "--distance" not in near.values and "--distance-field" not in near.values:
        raise SetupError("give --distance D or --distance-field NAME: meridian-dask near searches each tile's "
                         "surroundings within the search distance (--nearest K at any distance is meridian near's)", 2)
    if not near.geodesic and "--srs" not in near.values:
        raise SetupError("give --srs SRS (the projected spatial reference measured in) or --geodesic", 2)
    if options.cell_size or options.report:
        raise SetupError("--cell-size and --report are meridian-dask buffer's options", 2)
    extension = _extension(options.output) or "csv"
    if options.output is not None and (extension not in FORMATS or Output(options.output).is_folder):
        raise SetupError(f"meridian-dask near writes .csv, .geojson or .geojsons, not {options.output}; use meridian "
                         "near for feature tables", 2)
    for path in (near.right, near.left):  # meridian reads RIGHT first
        if path == "-":
            raise SetupError("give LEFT and RIGHT as files (meridian-dask near does not read standard input)", 2)
        if not os.path.exists(path):
            raise SetupError(f"cannot read {path}: No such file or directory")
    for path in (near.left, near.right):
        if not os.path.isfile(path):
            return extension  # meridian's message, from the run in one task
        if inputs.sniff(path) not in NEAR_INPUTS:
            raise SetupError(f"{path}: meridian-dask near reads CSV and GeoJSON (a FeatureCollection or a text "
                             "sequence); use meridian near", 2)
    return extension


def _extension(path: str | None) -> str:
    """The output's extension, lowercase ("" for standard output)."""
    return os.path.splitext(path)[1].lower().lstrip(".") if path else ""


def execute(options) -> int:
    """Runs `meridian-dask near`; returns the exit status."""
    near = split_arguments(options.arguments)
    meridian = find_meridian(options.meridian)
    extension = check(near, options, meridian)
    run = Near(near, options, meridian, extension, Output(options.output))
    client, cluster = connect(options)
    run.client = client
    try:
        run.output.begin()
        try:
            tiles(run)
            run.output.commit()
        except BaseException:
            run.output.abort()
            raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return 0


def whole(run: Near, why: str) -> None:
    """The command on the whole input in one task: its answer, or its error."""
    run.say(f"one task runs meridian near on the whole input ({why})")
    near = run.near
    arguments = [near.left, near.right] + near.options
    result = run.client.submit(_whole_task, run.meridian, arguments, os.getcwd(), run.extension, run.output.spool,
                               pure=False).result()
    if isinstance(result, Failure):
        raise MeridianError(result.error, result.status, result.phase)
    run.output.write_piece(result)


def _whole_task(meridian: str, arguments: list[str], directory: str, extension: str, spool: str | None
                ) -> Delivery | Failure:
    """`meridian near` on the whole input (runs on a worker) in the client's working `directory` (so that its
    messages name the inputs as they were given; the inputs' absolute paths where the worker has no such
    directory); its output delivered (`tasks.deliver`), or meridian's `Failure`."""
    with tempfile.TemporaryDirectory(prefix="meridian-dask-near-") as folder:
        out = os.path.join(folder, "out." + extension)
        if not os.path.isdir(directory):
            arguments = [os.path.join(directory, a) for a in arguments[:2]] + arguments[2:]
            directory = folder
        if (failure := run_near(meridian, arguments + ["-o", out], directory)) is not None:
            return failure
        return tasks.deliver(out, spool, f"near-{os.path.basename(folder)}.{extension}")


def tiles(run: Near) -> None:
    """Locates both inputs, cuts LEFT into tiles, runs them and writes their rows in LEFT's order."""
    client, near = run.client, run.near
    if not (os.path.isfile(near.left) and os.path.isfile(near.right)):
        return whole(run, "an input is not a file")
    sides = {}
    for side, path in (("left", near.left), ("right", near.right)):
        chunks = inputs.chunks([os.path.abspath(path)], run.options.chunk_bytes)  # workers have their own cwd
        arguments = locate_arguments(near, side)
        futures = [client.submit(locate, run.meridian, c, arguments, side, near, pure=False) for c in chunks]
        sides[side] = (futures, client.gather([client.submit(_meta, f) for f in futures]))
    run.say("located")
    metas = sides["left"][1] + sides["right"][1]
    failed = next((m for m in metas if not m.ok), None)
    if failed:
        return whole(run, failed.why)
    for side in ("left", "right"):
        keys = {m.keys for m in sides[side][1] if m.count}
        if len(keys) > 1:
            return whole(run, f"{side.upper()}'s features have different properties")
    left, right = sides["left"][1], sides["right"][1]
    lboxes = np.concatenate([m.boxes for m in left])
    rboxes = np.concatenate([m.boxes for m in right]) if right else np.empty((0, 4))
    distances = np.concatenate([m.distances for m in left])
    if len(lboxes) == 0:
        return whole(run, "LEFT is empty")
    geodesic = near.geodesic
    if geodesic:
        xs, ys = lboxes[:, 2], (lboxes[:, 0] + lboxes[:, 1]) / 2
    else:
        xs, ys = (lboxes[:, 0] + lboxes[:, 2]) / 2, (lboxes[:, 1] + lboxes[:, 3]) / 2
    workers = len(client.scheduler_info()["workers"]) or 1
    target = run.options.tile_points or max(1, -(-len(xs) // (4 * workers)))
    finite = distances[np.isfinite(distances)]
    reach = float(finite.max(initial=0.0))
    # Tiles narrower than half the reach would mostly search their halo: not split further.
    side = (math.degrees(reach / RADIUS_BOUND) if geodesic else reach) / 2
    cells = tiling.build(xs, ys, np.ones(len(xs)), target, min_side=side)
    owner = owners(cells, xs, ys)
    run.say(f"{len(xs)} LEFT and {len(rboxes)} RIGHT features, {len(cells.cells)} tiles")
    lchunk = np.repeat(np.arange(len(left)), [m.count for m in left])
    lrow = np.concatenate([np.arange(m.count) for m in left])
    rchunk = np.repeat(np.arange(len(right)), [m.count for m in right]).astype(np.int64)
    rrow = np.concatenate([np.arange(m.count) for m in right]) if right else np.empty(0, np.int64)
    headers = (left[0].header, right[0].header if right else b"")
    formats = (left[0].format, right[0].format if right else InputFormat.CSV)
    tile_extension = "csv" if run.extension == "csv" else "geojsons"
    futures, members, reaches, tile_of = [], [], [], {}
    for t in range(len(cells.cells)):
        mine = np.nonzero(owner == t)[0]
        if len(mine) == 0:
            continue
        tile_of[t] = len(members)
        d = float(distances[mine].max())
        if math.isfinite(d):
            found = reached(rboxes, halo_boxes(lboxes[mine], d, geodesic), geodesic)
        else:
            found = np.arange(len(rboxes))
        pieces = []
        for chunks, futures_of, chunk_of, row_of, index in (
                (left, sides["left"][0], lchunk, lrow, mine), (right, sides["right"][0], rchunk, rrow, found)):
            side_pieces = [client.submit(select, futures_of[c], row_of[index[chunk_of[index] == c]])
                           for c in np.unique(chunk_of[index])]
            pieces.append(side_pieces)
        futures.append(client.submit(tile_task, run.meridian, near, tile_extension, headers, formats,
                                     len(pieces[0]), *pieces[0], *pieces[1], pure=False))
        members.append(mine)
        reaches.append(found)
    results = client.gather(futures)
    failed = next((r for r in results if not r.ok), None)
    if failed:
        return whole(run, "a tile failed: " + failed.error)
    run.say(f"{len(futures)} tiles done")
    _write(run, results, members, reaches, owner, tile_of, formats[1])
    run.say("written")


def _write(run: Near, results: list[TileRows], members: list[np.ndarray], reaches: list[np.ndarray],
           owner: np.ndarray, tile_of: dict[int, int], right_format: InputFormat) -> None:
    """Writes the tiles' rows in the order of one run: LEFT's, then each LEFT feature's by rank; for --right-only
    RIGHT's (`reaches`: each tile's RIGHT features, as positions in RIGHT)."""
    shape = run.near.shape
    tile_extension = "csv" if run.extension == "csv" else "geojsons"
    split = [output_rows(r.text, tile_extension) for r in results]
    header = b""
    if run.extension == "csv":
        # The columns of a run whose RIGHT is empty may lack RIGHT's (a GeoJSON RIGHT has no schema otherwise).
        candidates = {h for (h, _), found in zip(split, reaches) if len(found) > 0 or right_format is InputFormat.CSV
                      or shape in ("--count", "--left-only")}
        if len(candidates) != 1:
            return whole(run, "the tiles' columns differ")
        header = candidates.pop()
    if shape == "--right-only":
        rows = _right_order(split, results, reaches)
    else:
        rows = _left_order(split, results, members, owner, tile_of, shape)
    if rows is None:
        return whole(run, f"a tile's rows do not match its {'RIGHT' if shape == '--right-only' else 'LEFT'} "
                          "features")
    out = run.output
    if run.extension != "geojson":
        out.write(header)
        for row in rows:
            out.write(row)
        return
    out.write(b'{"features":[')
    for k, row in enumerate(rows):
        out.write((b"," if k else b"") + row.strip(b"\x1e\n"))
    out.write(b'],"type":"FeatureCollection"}\n')


def _left_order(split: list[tuple[bytes, list[bytes]]], results: list[TileRows], members: list[np.ndarray],
                owner: np.ndarray, tile_of: dict[int, int], shape: str):
    """The tiles' rows in LEFT's order (each LEFT feature's rows are consecutive in its tile's output, as many as
    its count), as an iterator; None when a tile's rows do not add up to its LEFT features' counts."""
    per_feature = []
    for (_, rows), result, mine in zip(split, results, members):
        counts = np.ones(len(mine), dtype=np.int64) if result.counts is None else result.counts
        if shape == "--left-only":
            counts = np.minimum(counts, 1)
        if len(counts) != len(mine) or int(counts.sum()) != len(rows):
            return None
        per_feature.append((np.concatenate([[0], np.cumsum(counts)]), rows))
    position = np.empty(len(owner), dtype=np.int64)
    for mine in members:
        position[mine] = np.arange(len(mine))

    def rows():
        for i in range(len(owner)):
            starts, tile_rows = per_feature[tile_of[int(owner[i])]]
            p = position[i]
            yield from tile_rows[starts[p]:starts[p + 1]]
    return rows()


def _right_order(split: list[tuple[bytes, list[bytes]]], results: list[TileRows], reaches: list[np.ndarray]
                 ) -> list[bytes] | None:
    """--right-only: each RIGHT feature matched in some tile once, in RIGHT's order. A feature is known by its
    position in RIGHT (`reaches` maps a tile's RIGHT records to it), not by its row's text: two RIGHT features can be
    written alike, and both are rows. None when a tile's rows and positions do not correspond, or one feature's row
    differs between tiles."""
    chosen: dict[int, bytes] = {}
    for (_, rows), result, found in zip(split, results, reaches):
        local = result.right_rows
        if local is None or len(local) != len(rows):
            return None
        if len(local) and (local[0] < 0 or local[-1] >= len(found) or np.any(np.diff(local) <= 0)):
            return None
        for feature, row in zip(found[local].tolist(), rows):
            if chosen.setdefault(feature, row) != row:
                return None
    return [chosen[feature] for feature in sorted(chosen)]
