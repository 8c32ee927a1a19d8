"""What the tasks hand back to the client (tasks.py): typed, so that the driver reads fields, not dictionary keys.

Each job result says whether it succeeded (`ok`); a failure of meridian is a `Failure`, returned rather than raised
so that Dask does not retry it. A file a job wrote reaches the client as a `Delivery`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar


@dataclass(frozen=True)
class Delivery:
    """A file a job wrote, handed to the client: moved into the spool (`path`), or its bytes (`data`; empty for a
    part written in place into a partitioned output), or why the spool beside the output could not take it
    (`failed`: the output's write failure)."""
    path: str | None = None
    data: bytes | None = None
    failed: str | None = None

    @property
    def is_empty(self) -> bool:
        """Whether the piece holds no text."""
        return not self.data and not (self.path is not None and os.path.getsize(self.path))


class JobResult:
    """What every task result offers: `ok`, and its scalar fields for `--report`."""
    ok: ClassVar[bool] = True
    #: Fields that hold the task's data, not facts about it: never in the report.
    unreported: ClassVar[tuple[str, ...]] = ()

    def report(self) -> dict[str, Any]:
        """`ok` and the fields that are numbers, text, booleans or None (one JSON line of `--report`)."""
        values = {f.name: getattr(self, f.name) for f in fields(self)  # type: ignore[arg-type]
                  if f.name not in self.unreported}
        return {"ok": self.ok} | {k: v for k, v in values.items()
                                  if isinstance(v, (int, float, str, bool)) or v is None}


@dataclass
class Failure(JobResult):
    """meridian refused the job: its message (as `meridian buffer` words it), exit status, phase ("options",
    "read" or "check") and, when known, the features read before it."""
    ok: ClassVar[bool] = False
    error: str
    status: int
    phase: str
    features: int | None = None


@dataclass
class Prepared(JobResult):
    """A chunk read and checked for a union (`prepare` job): circles as an (n, 3) array or geometry records
    (`kind` "circles" or "geometries"); `payload` is None in the copy the client keeps (`without_payload`)."""
    unreported: ClassVar[tuple[str, ...]] = ("payload",)
    kind: str
    features: int
    srs: str
    geographic: bool
    payload: Any
    rss: int
    seconds: float

    def without_payload(self) -> Prepared:
        """The result without its payload, which stays on the worker."""
        return Prepared(self.kind, self.features, self.srs, self.geographic, None, self.rss, self.seconds)


@dataclass
class Buffered(JobResult):
    """A chunk buffered without union (`buffer` job): its text (`None` in the copy the client keeps unless it could
    not be delivered, `without_text`), vertices and features."""
    unreported: ClassVar[tuple[str, ...]] = ("text",)
    text: Delivery | None
    vertices: int
    features: int
    rss: int
    seconds: float

    def without_text(self) -> Buffered:
        """The result without its text, but with why it could not be delivered, if it could not."""
        kept = self.text if self.text is not None and self.text.failed else None
        return Buffered(kept, self.vertices, self.features, self.rss, self.seconds)

    @property
    def failed_delivery(self) -> str | None:
        """Why its text could not be put beside the output, if it could not."""
        return self.text.failed if self.text is not None else None


@dataclass
class Grouped(JobResult):
    """The union of one group of whole clusters (`group` job): its text, and meridian's statistics of the job."""
    text: Delivery
    stats: dict = field(default_factory=dict)


@dataclass
class TileShare(JobResult):
    """A cell's share of the union (`tile` job): the final parts' text, what stitching needs (`share`), meridian's
    statistics of the job and the text of the holes of each local part that stitching joins to another cell's."""
    text: Delivery
    share: Any
    stats: dict
    holes: dict[int, Delivery]


@dataclass
class CircleStats(JobResult):
    """A prepared chunk's circles summed up for choosing the cells: count, largest radius, a fixed-seed sample of
    centres and the chunk's features."""
    count: int
    rmax: float
    sample: Any
    features: int


@dataclass
class Plan(JobResult):
    """meridian's reading of the `meridian buffer` options (`plan` job): the output's format (its extension; "" for
    standard output, which is GeoJSON), whether the buffers are unioned and geodesic, the inputs named, the union
    cells' margin per unit of the largest radius (planar unions only; None otherwise) and the vertex limit."""
    format: str
    union: bool
    geodesic: bool
    inputs: list[str]
    margin_per_radius: float | None
    max_vertices: int

    @classmethod
    def from_job(cls, result: dict) -> Plan:
        """The plan from the job's JSON answer."""
        return cls(result["format"], result["union"], result["geodesic"], list(result["inputs"]),
                   result.get("marginPerRadius"), result["maxVertices"])

    @property
    def writes_geojson(self) -> bool:
        """Whether the output is GeoJSON (a feature collection)."""
        return self.format in ("", "geojson", "json")

    @property
    def writes_wkt(self) -> bool:
        """Whether the output is WKT."""
        return self.format == "wkt"
