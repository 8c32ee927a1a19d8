"""Streaming means streaming (buffer, measure, kml create, op and project): the commands that read a batch of features at a time hold
the input's bytes and one batch, so their peak memory grows with the input's size in bytes and not with what every
feature would cost as a parsed feature (about a kilobyte each, ten times its GeoJSON text here). On af45baa
`buffer` of a GeoJSON FeatureCollection took 516 MB for 1 M features and `kml create` of a 3 M-point CSV 3.0 GB.

Each command runs on a small input and on a large one (120,000 features, 15 MB of GeoJSON or 3.4 MB of CSV); the
large run's peak RSS (from wait4, the child's own) may exceed the small run's by at most twice the large input's
size plus 48 MB (one batch, its output buffers and allocator slack), far below the ~120 MB that holding every
parsed feature takes. Memory, not time, is measured: the bound holds on any machine."""
import os
import subprocess

import pytest

N = 120_000
SLACK = 48 << 20


def _geojson(path, n):
    with path.open("w") as f:
        f.write('{"type":"FeatureCollection","features":[\n')
        for i in range(n):
            x, y = -100 + (i % 1000) * 0.004, 30 + (i // 1000) * 0.004 % 8
            f.write(('' if i == 0 else ',\n') + '{"type":"Feature","properties":{"name":"p%d","v":%d},'
                    '"geometry":{"type":"Point","coordinates":[%.6f,%.6f]}}' % (i, i, x, y))
        f.write("\n]}\n")


def _csv(path, n):
    with path.open("w") as f:
        f.write("lon,lat,name\n")
        for i in range(n):
            f.write("%.6f,%.6f,p%d\n" % (-100 + (i % 1000) * 0.004, 30 + (i // 1000) * 0.004 % 8, i))


def _peak_rss(args, cwd):
    """(exit status, stderr, peak RSS in bytes) of one run."""
    with open(cwd / "stderr.txt", "w") as err:
        process = subprocess.Popen(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
    return os.waitstatus_to_exitcode(status), (cwd / "stderr.txt").read_text(), usage.ru_maxrss * 1024


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("streaming")
    for kind, write in (("geojson", _geojson), ("csv", _csv)):
        write(folder / f"small.{kind}", 100)
        write(folder / f"large.{kind}", N)
    return folder


COMMANDS = {
    "buffer": ["buffer", "{input}", "--srs", "EPSG:5070", "--distance", "10m", "--segments", "1", "-o", "out.wkt"],
    "measure": ["measure", "{input}", "--geodesic"],
    "kml create": ["kml", "create", "{input}", "-o", "out.kmz"],
    "op convex-hull --merge": ["op", "convex-hull", "--merge", "{input}", "-o", "out.wkt"],
    "op convex-hull": ["op", "convex-hull", "{input}", "-o", "out.geojson"],
    "project": ["project", "{input}", "--to", "EPSG:3857", "-o", "out.{kind-out}"],
}


@pytest.mark.parametrize("kind", ["geojson", "csv"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_memory_grows_with_the_bytes_not_the_features(meridian, inputs, tmp_path, command, kind):
    peaks = {}
    for size in ("small", "large"):
        for name in ("out.wkt", "out.kmz", "out.geojson", "out.csv"):
            (tmp_path / name).unlink(missing_ok=True)
        args = [meridian] + [a.replace("{input}", str(inputs / f"{size}.{kind}"))
                             .replace("{kind-out}", "csv" if kind == "csv" else "wkt") for a in COMMANDS[command]]
        status, err, peaks[size] = _peak_rss(args, tmp_path)
        assert status == 0, err[-500:]
    size = (inputs / f"large.{kind}").stat().st_size
    grown = peaks["large"] - peaks["small"]
    assert grown <= 2 * size + SLACK, (
        f"{command} on {N:,} features ({size / 1e6:.1f} MB of {kind}): peak RSS grew by {grown / 1e6:.1f} MB "
        f"(small {peaks['small'] / 1e6:.1f} MB, large {peaks['large'] / 1e6:.1f} MB), more than twice the input "
        f"plus {SLACK >> 20} MB")
