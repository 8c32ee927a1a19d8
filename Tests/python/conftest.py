"""Shared fixtures for the Python reference harness: the built `meridian` binary and the shared reference data."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def meridian() -> str:
    """Path of the built `meridian` executable (scripts/test.sh exports MERIDIAN_BIN)."""
    path = os.environ.get("MERIDIAN_BIN") or subprocess.check_output(
        ["swift", "build", "--show-bin-path"], cwd=ROOT, text=True).strip() + "/meridian"
    assert pathlib.Path(path).exists(), f"build meridian first: {path} is missing"
    return path


@pytest.fixture(scope="session")
def shared() -> pathlib.Path:
    """The read-only shared/ folder beside the repository."""
    assert SHARED.exists(), f"{SHARED} is missing"
    return SHARED
