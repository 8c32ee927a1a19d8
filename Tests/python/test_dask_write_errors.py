"""meridian-dask when its output cannot be written (a full disk, a file-size limit): one line naming the output file
(as `meridian buffer` says it), exit status 1, nothing left behind, and no worker traceback. A worker that cannot put
its part in the spool beside the output reports the reason instead of raising (Dask printed the task's traceback);
the client names the output. File-size limits (RLIMIT_FSIZE, SIGXFSZ ignored) stand in for a full disk: the write
fails the same way (EFBIG instead of ENOSPC)."""
import contextlib
import os
import resource
import signal
import subprocess
import sys
import tempfile

import numpy as np
import pytest


@contextlib.contextmanager
def file_size_limit(limit_bytes):
    """Limits the size of files this process writes; a write past it fails with EFBIG."""
    old_limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, old_limit[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old_limit)
        signal.signal(signal.SIGXFSZ, old_handler)


def test_a_part_the_spool_cannot_take_is_reported_not_raised(tmp_path):
    from meridian_dask import tasks
    from meridian_dask.output import Output, WriteError
    from meridian_dask.results import Delivery

    part = tmp_path / "part.geojsons"
    part.write_bytes(b"x" * 100_000)
    with tempfile.TemporaryDirectory(dir="/dev/shm") as spool:
        # Another file system than the part's: the part is copied into the spool, as from a worker's temporary folder.
        assert os.stat(spool).st_dev != os.stat(tmp_path).st_dev
        with file_size_limit(10_000):
            piece = tasks.deliver(str(part), spool, "chunk-1.geojsons")
        assert piece == Delivery(failed="File too large")
        assert os.listdir(spool) == []  # the partial copy is removed
    output = Output(str(tmp_path / "out.geojson"))
    with pytest.raises(WriteError) as raised:
        output.write_piece(piece)
    assert raised.value.message == f"cannot write {tmp_path / 'out.geojson'}: File too large"


def test_an_output_that_cannot_be_written_is_one_line_naming_it(meridian, dask_scheduler, tmp_path):
    rng = np.random.default_rng(39)
    x, y = rng.uniform(0, 50_000, 600), rng.uniform(1e6, 1.05e6, 600)
    (tmp_path / "p.csv").write_text("x,y\n" + "".join(f"{a!r},{b!r}\n" for a, b in zip(x.tolist(), y.tolist())))
    out = tmp_path / "out.geojson"

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (40_000, resource.RLIM_INFINITY))

    # The limit is the client's (the shared cluster's workers have none): each chunk's buffers (about 60 points,
    # 15 kB) fit; the whole output (about 150 kB) does not.
    result = subprocess.run(
        [sys.executable, "-m", "meridian_dask", "buffer", str(tmp_path / "p.csv"), "--srs", "EPSG:5070",
         "--distance", "100m", "--segments", "1", "--chunk-bytes", "3000", "--scheduler", dask_scheduler, "--quiet",
         "--meridian", meridian, "-o", str(out)],
        capture_output=True, text=True, timeout=300, preexec_fn=limited)
    assert (result.returncode, result.stderr) == (1, f"meridian-dask buffer: cannot write {out}: File too large\n")
    assert sorted(os.listdir(tmp_path)) == ["p.csv"]
