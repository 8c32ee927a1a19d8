"""Fixtures for the Python reference harness: the built `meridian` binary and the reference data in Tests/Fixtures.

Three groups need more than the build and the virtual environment, and are marked so that an inner loop can leave
them out (`pytest -m "not browser and not dask and not postgis"`; scripts/test.sh runs everything):
`browser` (headless Chromium through selenium: the tests that use the `browser` fixture, or are marked by hand),
`dask` (a Dask LocalCluster: the test_dask_*.py modules) and `postgis` (the PostGIS server of scripts/postgis.sh:
the tests that use a `postgis` fixture)."""
import fcntl
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "Tests" / "Fixtures"


GROUPS = {
    "browser": "drives headless Chromium (selenium; scripts/install-deps.sh --browser)",
    "dask": "starts a Dask LocalCluster (meridian-dask)",
    "postgis": "needs the PostGIS server of scripts/postgis.sh (MERIDIAN_PG)",
}


def pytest_configure(config):
    for name, meaning in GROUPS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")


def pytest_collection_modifyitems(items):
    """Marks each test with the groups it needs, from the fixtures it uses and its module (see the docstring)."""
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if "browser" in names:
            item.add_marker(pytest.mark.browser)
        if "postgis" in names:
            item.add_marker(pytest.mark.postgis)
        dask = "dask_scheduler" in names or item.path.name.startswith("test_dask_")
        if dask:
            item.add_marker(pytest.mark.dask)
        # With pytest-xdist (`-n 2 --dist loadgroup`, as scripts/test.sh runs it) a group runs in one worker: a
        # module's tests stay together (its module-scoped `meridian serve` and Chromium start once), and so do all
        # the Dask tests (one LocalCluster, not one per worker).
        item.add_marker(pytest.mark.xdist_group("dask" if dask else item.path.name))


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


DOCS = ROOT / ".build" / "docs"
DOCS_GRAPHS = ROOT / ".build" / "docs-work" / "graphs"


def _docs_are_current() -> bool:
    """Whether scripts/docs.sh's site and symbol graphs exist and are newer than every Swift source and catalog."""
    site, graphs = DOCS / "index.html", sorted(DOCS_GRAPHS.glob("*/*.symbols.json"))
    if not site.is_file() or not graphs:
        return False
    newest_source = max(p.stat().st_mtime for p in (ROOT / "Sources").rglob("*") if p.is_file())
    return min([site.stat().st_mtime] + [p.stat().st_mtime for p in graphs]) >= newest_source


@pytest.fixture(scope="session")
def docs_site(meridian) -> pathlib.Path:
    """The DocC site and symbol graphs scripts/docs.sh builds (.build/docs, .build/docs-work/graphs), built here
    when they are missing or older than Sources/ (scripts/test.sh builds them before this harness, so then nothing
    is built), so the tests that need them run on their own too; a failed build fails them with the script's
    message."""
    DOCS.parent.mkdir(exist_ok=True)
    with open(DOCS.parent / "docs-site.lock", "w") as lock:  # one build when several xdist workers need it
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _docs_are_current():
            run = subprocess.run([str(ROOT / "scripts" / "docs.sh"), "--meridian", meridian], cwd=ROOT,
                                 capture_output=True, text=True, timeout=1800)
            if run.returncode != 0 or not _docs_are_current():
                pytest.fail(f"scripts/docs.sh could not build the documentation (exit {run.returncode}): "
                            f"{run.stderr[-2000:]}")
    return DOCS


@pytest.fixture(scope="session")
def dask_scheduler():
    """The address of a LocalCluster of two single-threaded worker processes that the meridian-dask tests share
    (test_dask_faults.py starts its own, to kill its workers)."""
    from distributed import LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    yield cluster.scheduler_address
    cluster.close()
