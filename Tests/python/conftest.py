"""Fixtures for the Python reference harness: the built `meridian` binary and the reference data in Tests/Fixtures."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "Tests" / "Fixtures"


@pytest.fixture(scope="session")
def meridian() -> str:
    """Path of the built `meridian` executable (scripts/test.sh exports MERIDIAN_BIN)."""
    path = os.environ.get("MERIDIAN_BIN") or subprocess.check_output(
        ["swift", "build", "--show-bin-path"], cwd=ROOT, text=True).strip() + "/meridian"
    assert pathlib.Path(path).exists(), f"build meridian first: {path} is missing"
    return path


@pytest.fixture(scope="session")
def fixtures() -> pathlib.Path:
    """The reference data carried in the repository (Tests/Fixtures; provenance in its README)."""
    assert FIXTURES.exists(), f"{FIXTURES} is missing"
    return FIXTURES


@pytest.fixture(scope="module")
def viewer(meridian):
    """A `meridian serve` on a free port for one test module; it must stop cleanly (exit 0, nothing on stderr
    but what the viewer itself logs)."""
    from viewer_support import Viewer

    v = Viewer(meridian)
    yield v
    status, err = v.stop()
    assert status == 0, err


@pytest.fixture(scope="session")
def dask_scheduler():
    """The address of a LocalCluster of two single-threaded worker processes that the meridian-dask tests share
    (test_dask_faults.py starts its own, to kill its workers)."""
    from distributed import LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    yield cluster.scheduler_address
    cluster.close()
