"""meridian-dask under faults and on a terminal: a worker process killed while it unions a cell (Dask
runs its tasks again elsewhere) gives the same bytes as an undisturbed run; the progress line (tasks done of all,
features per second) is drawn on a terminal only and erased at the end, and --verbose names the Dask dashboard."""
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from dask_support import run_dask
from test_progress import FRAME, _run_on_pty


@pytest.fixture(scope="module")
def points(tmp_path_factory):
    """4,000 overlapping points in Texas (EPSG:5070): one cell's union takes the debug build about a second."""
    folder = tmp_path_factory.mktemp("faults")
    rng = np.random.default_rng(12)
    x, y = rng.uniform(0, 30_000, 4_000), rng.uniform(1e6, 1.03e6, 4_000)
    path = folder / "p.csv"
    path.write_text("x,y\n" + "".join(f"{a!r},{b!r}\n" for a, b in zip(x.tolist(), y.tolist())))
    return path


def test_a_worker_killed_mid_run_changes_nothing(meridian, dask_scheduler, points, tmp_path):
    from distributed import Client, LocalCluster

    args = [points, "--srs", "EPSG:5070", "--distance", "300", "--union", "--tile-points", "1000"]
    run_dask(meridian, args + ["-o", tmp_path / "calm.geojson"], scheduler=dask_scheduler)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        killed = []

        def kill_a_worker_in_a_cell():
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and not killed:
                for worker, keys in client.processing().items():
                    if any(str(k).startswith("tile-") for k in keys):
                        pid = client.run(os.getpid, workers=[worker])[worker]
                        os.kill(pid, signal.SIGKILL)
                        killed.append(worker)
                        return
                time.sleep(0.05)

        killer = threading.Thread(target=kill_a_worker_in_a_cell)
        killer.start()
        result = run_dask(meridian, args + ["-o", tmp_path / "stormy.geojson"], scheduler=cluster.scheduler_address,
                          subprocess_run=True, check=False)
        killer.join()
    assert killed, "no cell's task was seen running"
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "stormy.geojson").read_bytes() == (tmp_path / "calm.geojson").read_bytes()


def test_progress_line_on_a_terminal_and_the_dashboard_with_verbose(meridian, dask_scheduler, points, tmp_path):
    out = tmp_path / "u.wkt"
    status, text = _run_on_pty([sys.executable, "-m", "meridian_dask", "buffer", str(points), "--srs", "EPSG:5070",
                                "--distance", "300", "--union", "-o", str(out), "--meridian", meridian,
                                "--scheduler", dask_scheduler, "--verbose", "--tile-points", "1000"])
    assert status == 0, text
    assert out.stat().st_size > 0
    frames = [f for f in text.split(FRAME) if f.startswith("meridian-dask buffer: ")]
    assert any(" tasks" in f and " of " in f for f in frames), text
    assert any("features/s" in f for f in frames), text
    assert text.rstrip("\n").endswith(FRAME) or FRAME in text.splitlines()[-1]
    assert "Dask dashboard: http://" in text
    # Not on a terminal: no progress line.
    quiet = subprocess.run([sys.executable, "-m", "meridian_dask", "buffer", str(points), "--srs", "EPSG:5070",
                            "--distance", "300", "--union", "-o", str(out), "--meridian", meridian,
                            "--scheduler", dask_scheduler], capture_output=True, text=True, timeout=600)
    assert quiet.returncode == 0 and FRAME not in quiet.stderr
