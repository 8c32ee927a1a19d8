"""The run: plan with meridian, read the chunks on the workers, then buffer, or union in cells or in groups, and
write the result. See docs/cluster.md for why the union equals `meridian buffer --union`'s."""
from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field

import numpy as np

from . import clusters, inputs, stitch, tasks, tiling
from .chunks import Chunk, InputFormat
from .output import Output
from .progress import Progress
from .results import Buffered, Delivery, Failure, JobResult, Plan, Prepared
from .runner import MeridianError, SetupError, find_meridian, run_job

#: Formats meridian-dask writes as one file (`meridian buffer`'s streamed formats); others are refused.
FILE_FORMATS = {"", "geojson", "json", "geojsons", "wkt", "csv"}


@dataclass
class Options:
    """What the command line asked for (`cli.py`)."""
    arguments: list[str]            # `meridian buffer` options, inputs included, -o excluded
    output: str | None = None
    workers: int | None = None
    scheduler: str | None = None
    verbose: bool = False
    quiet: bool = False
    meridian: str | None = None
    tile_points: int | None = None
    cell_size: float | None = None
    report: str | None = None
    chunk_bytes: int = inputs.DEFAULT_CHUNK_BYTES
    log: list = field(default_factory=list)  # (stage, stats) of every task, for the benchmarks


@dataclass
class Run:
    """A run under way."""
    options: Options
    meridian: str
    plan: Plan
    arguments: list[str]            # options without the inputs (each job adds "-" and its own -o)
    chunks: list[Chunk]
    output: Output
    client: object = None
    progress: Progress | None = None
    started: float = field(default_factory=__import__("time").monotonic)

    @property
    def union_arguments(self) -> list[str]:
        """The options for a union's jobs, with an output of the run's format (the jobs write fragments of it)."""
        return self.arguments + ["-o", "union.wkt" if self.plan.writes_wkt else "union.geojson"]

    def say(self, text: str) -> None:
        """A note on standard error with --verbose, with the seconds since the run began."""
        if self.options.verbose:
            import sys
            import time

            print(f"meridian-dask buffer: [{time.monotonic() - self.started:.1f} s] {text}", file=sys.stderr,
                  flush=True)


def plan(options: Options) -> tuple[str, Plan, list[str], Output]:
    """Checks the options with meridian's own parsing (`plan` job) and finds the inputs."""
    meridian = find_meridian(options.meridian)
    output = Output(options.output)
    probe = options.output or "-"
    if output.is_folder:  # a partitioned result is GeoJSON text sequences; meridian checks the rest
        probe = "part.geojson" if "--union" in options.arguments else "part.geojsons"
    result = Plan.from_job(run_job(meridian, {"job": "plan", "buffer": options.arguments + ["-o", probe]}).result)
    if not output.is_folder and result.format not in FILE_FORMATS:
        raise SetupError(f"meridian-dask writes .geojson, .geojsons, .wkt, .csv or a folder of parts (-o DIR/), not "
                         f".{result.format}; for .svg, .kml and .kmz use meridian buffer", 2)
    if result.union and not (result.writes_geojson or result.writes_wkt) and not output.is_folder:
        raise SetupError(f"--union writes one polygon: use .geojson or .wkt, not .{result.format}", 2)
    names = result.inputs
    if not names or names == ["-"]:
        raise SetupError("give the input: files or folders (meridian-dask does not read standard input)", 2)
    arguments = list(options.arguments)
    for name in names:
        arguments.remove(name)
    return meridian, result, arguments, output


def connect(options: Options):
    """A Dask client: of `--scheduler`, or of a LocalCluster of `--workers` single-threaded processes."""
    from distributed import Client, LocalCluster

    if options.scheduler:
        return Client(options.scheduler), None
    workers = options.workers or os.cpu_count() or 1
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0")
    return Client(cluster), cluster


