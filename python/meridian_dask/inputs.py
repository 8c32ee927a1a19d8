"""The inputs of a run: files and folders, their formats, and their chunks (the pieces one task reads).

CSV, WKT and GeoJSON text sequences (RS-separated or newline-delimited) are cut into byte ranges at record
boundaries (in CSV, a line feed outside any quoted field: a quoted field may hold line feeds); a CSV chunk after the
first gets the file's header line in front. A GeoJSON document (a
FeatureCollection) is one chunk. GeoParquet is read with pyarrow a row group at a time (`parquet.py`). A chunk is
read by `meridian` itself (`InternalCommand`), with the file's name in its messages; the line and feature numbers of
a failing chunk are worked out afterwards (`offsets`) and the chunk run again, so that the message names the place
in the whole file, as `meridian buffer` would.
"""
from __future__ import annotations

import json
import os

from . import parquet
from .chunks import Chunk, InputFormat
from .runner import SetupError

#: Extensions taken from a folder given as INPUT (files named on the command line are taken whatever their name).
FOLDER_EXTENSIONS = (".csv", ".geojson", ".json", ".geojsons", ".geojsonl", ".geojsonseq", ".jsonl", ".wkt",
                     ".parquet", ".geoparquet")

#: How much of a file a chunk holds at most (a little more, to the end of a record).
DEFAULT_CHUNK_BYTES = 64 << 20


def expand(inputs: list[str]) -> list[str]:
    """The input files: files as given, folders as their files with a known extension, sorted by name."""
    files = []
    for given in inputs:
        if os.path.isdir(given):
            names = sorted(n for n in os.listdir(given) if n.lower().endswith(FOLDER_EXTENSIONS)
                           and not n.startswith("."))
            if not names:
                raise SetupError(f"{given}: a folder without input files (" + ", ".join(FOLDER_EXTENSIONS) + ")")
            files += [os.path.join(given, n) for n in names]
        elif not os.path.exists(given):
            raise SetupError(f"cannot read {given}: No such file or directory")
        else:
            files.append(given)
    return files


def sniff(path: str) -> InputFormat:
    """The format of a file, from its first bytes (as meridian recognises its inputs, never by name)."""
    try:
        with open(path, "rb") as f:
            head = f.read(1 << 16)
    except OSError as e:
        raise SetupError(f"cannot read {path}: {e.strerror}") from None
    if head.startswith(b"PAR1"):
        return InputFormat.PARQUET
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"\x1e"):
        return InputFormat.SEQUENCE_RS
    if text.startswith((b"{", b"[")):
        return InputFormat.SEQUENCE if _newline_delimited(path) else InputFormat.GEOJSON
    word = text[:20].split(b"(")[0].split()[0].upper() if text.strip() else b""
    if word in {b"POINT", b"MULTIPOINT", b"LINESTRING", b"MULTILINESTRING", b"POLYGON", b"MULTIPOLYGON",
                b"GEOMETRYCOLLECTION", b"LINEARRING"}:
        return InputFormat.WKT
    return InputFormat.CSV


def _newline_delimited(path: str) -> bool:
    """Whether a JSON file holds one GeoJSON text per line: its first line (up to 16 MB) is a whole JSON object and
    another non-blank line follows."""
    with open(path, "rb") as f:
        first = f.readline(16 << 20)
        if not first.endswith(b"\n"):
            return False
        try:
            json.loads(first)
        except ValueError:
            return False
        for line in f:
            if line.strip():
                return line.lstrip().startswith((b"{", b"\x1e"))
    return False


def chunks(files: list[str], chunk_bytes: int = DEFAULT_CHUNK_BYTES) -> list[Chunk]:
    """Every file's chunks, in input order."""
    result: list[Chunk] = []
    for i, path in enumerate(files):
        fmt = sniff(path)
        if fmt is InputFormat.PARQUET:
            result += parquet.chunks(i, path)
        elif fmt is InputFormat.GEOJSON:
            result.append(Chunk(i, path, fmt, 0, os.path.getsize(path)))
        else:
            result += _text_chunks(i, path, fmt, chunk_bytes)
    return result


def _text_chunks(file: int, path: str, fmt: InputFormat, chunk_bytes: int) -> list[Chunk]:
    """Byte ranges of about `chunk_bytes`, each ending at the end of a record (for RS-separated sequences, before a
    line starting with the record separator; in CSV, at a line feed outside any quoted field); the last one grows
    over a small rest."""
    size = os.path.getsize(path)
    bounds = [0]
    with open(path, "rb") as f:
        target = chunk_bytes
        while target < size:
            if fmt is InputFormat.CSV:
                boundary = _csv_boundary(f, bounds[-1], target)
            else:
                boundary = _boundary(f, target, fmt)
            if boundary is None or boundary >= size:
                break
            if size - boundary < chunk_bytes // 4:  # a small rest joins the last chunk
                break
            bounds.append(boundary)
            target = boundary + chunk_bytes
    bounds.append(size)
    return [Chunk(file, path, fmt, a, b, header=(fmt is InputFormat.CSV and a > 0)) for a, b in zip(bounds, bounds[1:])]


def _boundary(f, offset: int, fmt: InputFormat) -> int | None:
    """The first record boundary of a WKT file or a GeoJSON text sequence at or after `offset`: just after a line
    feed (followed by the record separator in an RS-separated sequence, by a record in a newline-delimited one)."""
    f.seek(offset)
    position = offset
    carry = b""
    while True:
        block = f.read(1 << 20)
        if not block:
            return None
        data = carry + block
        base = position - len(carry)
        k = 0
        while True:
            k = data.find(b"\n", k)
            if k < 0 or k + 1 >= len(data):
                break
            follows = data[k + 1:k + 2]
            if (fmt is InputFormat.SEQUENCE_RS and follows == b"\x1e") \
                    or (fmt is InputFormat.SEQUENCE and follows in (b"\x1e", b"{")) or fmt is InputFormat.WKT:
                return base + k + 1
            k += 1
        carry = data[-1:]
        position += len(block)


def _csv_boundary(f, start: int, offset: int) -> int | None:
    """The first record boundary of a CSV file at or after `offset`, given `start`, a record boundary before it:
    just after the first line feed outside a quoted field. meridian reads CSV as RFC 4180 says (a quote opens a
    field, `""` stands for a quote inside one, and a quote anywhere else is an error), so a position is inside a
    quoted field exactly when an odd number of quotes lie between the record boundary and it. A stray quote in a
    broken file can only make a chunk longer (the chunk holding it is the one meridian refuses, with its line)."""
    f.seek(start)
    inside = False
    remaining = offset - start
    while remaining > 0:
        block = f.read(min(remaining, 1 << 24))
        if not block:
            return None
        inside ^= block.count(b'"') % 2 == 1
        remaining -= len(block)
    position = offset
    while True:
        block = f.read(1 << 20)
        if not block:
            return None
        k = 0
        while True:
            feed = block.find(b"\n", k)
            if feed < 0:
                inside ^= block.count(b'"', k) % 2 == 1
                break
            inside ^= block.count(b'"', k, feed) % 2 == 1
            if not inside:
                return position + feed + 1
            k = feed + 1
        position += len(block)


def lines_before(path: str, offset: int) -> int:
    """The number of line feeds in the file before `offset`."""
    count = 0
    with open(path, "rb") as f:
        remaining = offset
        while remaining > 0:
            block = f.read(min(remaining, 16 << 20))
            if not block:
                break
            count += block.count(b"\n")
            remaining -= len(block)
    return count
