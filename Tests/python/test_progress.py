"""The progress line of long commands (issue 13): drawn on standard error only when it is a terminal (here a pty),
only after about a second, redrawn in place ("\\r" + erase line) with phase, count, rate and ETA, and erased at the
end; nothing with --quiet, nothing when standard error is a pipe, nothing for a short command."""
import json
import os
import re
import select
import subprocess
import time

import numpy as np
import pytest

FRAME = "\r\x1b[K"


def _run_on_pty(args, timeout=300):
    """Runs the command with standard error on a pseudo-terminal; returns (exit status, what it wrote there)."""
    master, slave = os.openpty()
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    out = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 1)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # the slave side closed
                break
            if not data:
                break
            out += data
        elif process.poll() is not None:
            break
    os.close(master)
    status = process.wait(timeout=30)
    return status, out.decode()


@pytest.fixture(scope="module")
def points(tmp_path_factory):
    """30,000 points in north Texas (buffering them one by one takes the debug build several seconds)."""
    folder = tmp_path_factory.mktemp("progress")
    rng = np.random.default_rng(4)
    lon, lat = rng.uniform(-100, -96, 30_000), rng.uniform(32.5, 34, 30_000)
    path = folder / "p.csv"
    path.write_text("lon,lat\n" + "".join(f"{x!r},{y!r}\n" for x, y in zip(lon.tolist(), lat.tolist())))
    return path


def test_long_command_shows_progress_and_erases_it(meridian, points, tmp_path):
    out = tmp_path / "b.geojsons"
    started = time.monotonic()
    status, text = _run_on_pty([meridian, "buffer", str(points), "--srs", "EPSG:32038", "--distance", "1km",
                                "-o", str(out)])
    elapsed = time.monotonic() - started
    assert status == 0, text
    assert out.stat().st_size > 0
    assert elapsed > 1.5, f"the command took {elapsed:.1f} s: too short to show progress; use more points"
    frames = [f for f in text.split(FRAME) if f]
    assert frames, f"no progress line in {text!r}"
    assert all(f.startswith("buffer: ") and "\n" not in f for f in frames), frames[:3]
    pattern = re.compile(r"^buffer: parsing [\d,]+ of [\d,]+ bytes · [\d,]+/s · ETA \d+ s$")
    assert any(pattern.match(f) for f in frames), frames[:5]
    assert text.endswith(FRAME), "the line is erased at the end"


def test_quiet_and_pipes_and_short_commands_show_nothing(meridian, points, tmp_path):
    args = [meridian, "buffer", str(points), "--srs", "EPSG:32038", "--distance", "1km", "-o"]
    status, text = _run_on_pty(args + [str(tmp_path / "q.geojsons"), "--quiet"])
    assert status == 0 and text == ""
    piped = subprocess.run(args + [str(tmp_path / "p.geojsons")], capture_output=True, text=True, timeout=300)
    assert piped.returncode == 0 and piped.stderr == ""
    (tmp_path / "few.csv").write_text("lon,lat\n-97,33\n-97.1,33.1\n")
    status, text = _run_on_pty([meridian, "buffer", str(tmp_path / "few.csv"), "--srs", "EPSG:32038",
                                "--distance", "1km", "-o", str(tmp_path / "few.wkt")])
    assert status == 0 and text == ""
    # An error after progress was shown: the line is erased before the message.
    (tmp_path / "bad.csv").write_text(points.read_text() + "-80.0,33.0\n")
    status, text = _run_on_pty(args[:2] + [str(tmp_path / "bad.csv")] + args[3:] + [str(tmp_path / "bad.wkt")])
    assert status == 1
    assert text.rstrip("\r\n").split(FRAME)[-1].startswith(
        f"meridian buffer: {tmp_path / 'bad.csv'}: feature 30000 (line 30002)"), text[-300:]


@pytest.fixture(scope="module")
def polygons(tmp_path_factory):
    """3,000 polygons of 301 vertices in north Texas as GeoJSON (32 MB; the debug build takes a few seconds to read
    and write them), and the same as KML."""
    folder = tmp_path_factory.mktemp("progress-kml")
    rng = np.random.default_rng(5)
    angles = np.linspace(0, 2 * np.pi, 301)
    features = []
    for cx, cy in zip(rng.uniform(-100, -96, 3000).tolist(), rng.uniform(32.5, 34, 3000).tolist()):
        ring = [[cx + 0.01 * np.cos(a), cy + 0.01 * np.sin(a)] for a in angles[:-1].tolist()]
        ring.append(ring[0])
        features.append('{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":%s}}'
                        % json.dumps([ring]))
    path = folder / "polygons.geojson"
    path.write_text('{"type":"FeatureCollection","features":[' + ",".join(features) + "]}\n")
    return path


@pytest.mark.parametrize("command", ["kml create", "kml convert", "project"])
def test_other_long_commands_show_progress_and_erase_it(meridian, polygons, tmp_path, command):
    """`kml create`, `kml convert` and `project` show the line too (phase names vary), erase it before their closing
    note, and write no line in a pipe."""
    if command == "kml create":
        args = [meridian, "kml", "create", str(polygons), "-o", str(tmp_path / "out.kmz")]
    elif command == "kml convert":
        args = [meridian, "kml", "convert", str(polygons), str(tmp_path / "out.kml")]
    else:
        args = [meridian, "project", str(polygons), "--to", "EPSG:32038", "-o", str(tmp_path / "out.wkt")]
    started = time.monotonic()
    status, text = _run_on_pty(args)
    elapsed = time.monotonic() - started
    assert status == 0, text
    assert elapsed > 1.5, f"{command} took {elapsed:.1f} s: too short to show progress; use more polygons"
    frames = [f for f in text.split(FRAME) if f]
    prefix = f"{command}: " if command != "project" else "project: "
    pattern = re.compile(r"^" + re.escape(prefix) + r"(reading|parsing|converting|projecting|writing)\b")
    shown = [f for f in frames if pattern.match(f)]
    assert shown, f"no progress line in {text[:300]!r}"
    # What follows the last erase is the closing note (or nothing): never a progress line left standing.
    assert not pattern.match(frames[-1].split("\n")[0]) or text.endswith(FRAME), frames[-1][:200]
    piped = subprocess.run(args + (["--overwrite"] if command.startswith("kml") else []), capture_output=True,
                           text=True, timeout=300)
    assert piped.returncode == 0 and FRAME not in piped.stderr and "\r" not in piped.stderr, piped.stderr
