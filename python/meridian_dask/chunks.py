"""The pieces of the input that tasks read (`Chunk`), and the input formats (`InputFormat`).

A module of its own, below `inputs.py` (which cuts text files into chunks) and `parquet.py` (one chunk per row group),
so that each imports it and neither imports the other to reach it.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class InputFormat(str, Enum):
    """An input file's format, recognised from its first bytes (`inputs.sniff`), never from its name."""
    CSV = "csv"
    WKT = "wkt"
    SEQUENCE_RS = "seqrs"     # a GeoJSON text sequence, each text after a record separator (RFC 8142)
    SEQUENCE = "seq"          # a GeoJSON text sequence, one text per line
    GEOJSON = "geojson"       # one GeoJSON document (a FeatureCollection): one chunk
    PARQUET = "parquet"       # GeoParquet: one chunk per row group

    @property
    def is_cut_by_bytes(self) -> bool:
        """Whether a file of this format is cut into byte ranges at record boundaries (the text formats but a
        whole GeoJSON document); a failing chunk then needs the lines and features before it to name its place."""
        return self in (InputFormat.CSV, InputFormat.WKT, InputFormat.SEQUENCE_RS, InputFormat.SEQUENCE)


@dataclass
class Chunk:
    """A piece of one input file that one task reads."""
    file: int              # index of the file among the inputs
    path: str
    format: InputFormat
    start: int = 0         # byte range (formats cut by bytes)
    end: int = 0
    header: bool = False   # a CSV chunk after the first: the header line goes in front
    row_group: int = -1    # GeoParquet
    rows_before: int = 0   # GeoParquet: rows of the file before this row group
