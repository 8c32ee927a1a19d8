"""The `meridian` binary at the edges of its standard streams: a full or closed standard output
ends the command with exit 1 and one line on stderr (never a crash), a pipe whose reader went away ends it quietly,
a standard error that cannot be written is ignored, and a `-o` file is never left partial.

These need a real process with real file descriptors (/dev/full, a closed fd 1), so they run the built binary.
"""
import os
import signal
import subprocess

import pytest

POINTS = "lon,lat,name\n-97.0,32.5,a\n-96.5,32.7,b\n"


def _run(meridian, args, **kwargs):
    kwargs.setdefault("timeout", 60)
    return subprocess.run([meridian, *args], **kwargs)


COMMANDS_THAT_PRINT = [
    ["srs", "EPSG:32038"],
    ["--help"],
    ["buffer", "--help"],
    ["--version"],
    ["measure", "-", "--geodesic", "--json"],
    ["buffer", "-", "--srs", "EPSG:32038", "--distance", "1mi"],
    ["project", "-", "--to", "EPSG:32038"],
]


@pytest.mark.parametrize("args", COMMANDS_THAT_PRINT, ids=lambda a: " ".join(a))
def test_full_stdout_is_exit_1_with_one_line(meridian, args):
    with open("/dev/full", "wb") as full:
        r = _run(meridian, args, input=POINTS.encode(), stdout=full, stderr=subprocess.PIPE)
    err = r.stderr.decode()
    assert r.returncode == 1, (r.returncode, err)
    assert err.endswith("cannot write standard output: No space left on device\n"), err
    assert "Fatal error" not in err and "backtrace" not in err.lower(), err


@pytest.mark.parametrize("args", COMMANDS_THAT_PRINT, ids=lambda a: " ".join(a))
def test_closed_stdout_is_exit_1_with_one_line(meridian, args):
    r = _run(meridian, args, input=POINTS.encode(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
             preexec_fn=lambda: os.close(1))
    err = r.stderr.decode()
    assert r.returncode == 1, (r.returncode, err)
    assert err.endswith("cannot write standard output: Bad file descriptor\n"), err
    # The failure is said once, on the last line (project's operation report comes before it).
    assert [line for line in err.splitlines() if line.startswith("meridian")] == [err.splitlines()[-1]], err


def test_closed_stdin_is_an_error_not_a_crash(meridian):
    r = _run(meridian, ["measure", "-"], stdin=subprocess.DEVNULL, capture_output=True,
             preexec_fn=lambda: os.close(0))
    assert r.returncode == 1, r
    assert r.stderr.decode() == "meridian measure: cannot read stdin: Bad file descriptor\n"


def test_a_reader_that_went_away_ends_quietly(meridian):
    # 200,000 CSV rows projected: far more than a pipe buffer holds, so the writes meet the closed pipe.
    rows = "lon,lat\n" + "".join(f"{-97 + i * 1e-6},{32.5}\n" for i in range(200_000))
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        r = _run(meridian, ["project", "-", "--to", "EPSG:32038"], input=rows.encode(), stdout=write_end,
                 stderr=subprocess.PIPE)
    finally:
        os.close(write_end)
    # Quietly: either the default SIGPIPE action or exit 1, and nothing on stderr about it.
    assert r.returncode in (1, -signal.SIGPIPE), r.returncode
    assert b"cannot write" not in r.stderr and b"Fatal" not in r.stderr, r.stderr


@pytest.mark.parametrize("redirect", ["full", "closed"])
def test_a_failing_stderr_is_ignored(meridian, redirect, tmp_path):
    # A failing command (missing input) and a succeeding one: the exit status is unchanged, no crash.
    if redirect == "full":
        stderr = open("/dev/full", "wb")
        pre = None
    else:
        stderr = subprocess.DEVNULL
        pre = lambda: os.close(2)  # noqa: E731
    try:
        bad = _run(meridian, ["buffer", str(tmp_path / "nope.csv"), "--srs", "EPSG:32038", "--distance", "1mi"],
                   stdout=subprocess.PIPE, stderr=stderr, preexec_fn=pre)
        good = _run(meridian, ["project", "-", "--to", "EPSG:32038"], input=POINTS.encode(),
                    stdout=subprocess.PIPE, stderr=stderr, preexec_fn=pre)
    finally:
        if redirect == "full":
            stderr.close()
    assert bad.returncode == 1
    assert good.returncode == 0
    assert good.stdout.decode().splitlines()[0] == "x,y,name"


def test_output_file_is_complete_or_absent(meridian, tmp_path):
    # The result goes to -o (atomically); stdout is full: exit 1 and the file, if any, is the complete result.
    out = tmp_path / "out.geojson"
    with open("/dev/full", "wb") as full:
        r = _run(meridian, ["--help"], stdout=full, stderr=subprocess.PIPE)
    assert r.returncode == 1
    # The output's name says its format (a name that says none is a usage error), so /dev/full is reached through
    # a link named like a GeoJSON file.
    full_geojson = tmp_path / "full.geojson"
    full_geojson.symlink_to("/dev/full")
    r = _run(meridian, ["buffer", "-", "--srs", "EPSG:32038", "--distance", "1mi", "-o", str(full_geojson)],
             input=POINTS.encode(), capture_output=True)
    assert r.returncode == 1, r.stderr
    assert r.stderr.decode() == f"meridian buffer: cannot write {full_geojson}: No space left on device\n", r.stderr
    full_geojson.unlink()
    r = _run(meridian, ["buffer", "-", "--srs", "EPSG:32038", "--distance", "1mi", "-o", str(out)],
             input=POINTS.encode(), capture_output=True)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes().endswith(b"}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.geojson"]
