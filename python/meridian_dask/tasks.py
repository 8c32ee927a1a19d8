"""The functions Dask runs on the workers. Each one runs a `meridian internal` job (runner.py) and returns a typed
result (results.py); a failure of meridian (a bad record, a bad option) is returned as a `Failure`, not raised, so
that Dask does not retry it, and the driver reports the error the whole input would have met first."""
from __future__ import annotations

import os
import shutil
import struct
import tempfile

import numpy as np

from . import parquet, records
from .chunks import Chunk, InputFormat
from .results import Buffered, CircleStats, Delivery, Failure, Grouped, Prepared, TileShare
from .runner import MeridianError, run_job
from .stitch import Share
from .tiling import assign as assign_cells


def _move(path: str, target: str) -> str | None:
    """Moves a file (a copy when `target` is on another file system); on failure (the output's disk full, …) removes
    what was copied and returns the reason (the client names the output file in its message: a task raising would
    print a worker's traceback)."""
    try:
        shutil.move(path, target)
        return None
    except OSError as e:
        try:
            os.unlink(target)
        except OSError:
            pass
        return e.strerror or str(e)


def deliver(path: str, spool: str | None, name: str) -> Delivery:
    """A file a job wrote, handed to the client: moved into the spool when this worker sees it (the same machine,
    or a shared file system), else its bytes (sent through Dask). `Delivery(failed=reason)` when the spool, beside
    the output, cannot take it (`Output.write_piece` reports it)."""
    if spool and os.path.isdir(spool):
        target = os.path.join(spool, name)
        failed = _move(path, target)
        return Delivery(failed=failed) if failed else Delivery(path=target)
    with open(path, "rb") as f:
        return Delivery(data=f.read())


def _hand_over(path: str, sequence_path: str | None, spool: str | None, name: str) -> Delivery:
    """A step's output file: moved to `sequence_path` (a part of a partitioned output; nothing to deliver, or
    `Delivery(failed=reason)`) or delivered (`deliver`)."""
    if sequence_path:
        failed = _move(path, sequence_path)
        return Delivery(failed=failed) if failed else Delivery(data=b"")
    return deliver(path, spool, name)


def _sequence_to_members(source: str, target: str) -> None:
    """A GeoJSON text sequence ("\x1e{...}\n" records) as members of a feature collection ("{...},{...}"),
    streamed (a JSON text never holds a raw record separator or line feed)."""
    with open(source, "rb") as f, open(target, "wb") as out:
        pending = b""
        first = True
        while True:
            block = f.read(1 << 20)
            if not block:
                break
            data = pending + block
            # A line feed at the end may be the first half of a separator: held back for the next block.
            pending = data[-1:] if data.endswith(b"\n") else b""
            data = data[:len(data) - len(pending)].replace(b"\n\x1e", b",")
            if first:
                data = data.lstrip(b"\x1e")
                first = False
            out.write(data)
        out.write(pending.strip(b"\n\x1e"))


def _failure(error: MeridianError) -> Failure:
    return Failure(error.message, error.status, error.phase, error.features)


def _data_and_origin(chunk: Chunk, arguments: list[str], folder: str, origin: dict | None):
    """The job's `data` and `origin` for a chunk (a GeoParquet row group is converted to text first), and the
    arguments (GeoParquet may add --in-srs)."""
    if chunk.format is InputFormat.PARQUET:
        path, arguments, parquet_origin = parquet.convert(chunk, folder, arguments)
        return {"path": path, "start": 0, "end": os.path.getsize(path)}, parquet_origin, arguments
    data = {"path": chunk.path, "start": chunk.start, "end": chunk.end, "header": chunk.header}
    return data, origin or {"name": chunk.path}, arguments


