"""meridian-dask cuts a CSV file into chunks at record boundaries only: a quoted field may hold line feeds (RFC 4180),
and a chunk that ends inside one made meridian refuse a valid file ("unterminated quoted field"). Python's csv
module is the reference: at every chunk size, each chunk (with the header in front, as the workers read it) holds
whole records, and the chunks' records in order are the file's."""
import csv
import io

import numpy as np
import pytest

from dask_support import run_dask, run_meridian


def write_notes_csv(path, rows=200):
    """x,y,note rows in EPSG:5070 (Texas); every third note is quoted and holds line feeds, quotes and commas."""
    rng = np.random.default_rng(39)
    x, y = rng.uniform(0, 50_000, rows), rng.uniform(1e6, 1.05e6, rows)
    lines = ["x,y,note"]
    for i, (a, b) in enumerate(zip(x.tolist(), y.tolist())):
        note = f'"line one of {i}\nline ""two"", with a comma\n\nand four"' if i % 3 == 0 else f"plain {i}"
        lines.append(f"{a!r},{b!r},{note}")
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode())
    return path


def records(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode(), newline="")))


def test_chunks_end_only_at_record_boundaries(tmp_path):
    from meridian_dask import inputs

    path = write_notes_csv(tmp_path / "notes.csv")
    data = path.read_bytes()
    whole = records(data)
    header = data[:data.index(b"\n") + 1]
    for chunk_bytes in [16, 50, 64, 97, 128, 200, 333, 1000, 4096]:
        chunks = inputs.chunks([str(path)], chunk_bytes)
        assert len(chunks) > 1 or chunk_bytes == 4096
        assert [(c.start, c.end) for c in chunks] == list(zip([0] + [c.end for c in chunks[:-1]],
                                                              [c.start for c in chunks[1:]] + [len(data)]))
        read = []
        for c in chunks:
            piece = data[c.start:c.end]
            rows = records(header + piece if c.header else piece)
            assert rows[0] == whole[0], (chunk_bytes, c)  # each chunk starts with the header, then whole records
            assert all(len(r) == 3 for r in rows), (chunk_bytes, c, rows)
            read += rows[1:]
        assert read == whole[1:], chunk_bytes


def test_a_multiline_quoted_csv_is_buffered_at_small_chunk_sizes(meridian, dask_scheduler, tmp_path):
    path = write_notes_csv(tmp_path / "notes.csv", rows=60)
    args = [path, "--srs", "EPSG:5070", "--distance", "100m", "--segments", "2"]
    run_meridian(meridian, args + ["-o", tmp_path / "one.geojson"])
    for chunk_bytes in (64, 500):
        out = tmp_path / f"many-{chunk_bytes}.geojson"
        run_dask(meridian, args + ["-o", out, "--chunk-bytes", chunk_bytes], scheduler=dask_scheduler)
        assert out.read_bytes() == (tmp_path / "one.geojson").read_bytes()
