"""The KML and KMZ writers stream: the text goes to the file (for a KMZ, to a temporary doc.kml that
libzip deflates from) a chunk at a time, so a command's peak memory does not grow with the text it writes; and a
write that fails part-way leaves no file and no temporary file behind.

Memory: `kml convert` of a KML whose placemark names are runs of '&', which the model holds as one byte each and
the writer escapes as `&amp;` (five bytes): the text written is five times what the model holds, so holding the
text (as the writer did before it streamed) shows plainly in the peak RSS. Measured on the debug build for a 30 MB
output: the peak grows by about 11 MB over a tiny document's (the model, 6 MB, and the reader's buffers) when
streaming, and by 40 MB (.kml) or 70 MB (.kmz) when the whole text was held. The bound, 60 % of the output's size,
sits between the two.
"""
import os
import pathlib
import resource
import signal
import subprocess

import pytest


def _make(path: pathlib.Path, placemarks: int, width: int):
    name = "&amp;" * width
    with path.open("w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<kml xmlns="http://www.opengis.net/kml/2.2"><Document>\n')
        for i in range(placemarks):
            f.write(f"<Placemark><name>{name}</name><Point><coordinates>{i * 1e-3!r},{i * 1e-4!r}"
                    "</coordinates></Point></Placemark>\n")
        f.write("</Document></kml>\n")


def _peak_rss(args):
    """Runs a command; returns its peak resident set size in bytes (Linux reports ru_maxrss in KiB)."""
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    err = process.stderr.read().decode()
    process.stderr.close()
    process.returncode = os.waitstatus_to_exitcode(status)
    assert process.returncode == 0, err
    return usage.ru_maxrss * 1024


@pytest.fixture(scope="module")
def documents(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kmlstream")
    _make(folder / "tiny.kml", 10, 100)
    _make(folder / "big.kml", 1000, 6000)
    return folder


@pytest.mark.parametrize("extension", ["kml", "kmz"])
def test_peak_memory_does_not_grow_with_the_text_written(meridian, documents, extension):
    base = _peak_rss([meridian, "kml", "convert", str(documents / "tiny.kml"),
                      str(documents / f"tiny-out.{extension}"), "--overwrite"])
    out = documents / f"big-out.{extension}"
    peak = _peak_rss([meridian, "kml", "convert", str(documents / "big.kml"), str(out), "--overwrite"])
    if extension == "kml":
        text = out.stat().st_size
    else:
        import zipfile
        with zipfile.ZipFile(out) as z:
            assert z.namelist() == ["doc.kml"]
            text = z.getinfo("doc.kml").file_size
    assert text > 29_000_000
    growth = peak - base
    assert growth < 0.6 * text, f"peak RSS grew by {growth / 1e6:.1f} MB writing {text / 1e6:.1f} MB of KML"
    assert sorted(p.name for p in documents.iterdir() if p.name.startswith(".")) == []  # no temporary file left


def _limited(limit_bytes):
    """Limits the size of any file the child writes (RLIMIT_FSIZE), with SIGXFSZ ignored so that the write fails
    with EFBIG instead of killing the process."""
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))
    return apply


@pytest.mark.parametrize("extension", ["kml", "kmz"])
def test_a_write_failing_part_way_leaves_nothing(meridian, documents, tmp_path, extension):
    """The file limit (2 MB) is crossed after the first chunks have gone to the temporary file (the text is 30 MB):
    a clear one-line error naming the target, no target, no temporary file (the KMZ's doc.kml included)."""
    target = tmp_path / f"out.{extension}"
    run = subprocess.run([meridian, "kml", "convert", str(documents / "big.kml"), str(target)],
                         capture_output=True, text=True, timeout=600, preexec_fn=_limited(2_000_000))
    assert run.returncode != 0
    message = run.stderr.strip()
    assert "\n" not in message and str(target) in message and "too large" in message.lower(), message
    assert list(tmp_path.iterdir()) == []