def prepare(meridian: str, chunk: Chunk, arguments: list[str], origin: dict | None = None) -> Prepared | Failure:
    """Reads and checks a chunk for a union (`prepare` job): circles as an (n, 3) array, or geometry records."""
    with tempfile.TemporaryDirectory(prefix="meridian-dask-") as folder:
        try:
            data, origin, arguments = _data_and_origin(chunk, arguments, folder, origin)
            out = os.path.join(folder, "prepared")
            run = run_job(meridian, {"job": "prepare", "buffer": ["-"] + arguments, "data": data, "origin": origin,
                                     "out": out})
        except MeridianError as e:
            return _failure(e)
        with open(out, "rb") as f:
            raw = f.read()
    result = run.result
    payload = np.frombuffer(raw, dtype="<f8").reshape(-1, 3) if result["kind"] == "circles" else raw
    return Prepared(result["kind"], int(result["features"]), result["srs"], result["geographic"], payload,
                    run.peak_rss, run.seconds)


def circle_stats(prepared: Prepared, seed: int, sample: int = 20_000) -> CircleStats:
    """Extent, largest radius, count and a fixed-seed sample of a chunk's circles (for choosing the cells)."""
    circles = prepared.payload
    n = len(circles)
    pick = np.random.default_rng(seed).choice(n, size=min(n, sample), replace=False) if n else np.empty(0, int)
    return CircleStats(n, float(circles[:, 2].max()) if n else 0.0, circles[np.sort(pick), :2].copy(),
                       prepared.features)


def assign(prepared: Prepared, tiling, margin: float) -> list:
    """A chunk's circles for each cell (`tiling.assign`): per cell None, or (circles, shared) where `shared` says
    which of them also go to another cell."""
    circles = prepared.payload
    per_cell, counts = assign_cells(tiling, circles, margin)
    return [(circles[i], counts[i] > 1) if len(i) else None for i in per_cell]


def pick(values: list, index: int):
    """One element of a task's list result (runs where the list is, so only that element moves)."""
    return values[index]


def tile(meridian: str, arguments: list[str], cell: tuple, sequence_path: str | None, spool: str | None,
         *pieces) -> TileShare:
    """A cell's share of the union (`tile` job): the final parts' text (delivered, or for a partitioned output
    written to `sequence_path`), and what stitching needs."""
    parts = [p for p in pieces if p is not None]
    circles = np.concatenate([p[0] for p in parts]) if parts else np.empty((0, 3))
    shared = np.concatenate([p[1] for p in parts]) if parts else np.empty(0, dtype=bool)
    queried = np.nonzero(shared)[0].astype("<i8")
    with tempfile.TemporaryDirectory(prefix="meridian-dask-") as folder:
        circles_path = os.path.join(folder, "circles")
        np.ascontiguousarray(circles, dtype="<f8").tofile(circles_path)
        queried_path = os.path.join(folder, "queried")
        queried.tofile(queried_path)
        out = os.path.join(folder, "share")
        bounds = [None if not np.isfinite(v) else float(v) for v in cell]
        job = {"job": "tile", "buffer": arguments, "circles": circles_path, "queried": queried_path,
               "tile": bounds, "out": out}
        if sequence_path:
            job["sequence"] = True
        run = run_job(meridian, job)
        text = _hand_over(out + ".text", sequence_path, spool, f"cell-{os.path.basename(folder)}.text")
        with open(out + ".pieces", "rb") as f:
            pieces_data = f.read()
        separator = b", " if "union.wkt" in arguments else b","
        holes = {p: deliver(path, spool, f"holes-{os.path.basename(folder)}-{p}.text")
                 for p, path in _split_holes(out + ".holes", separator).items()}
        with open(out + ".parts", "rb") as f:
            local_parts = records.read_indices(f.read()).copy()
    chains = [(p, c) for _, p, c in records.read_pieces(pieces_data)]
    share = Share(chains=chains, hole_parts=sorted(holes), shared=circles[queried], shared_parts=local_parts)
    stats = dict(run.result, circles=len(circles), rss=run.peak_rss, seconds=run.seconds)
    return TileShare(text, share, stats, holes)


