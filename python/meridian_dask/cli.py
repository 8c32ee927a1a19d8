"""`meridian-dask buffer INPUT... --srs SRS --distance D [...] -o OUT [--workers N | --scheduler ADDRESS]`.

meridian-dask takes its own options (below) and hands every other argument to meridian, whose `buffer` parsing
checks them (units, formats, the rules between options) with its own messages: nothing of `meridian buffer`'s
command line is parsed here a second time.
"""
from __future__ import annotations

import sys

from . import near
from .driver import Options, execute
from .output import WriteError
from .runner import MeridianError, SetupError

HELP = """\
Usage: meridian-dask buffer INPUT... --srs SRS (--distance D | --distance-field NAME [--unit U]) [--union]
                            [--geodesic] [other meridian buffer options] -o OUTPUT
                            [--workers N | --scheduler ADDRESS] [--verbose] [--meridian PATH]

Runs `meridian buffer` on a Dask cluster: the same options, units, formats, checks and messages, and the same
answer. Without --union every chunk of the input is buffered by a task and the features are written in input
order; with --union the planar union of points is computed in cells (each cell's union, stitched exactly along
the cells' edges) and other unions by groups of clusters that cannot touch. See docs/cluster.md.

INPUT                 files or folders: CSV, GeoJSON, GeoJSON text sequences (.geojsons, newline-delimited),
                      WKT, GeoParquet (read with pyarrow); a folder gives its files with those extensions
-o, --output OUTPUT   one file as meridian buffer writes it (.geojson, .geojsons, .wkt, .csv; written atomically),
                      or DIR/ for a folder of GeoJSON text sequence parts (part-NNNNN.geojsons); without -o,
                      GeoJSON on standard output
--workers N           a LocalCluster of N single-threaded worker processes (default: one per core)
--scheduler ADDRESS   use a running Dask cluster instead (tcp://host:8786)
--verbose             say what is done, with the Dask dashboard's address
--quiet               no progress line (one is shown on a terminal)
--meridian PATH       the meridian executable (default: meridian on PATH, else the clone's .build/release/meridian)
--tile-points N       circles per cell of a union (default: enough cells for the workers, at most 1,000,000)
--cell-size S         with --union: cells of a regular grid of side S (in the SRS unit, lines at multiples of
                      S) instead of cells fitted to the points
--chunk-bytes N       bytes of a text input per reading task (default 64 MiB)
--report FILE         write one JSON line per task (stage, size, peak RSS of its meridian process, seconds)

Every other option is meridian buffer's (meridian buffer --help). For proximity (meridian near), see
meridian-dask near --help.
"""

#: meridian-dask's own options that take a value (meridian's pass through).
VALUE_OPTIONS = {"-o": "output", "--output": "output", "--workers": "workers", "--scheduler": "scheduler",
                 "--meridian": "meridian", "--tile-points": "tile_points", "--chunk-bytes": "chunk_bytes",
                 "--cell-size": "cell_size", "--report": "report"}
FLAG_OPTIONS = {"--verbose": "verbose", "--quiet": "quiet"}
NUMBERS = {"workers", "tile_points", "chunk_bytes"}
REALS = {"cell_size"}


def parse(argv: list[str]) -> Options:
    """Separates meridian-dask's options from meridian buffer's."""
    if not argv or argv[0] in ("-h", "--help", "help"):
        raise SystemExit(_help())
    if argv[0] != "buffer":
        raise SetupError(f"unknown command '{argv[0]}' (meridian-dask has two: buffer and near)", 2)
    if any(a in ("-h", "--help") for a in argv[1:]):
        raise SystemExit(_help())
    values: dict = {}
    passed: list[str] = []
    rest = argv[1:]
    i = 0
    while i < len(rest):
        a = rest[i]
        name, _, inline = a.partition("=")
        if a == "--":
            passed += rest[i:]
            break
        if name in VALUE_OPTIONS and (inline or a == name):
            if not inline:
                if i + 1 >= len(rest) or not rest[i + 1]:
                    raise SetupError(f"{name} needs a value", 2)
                inline = rest[i + 1]
                i += 1
            key = VALUE_OPTIONS[name]
            if key in REALS:
                try:
                    real = float(inline)
                except ValueError:
                    real = float("nan")
                if not (real > 0 and real != float("inf")):
                    raise SetupError(f"{name} expects a positive number, got '{inline}'", 2)
                values[key] = real
            elif key in NUMBERS:
                try:
                    number = int(inline)
                except ValueError:
                    raise SetupError(f"{name} expects a whole number, got '{inline}'", 2) from None
                if number < 1:
                    raise SetupError(f"{name} expects a positive whole number, got '{inline}'", 2)
                values[key] = number
            else:
                values[key] = inline
        elif a in FLAG_OPTIONS:
            values[FLAG_OPTIONS[a]] = True
        else:
            passed.append(a)
        i += 1
    if "workers" in values and "scheduler" in values:
        raise SetupError("give either --workers or --scheduler, not both", 2)
    if values.get("output") == "-":
        values["output"] = None
    return Options(arguments=passed, **values)


def _help() -> int:
    print(HELP, end="")
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command (`buffer`, or `near`: near.py): exit status 0 success, 1 failure, 2 usage error, the error on one
    line of standard error, after the command's name."""
    argv = sys.argv[1:] if argv is None else argv
    command = "near" if argv and argv[0] == "near" else "buffer"
    if command == "near" and (len(argv) == 1 or any(a in ("-h", "--help") for a in argv[1:])):
        print(near.HELP, end="")
        return 0
    try:
        if command == "near":
            # meridian-dask's own options are the same for both commands; the rest are meridian near's.
            return near.execute(parse(["buffer", *argv[1:]]))
        return execute(parse(argv))
    except (MeridianError, SetupError, WriteError) as e:
        message = e.message.replace("\n", "\\n")
        print(f"meridian-dask {command}: {message}", file=sys.stderr)
        return e.status
    except OSError as e:
        print(f"meridian-dask {command}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"meridian-dask {command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