def execute(options: Options) -> int:
    """Runs the whole command; returns the exit status."""
    meridian, result, arguments, output = plan(options)
    files = inputs.expand(result.inputs)
    chunks = inputs.chunks(files, options.chunk_bytes)
    run = Run(options, meridian, result, arguments, chunks, output)
    run.progress = Progress("meridian-dask buffer", enabled=not options.quiet)
    client, cluster = connect(options)
    run.client = client
    try:
        run.say(f"Dask dashboard: {client.dashboard_link}")
        run.say(f"{len(chunks)} chunks of {len(files)} input file(s), meridian {meridian}")
        folder = output.begin()
        try:
            if not result.union:
                buffers(run, folder)
            elif result.geodesic:
                union_groups(run, folder, prepare(run))
            else:
                prepared = prepare(run)
                if all(p.kind == "circles" for p in prepared.meta):
                    union_cells(run, folder, prepared)
                else:
                    union_groups(run, folder, prepared)
            output.commit()
            if options.report:
                import resource

                options.log.append(("client", {"rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
                _write_report(options)
        except BaseException:
            output.abort()
            raise
    finally:
        run.progress.finish()
        client.close()
        if cluster is not None:
            cluster.close()
    return 0


def _wait(run: Run, futures: list, phase: str, features=lambda value: 0) -> list:
    """Waits for tasks with the progress line; returns their results in order."""
    from distributed import as_completed

    run.progress.begin(phase, len(futures))
    for future in as_completed(futures):
        value = future.result()
        run.progress.task_done(features(value))
    return run.client.gather(futures)


def _first_error(run: Run, results: list[JobResult], union: bool) -> None:
    """Raises the error the whole input would have met first, named with the line and feature numbers of the whole
    file (the chunk is run again with them). meridian reads all of a union's input before it checks it, and all of
    a GeoJSON or WKT file before it buffers it: there an error of reading comes before any error of checking. It
    reads and buffers CSV without --union a batch at a time: there the first chunk's error comes first (exact but
    for errors in one batch of 4,096 rows that straddles two chunks)."""
    failed = [i for i, r in enumerate(results) if not r.ok]
    if not failed:
        return
    rank = {"options": 0, "read": 1, "check": 2}

    def order(k: int) -> tuple:
        phase = rank.get(results[k].phase, 2)
        if union:
            return (phase, k)
        if run.chunks[k].format is InputFormat.CSV:
            return (run.chunks[k].file, 0, k)
        return (run.chunks[k].file, phase, k)

    i = min(failed, key=order)
    chunk = run.chunks[i]
    error = results[i]
    if chunk.format.is_cut_by_bytes and chunk.start > 0:
        before = [j for j in range(i) if run.chunks[j].file == chunk.file]
        features = sum(int(results[j].features or 0) for j in before)
        lines = inputs.lines_before(chunk.path, chunk.start)
        origin = {"name": chunk.path, "lineOffset": lines - (1 if chunk.header else 0), "featureOffset": features}
        if union:
            again = tasks.prepare(run.meridian, chunk, run.union_arguments, origin=origin)
        else:
            again = tasks.buffer(run.meridian, chunk, run.arguments, _part_extension(run), origin=origin,
                                 collection=_collection(run))
        if not again.ok:
            error = again
    raise MeridianError(error.error, error.status, error.phase)


@dataclass
class PreparedChunks:
    """Every chunk read and checked for a union: the tasks' futures (their payloads stay on the workers) and their
    results without the payloads, in input order."""
    futures: list
    meta: list[Prepared]


def prepare(run: Run) -> PreparedChunks:
    """Reads and checks every chunk for a union on the workers; the payloads stay there."""
    futures = [run.client.submit(tasks.prepare, run.meridian, c, run.union_arguments, key=f"prepare-{i}-{os.getpid()}")
               for i, c in enumerate(run.chunks)]
    metas = [run.client.submit(_meta, f) for f in futures]
    results = _wait(run, metas, "reading", lambda m: m.features or 0)
    run.say("read")
    _first_error(run, results, union=True)
    for r in results:
        run.options.log.append(("prepare", r))
    return PreparedChunks(futures, results)


def _meta(prepared: Prepared | Failure) -> Prepared | Failure:
    """A prepared chunk without its payload."""
    return prepared.without_payload() if isinstance(prepared, Prepared) else prepared


def _header_footer(run: Run, features: int) -> tuple[bytes, bytes, bytes]:
    """The union file's text around its parts, and between two fragments."""
    if run.plan.writes_wkt:
        return b"MULTIPOLYGON (", b")\n", b", "
    footer = (b'],"type":"MultiPolygon"},"properties":{"count":' + str(features).encode()
              + b'},"type":"Feature"}],"type":"FeatureCollection"}\n')
    return b'{"features":[{"geometry":{"coordinates":[', footer, b","


def _write_fragments(run: Run, features: int, futures: list, stitched=()) -> None:
    """Streams the union file: header, each task's fragment in order (delivered pieces, `tasks.deliver`, fetched
    one at a time), then the stitched parts (each an iterable of pieces of text), footer."""
    header, footer, separator = _header_footer(run, features)
    run.output.write(header)
    first = True
    run.progress.begin("writing", len(futures) + 1)
    for future in futures:
        piece = future.result()
        future.release()
        if not piece.is_empty:
            if not first:
                run.output.write(separator)
            first = False
        run.output.write_piece(piece)
        run.progress.task_done()
    for part in stitched:
        if not first:
            run.output.write(separator)
        for piece in part:
            run.output.write_piece(piece)
        first = False
    run.output.write(footer)


def _stitched_parts(run: Run, shares: list, parts: list[stitch.Part], texts: list[bytes]):
    """Each stitched part's text in pieces (deliveries, `tasks.deliver`): the part's own text up to its closing
    bracket, the holes the cells wrote for it (fetched from the cell one local part at a time), the bracket."""
    separator = Delivery(data=b", " if run.plan.writes_wkt else b",")
    for part, text in zip(parts, texts):
        def pieces(part=part, text=text):
            yield Delivery(data=text[:-1])
            for cell, local in part.cell_holes:
                yield separator
                yield run.client.submit(tasks.holes_text, shares[cell], local).result()
            yield Delivery(data=text[-1:])
        yield pieces()


def default_tile_points(total: int, workers: int) -> int:
    """Circles per cell: enough cells for every worker to have several (and no cell over a quarter of the points
    with two workers), at most 250,000 (a cell's meridian then stays under about 0.5 GB even when every circle
    leaves a hole, as in the one-cluster grid of bench D2)."""
    return int(min(250_000, max(100, -(-total // (4 * max(workers, 2))))))


def union_cells(run: Run, folder: str | None, prepared: PreparedChunks) -> None:
    """The planar union of point buffers in cells: each cell unions the circles that reach it and keeps what it
    owns; the cells' pieces are stitched (stitch.py) and written after the cells' final parts."""
    client, futures = run.client, prepared.futures
    stats = client.gather([client.submit(tasks.circle_stats, f, i) for i, f in enumerate(futures)])
    total = sum(s.count for s in stats)
    features = sum(m.features for m in prepared.meta)
    rmax = max(s.rmax for s in stats)
    margin = run.plan.margin_per_radius * rmax
    xs = np.concatenate([s.sample[:, 0] for s in stats])
    ys = np.concatenate([s.sample[:, 1] for s in stats])
    weights = np.concatenate([np.full(len(s.sample), s.count / max(len(s.sample), 1)) for s in stats])
    workers = len(client.scheduler_info()["workers"]) or 1
    target = run.options.tile_points or default_tile_points(total, workers)
    if run.options.cell_size:
        try:
            cells = tiling.grid(xs, ys, run.options.cell_size)
        except ValueError as e:
            raise SetupError(f"--cell-size {run.options.cell_size}: {e}", 2) from None
    else:
        cells = tiling.build(xs, ys, weights, target, min_side=4 * (rmax + margin))
    run.say(f"{total} circles (largest radius {rmax}) in {len(cells.cells)} cells of about {target}")
    assigned = [client.submit(tasks.assign, f, cells, margin) for f in futures]
    shares = []
    for c, cell in enumerate(cells.cells):
        pieces = [client.submit(tasks.pick, a, c) for a in assigned]
        path = os.path.join(folder, f"part-{c:05d}.geojsons") if folder else None
        shares.append(client.submit(tasks.tile, run.meridian, run.union_arguments, cell, path, run.output.spool,
                                    *pieces))
    metas = [client.submit(tasks.field, s, "share") for s in shares]
    tile_stats = [client.submit(tasks.field, s, "stats") for s in shares]
    logged = _wait(run, tile_stats, "union", lambda s: s["circles"])
    run.say("cells done")
    run.options.log += [("tile", s) for s in logged]
    fallbacks = [s["fallback"] for s in logged if s["fallback"]]
    if fallbacks:
        run.say(f"GEOS unioned part of {len(fallbacks)} cells: {fallbacks[0]}")
    try:
        parts = stitch.stitch(client.gather(metas))
    except stitch.StitchError as e:
        run.say(f"the cells do not fit together ({e}); the whole union runs in one task")
        for s in shares:
            s.release()
        if folder:
            for name in os.listdir(folder):
                os.unlink(os.path.join(folder, name))
        payloads = [client.submit(tasks.field, f, "payload") for f in futures]
        whole = client.submit(tasks.group, run.meridian, run.union_arguments, prepared.meta[0].srs,
                              os.path.join(folder, "part-00000.geojsons") if folder else None, None, *payloads)
        result = whole.result()
        if not result.ok:
            raise MeridianError(result.error, result.status, "check")
        _refuse_failed_deliveries(run, [result.text.failed])
        if not folder:
            _write_fragments(run, features, [whole_text(client, whole)])
        return
    run.options.log.append(("stitch", {"parts": len(parts), "rings": sum(len(p.rings) for p in parts),
                                       "vertices": sum(len(r) for p in parts for r in p.rings),
                                       "cell_holes": sum(len(p.cell_holes) for p in parts)}))
    run.say(f"stitched {len(parts)} parts")
    texts = client.submit(tasks.format_parts, run.meridian, run.union_arguments, [p.rings for p in parts]).result()
    stitched = _stitched_parts(run, shares, parts, texts)
    if folder:
        _refuse_failed_deliveries(run, [t.failed for t in client.gather(
            [client.submit(tasks.field, s, "text") for s in shares])])
        _write_stitched_part(run.output, os.path.join(folder, f"part-{len(cells.cells):05d}.geojsons"), stitched)
        return
    _write_fragments(run, features, [client.submit(tasks.field, s, "text") for s in shares], stitched)
    run.say("written")


def _write_stitched_part(output: Output, path: str, stitched) -> None:
    """The stitched parts of a folder output, as one GeoJSON text sequence file."""
    try:
        with open(path, "wb") as f:
            for part in stitched:
                f.write(b'\x1e{"geometry":{"coordinates":')
                for piece in part:
                    if piece.failed:
                        raise output.failure(piece.failed)
                    if piece.data is not None:
                        f.write(piece.data)
                    else:
                        with open(piece.path, "rb") as source:
                            shutil.copyfileobj(source, f, 1 << 20)
                        os.unlink(piece.path)
                f.write(b',"type":"Polygon"},"properties":{},"type":"Feature"}\n')
    except OSError as e:
        raise output.failure(e.strerror or str(e)) from None


def union_groups(run: Run, folder: str | None, prepared: PreparedChunks) -> None:
    """A union by groups of whole clusters (clusters.py): each group unioned by one task."""
    client, futures = run.client, prepared.futures
    features = sum(m.features for m in prepared.meta)
    first = next((m for m in prepared.meta if m.kind == "geometries"), prepared.meta[0])
    srs, geographic = first.srs, first.geographic
    found = client.gather([client.submit(clusters.extents, f, run.plan.geodesic, geographic) for f in futures])
    counts = [e.count for e in found]
    owner = np.repeat(np.arange(len(found)), counts)
    index = np.concatenate([np.arange(n) for n in counts]) if counts else np.empty(0, int)
    if any(e.boxes is None for e in found):
        labels = np.zeros(len(owner), dtype=np.int64)
    else:
        labels = clusters.components(np.concatenate([e.boxes for e in found]))
    workers = len(client.scheduler_info()["workers"]) or 1
    target = run.options.tile_points or default_tile_points(len(owner), workers)
    packed = clusters.groups(labels, np.ones(len(owner)), target)
    run.say(f"{len(owner)} features in {len(np.unique(labels))} clusters, {len(packed)} groups")
    tasks_out = []
    for g, members in enumerate(packed):
        selections = []
        for chunk in np.unique(owner[members]):
            rows = index[members[owner[members] == chunk]]
            ranges = found[chunk].ranges
            if ranges is None:
                selections.append(client.submit(_rows, futures[chunk], rows))
            else:
                selections.append(client.submit(_records, futures[chunk], [ranges[k] for k in rows]))
        path = os.path.join(folder, f"part-{g:05d}.geojsons") if folder else None
        tasks_out.append(client.submit(tasks.group, run.meridian, run.union_arguments, srs, path, run.output.spool,
                                       *selections))
    results = _wait(run, tasks_out, "union", lambda r: 0)
    failed = [r for r in results if not r.ok]
    if failed:
        raise MeridianError(failed[0].error, failed[0].status, "check")
    run.options.log += [("group", r.stats) for r in results]
    _refuse_failed_deliveries(run, [r.text.failed for r in results])
    if not folder:
        texts = [client.submit(tasks.field, t, "text") for t in tasks_out]
        _write_fragments(run, features, texts)


def _rows(prepared: Prepared, rows: np.ndarray) -> np.ndarray:
    """Some circles of a prepared chunk."""
    return prepared.payload[rows]


def _records(prepared: Prepared, ranges: list) -> bytes:
    """Some geometry records of a prepared chunk."""
    return tasks.select(prepared.payload, ranges)


def _collection(run: Run) -> bool:
    """Whether the output is one GeoJSON feature collection (its chunks' records are joined into it)."""
    return run.plan.writes_geojson and not run.output.is_folder


def _part_extension(run: Run) -> str:
    """The format a chunk's buffers are written in: GeoJSON as a text sequence (joined into one collection)."""
    return "geojsons" if run.plan.writes_geojson or run.output.is_folder else run.plan.format


def buffers(run: Run, folder: str | None) -> None:
    """Buffers without union: every chunk buffered by one task, written in input order (the same features in the
    same order as `meridian buffer`)."""
    extension = _part_extension(run)
    futures = []
    for i, chunk in enumerate(run.chunks):
        path = os.path.join(folder, f"part-{i:05d}.geojsons") if folder else None
        futures.append(run.client.submit(tasks.buffer, run.meridian, chunk, run.arguments, extension,
                                         sequence_path=path, collection=_collection(run), spool=run.output.spool,
                                         key=f"buffer-{i}-{os.getpid()}"))
    metas = [run.client.submit(_meta_text, f) for f in futures]
    results = _wait(run, metas, "buffering", lambda m: m.features or 0)
    _first_error(run, results, union=False)
    run.options.log += [("buffer", r) for r in results]
    _refuse_failed_deliveries(run, [r.failed_delivery for r in results])
    vertices = sum(r.vertices for r in results)
    features = sum(r.features for r in results)
    if vertices > run.plan.max_vertices:
        run_job(run.meridian, {"job": "vertices", "buffer": run.arguments, "vertices": vertices,
                               "features": features})
    if folder:
        return
    csv = run.plan.format == "csv"
    geojson = _collection(run)
    if geojson:
        run.output.write(b'{"features":[')
    header = None
    first = True
    run.progress.begin("writing", len(futures))
    for future in futures:
        piece = run.client.submit(tasks.field, future, "text").result()
        future.release()
        if piece.path is not None:  # small enough to look at the header; the rest is copied from disk
            piece = _drop_csv_header(piece, header) if csv and header is not None else piece
        if csv:
            line = _first_line(piece)
            if header is None:
                header = line
            elif piece.data is not None:
                if line != header:
                    raise SetupError("the inputs' CSV headers differ, and a CSV output has one header: write "
                                     ".geojson or .geojsons instead")
                piece = Delivery(data=piece.data.partition(b"\n")[2])
        empty = piece.is_empty
        if geojson and not empty and not first:
            run.output.write(b",")
        if not empty:
            first = False
        run.output.write_piece(piece)
        run.progress.task_done()
    if geojson:
        run.output.write(b'],"type":"FeatureCollection"}\n')


def _meta_text(result: Buffered | Failure) -> Buffered | Failure:
    """A buffered chunk's result without its text (but why it could not be delivered, if it could not)."""
    return result.without_text() if isinstance(result, Buffered) else result


def _refuse_failed_deliveries(run: Run, reasons: list) -> None:
    """Raises the output's write error when a task could not put its part beside the output (`tasks.deliver`;
    for a folder output the parts are the output): one line naming the output, as `meridian buffer` says it."""
    failed = next((r for r in reasons if r), None)
    if failed:
        raise run.output.failure(failed)


def _write_report(options: Options) -> None:
    """`--report FILE`: one JSON line per task (its stage, what it handled, its meridian process's peak RSS in bytes
    and its time in seconds), for the benchmarks and the tests."""
    import json

    with open(options.report, "w") as f:
        for stage, stats in options.log:
            values = stats.report() if isinstance(stats, JobResult) else {
                k: v for k, v in stats.items() if isinstance(v, (int, float, str, bool)) or v is None}
            line = {"stage": stage} | values
            f.write(json.dumps(line) + "\n")


def whole_text(client, future):
    """The text delivery of a union of everything in one task (a future of `tasks.group`)."""
    return client.submit(tasks.field, future, "text")


def _first_line(piece: Delivery) -> bytes:
    """The first line of a delivered piece."""
    if piece.data is not None:
        return piece.data.partition(b"\n")[0]
    with open(piece.path, "rb") as f:
        return f.readline().rstrip(b"\n")


def _drop_csv_header(piece: Delivery, header: bytes) -> Delivery:
    """A CSV chunk's output without its header line (which must be the first chunk's), rewritten in the spool."""
    path = piece.path
    with open(path, "rb") as f:
        line = f.readline().rstrip(b"\n")
        if line != header:
            raise SetupError("the inputs' CSV headers differ, and a CSV output has one header: write .geojson or "
                             ".geojsons instead")
        with open(path + ".body", "wb") as out:
            shutil.copyfileobj(f, out, 1 << 20)
    os.replace(path + ".body", path)
    return piece