def _split_holes(path: str, separator: bytes) -> dict[int, str]:
    """The `holes` records of a cell (local part, text) as one file per local part, the rings' texts joined by
    `separator`, read and written a record at a time."""
    files: dict[int, object] = {}
    paths: dict[int, str] = {}
    with open(path, "rb") as f:
        while header := f.read(16):
            part, n = struct.unpack("<qq", header)
            if part not in files:
                paths[part] = f"{path}.{part}"
                files[part] = open(paths[part], "wb")
            elif n:
                files[part].write(separator)
            files[part].write(f.read(n))
    for handle in files.values():
        handle.close()
    return paths


def field(value, name: str):
    """One field of a task's result (runs where the result is, so only that field moves)."""
    return getattr(value, name)


def format_parts(meridian: str, arguments: list[str], parts: list[list[np.ndarray]]) -> list[bytes]:
    """The text of each stitched part (`format` job), its closing bracket last."""
    with tempfile.TemporaryDirectory(prefix="meridian-dask-") as folder:
        parts_path, out = os.path.join(folder, "parts"), os.path.join(folder, "text")
        with open(parts_path, "wb") as f:
            f.write(records.write_parts(parts))
        run_job(meridian, {"job": "format", "buffer": arguments, "parts": parts_path, "out": out})
        with open(out, "rb") as f:
            return [text for _, text in records.read_texts(f.read(), keyed=False)]


def holes_text(result: TileShare, part: int) -> Delivery:
    """The text of a cell's holes of one local part (delivered)."""
    return result.holes[part]


def select(payload: bytes, ranges: list[tuple[int, int]]) -> bytes:
    """Some records of a chunk's `geometries` payload."""
    return b"".join(payload[a:b] for a, b in ranges)


def group(meridian: str, arguments: list[str], srs: str, sequence_path: str | None, spool: str | None,
          *payloads) -> Grouped | Failure:
    """The union of one group of whole clusters (`group` job): text, or a part file for a partitioned output."""
    with tempfile.TemporaryDirectory(prefix="meridian-dask-") as folder:
        path, out = os.path.join(folder, "geometries"), os.path.join(folder, "text")
        with open(path, "wb") as f:
            for p in payloads:
                f.write(records.point_records(p) if isinstance(p, np.ndarray) else p)
        job = {"job": "group", "buffer": arguments, "srs": srs, "geometries": path, "out": out}
        if sequence_path:
            job["sequence"] = True
        try:
            run = run_job(meridian, job)
        except MeridianError as e:
            return _failure(e)
        text = _hand_over(out, sequence_path, spool, f"group-{os.path.basename(folder)}.text")
    return Grouped(text, dict(run.result, rss=run.peak_rss, seconds=run.seconds))


def buffer(meridian: str, chunk: Chunk, arguments: list[str], extension: str, origin: dict | None = None,
           sequence_path: str | None = None, collection: bool = False, spool: str | None = None
           ) -> Buffered | Failure:
    """Buffers one chunk without union (`buffer` job) into the output's format, delivered: with `collection`,
    GeoJSON features joined by commas (from a GeoJSON text sequence) for a feature collection, else the format's
    own text (the driver drops the header of a CSV chunk after the first)."""
    with tempfile.TemporaryDirectory(prefix="meridian-dask-") as folder:
        try:
            data, origin, arguments = _data_and_origin(chunk, arguments, folder, origin)
            out = os.path.join(folder, "buffers." + extension)
            run = run_job(meridian, {"job": "buffer", "buffer": ["-"] + arguments + ["-o", out], "data": data,
                                     "origin": origin})
        except MeridianError as e:
            return _failure(e)
        if collection and not sequence_path:
            _sequence_to_members(out, out + ".members")
            out += ".members"
        text = _hand_over(out, sequence_path, spool, f"chunk-{os.path.basename(folder)}.{extension}")
    return Buffered(text, int(run.result["vertices"]), int(run.result["features"]), run.peak_rss, run.seconds)
