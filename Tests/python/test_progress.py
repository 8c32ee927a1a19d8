"""The progress line of long commands: drawn on standard error only when it is a terminal (here a pty),
only after its delay (about a second; MERIDIAN_PROGRESS_DELAY sets it), redrawn in place ("\\r" + erase line) with
phase, count, rate and ETA, and erased at the end; nothing with --quiet, nothing when standard error is a pipe,
nothing before the delay.

No assertion depends on how fast the machine runs a command: the tests that need the line set the delay
to 0, where every phase is drawn as it begins, and the test that needs no line sets it to an hour. The text of a
frame with rate and ETA is checked against fixed numbers in ProgressLineTests.swift."""
import json
import os
import re
import select
import subprocess
import time

import numpy as np
import pytest

FRAME = "\r\x1b[K"


NOW = {**os.environ, "MERIDIAN_PROGRESS_DELAY": "0"}
NEVER = {**os.environ, "MERIDIAN_PROGRESS_DELAY": "3600"}


def _frame_pattern(prefix):
    """Any frame of the line: `PREFIX: PHASE COUNT[ of TOTAL] UNIT[ · RATE/s[ · ETA N s]]` or `PREFIX: PHASE · N s`."""
    return re.compile(r"^" + re.escape(prefix) + r": [a-z][a-z ]*?( · \d+ s| [\d,]+( of [\d,]+)? [a-z]+"
                      r"( · [\d,]+/s( · ETA \d+ s)?)?)$")


def _run_on_pty(args, timeout=300, env=None):
    """Runs the command with standard error on a pseudo-terminal; returns (exit status, what it wrote there)."""
    master, slave = os.openpty()
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=slave, stdin=subprocess.DEVNULL, env=env)
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
    status, text = _run_on_pty([meridian, "buffer", str(points), "--srs", "EPSG:32038", "--distance", "1km",
                                "-o", str(out)], env=NOW)
    assert status == 0, text
    assert out.stat().st_size > 0
    frames = [f for f in text.split(FRAME) if f]
    assert frames, f"no progress line in {text!r}"
    assert all(_frame_pattern("buffer").match(f) for f in frames), frames[:5]
    # Each phase is drawn as it begins: parsing counts the input's bytes, of its size.
    size = f"{points.stat().st_size:,}"
    assert any(f.startswith("buffer: parsing ") and f" of {size} bytes" in f for f in frames), frames[:5]
    assert text.endswith(FRAME), "the line is erased at the end"


def test_quiet_and_pipes_and_short_commands_show_nothing(meridian, points, tmp_path):
    args = [meridian, "buffer", str(points), "--srs", "EPSG:32038", "--distance", "1km", "-o"]
    status, text = _run_on_pty(args + [str(tmp_path / "q.geojsons"), "--quiet"])
    assert status == 0 and text == ""
    piped = subprocess.run(args + [str(tmp_path / "p.geojsons")], capture_output=True, text=True, timeout=300)
    assert piped.returncode == 0 and piped.stderr == ""
    # Nothing before the delay: an hour, which no command here reaches on any machine.
    status, text = _run_on_pty(args + [str(tmp_path / "n.geojsons")], env=NEVER)
    assert status == 0 and text == ""
    # An error after progress was shown: the line is erased before the message.
    (tmp_path / "bad.csv").write_text(points.read_text() + "-80.0,33.0\n")
    status, text = _run_on_pty(args[:2] + [str(tmp_path / "bad.csv")] + args[3:] + [str(tmp_path / "bad.wkt")],
                               env=NOW)
    assert FRAME in text, text[:300]
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
    status, text = _run_on_pty(args, env=NOW)
    assert status == 0, text
    frames = [f for f in text.split(FRAME) if f]
    pattern = re.compile(r"^" + re.escape(f"{command}: ") + r"(reading|parsing|converting|projecting|writing)\b")
    shown = [f for f in frames if pattern.match(f)]
    assert shown, f"no progress line in {text[:300]!r}"
    assert all(_frame_pattern(command).match(f) for f in shown), shown[:5]
    # What follows the last erase is the closing note (or nothing): never a progress line left standing.
    assert not pattern.match(frames[-1].split("\n")[0]) or text.endswith(FRAME), frames[-1][:200]
    piped = subprocess.run(args + (["--overwrite"] if command.startswith("kml") else []), capture_output=True,
                           text=True, timeout=300)
    assert piped.returncode == 0 and FRAME not in piped.stderr and "\r" not in piped.stderr, piped.stderr
