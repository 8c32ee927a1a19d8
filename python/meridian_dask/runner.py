"""Finding the `meridian` executable and running its internal jobs (`meridian internal JOB.json`).

Every step of meridian-dask that reads input, checks it, computes buffers or unions, or formats output is a
`meridian internal` job (Sources/MeridianCLI/Commands/Internal/InternalCommand.swift): the parsing, checks, messages and
geometry are meridian's own, so the answers and the errors are those of `meridian buffer`.
"""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass

#: How `--meridian` is looked for when not given (shown in the error when nothing is found).
BUILD_HINT = ("build it in the clone with `swift build -c release` (then .build/release/meridian), put `meridian` "
              "on PATH, or give --meridian PATH")


class MeridianError(Exception):
    """A job of `meridian internal` failed: its message (as `meridian buffer` words it), exit status and phase
    ("options", "read" or "check": what the whole input would have met first; see `InternalCommand`)."""

    def __init__(self, message: str, status: int = 1, phase: str = "check", features: int | None = None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.phase = phase
        self.features = features


class SetupError(Exception):
    """meridian-dask cannot run: no executable, an unreadable input, a bad option of its own (exit status 2 or 1)."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.message = message
        self.status = status


def find_meridian(explicit: str | None) -> str:
    """The `meridian` executable: `--meridian PATH`, else `meridian` on PATH, else the clone's release build."""
    if explicit:
        path = pathlib.Path(explicit)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise SetupError(f"--meridian {explicit}: not an executable file", 2)
        return str(path.resolve())
    on_path = shutil.which("meridian")
    if on_path:
        return on_path
    here = pathlib.Path(__file__).resolve()
    for root in [here.parents[2], pathlib.Path.cwd()]:
        candidate = root / ".build" / "release" / "meridian"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    raise SetupError(f"cannot find the meridian executable: {BUILD_HINT}")


def worker_meridian(path: str) -> str:
    """The executable on a worker: the client's path when it exists there too, else `meridian` on the worker's
    PATH (workers of a real cluster have their own installation)."""
    if os.access(path, os.X_OK):
        return path
    return shutil.which("meridian") or path


@dataclass
class JobRun:
    """What a job printed, and what its process cost."""
    result: dict
    seconds: float
    peak_rss: int  # bytes


def run_job(meridian: str, job: dict, workdir: str | None = None) -> JobRun:
    """Runs one `meridian internal` job and returns its result; raises `MeridianError` when it fails.

    The job's process is waited for with wait4, so its own peak RSS is measured (the figure the benchmarks report
    for the largest task)."""
    meridian = worker_meridian(meridian)
    with tempfile.TemporaryDirectory(prefix="meridian-job-", dir=workdir) as tmp:
        job_path = os.path.join(tmp, "job.json")
        with open(job_path, "w") as f:
            json.dump(job, f, allow_nan=False)
        out_path, err_path = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
        start = time.monotonic()
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            try:
                process = subprocess.Popen([meridian, "internal", job_path], stdout=out, stderr=err,
                                           stdin=subprocess.DEVNULL)
            except OSError as e:
                raise SetupError(f"cannot run {meridian}: {e.strerror}; {BUILD_HINT}") from None
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - start
        stdout = pathlib.Path(out_path).read_text(errors="replace").strip().splitlines()
        stderr = pathlib.Path(err_path).read_text(errors="replace").strip()
    report = None
    if stdout:
        try:
            report = json.loads(stdout[-1])
        except json.JSONDecodeError:
            report = None
    if process.returncode != 0:
        if isinstance(report, dict) and "error" in report:
            raise MeridianError(report["error"], int(report.get("status", 1)), report.get("phase", "check"),
                                report.get("features"))
        detail = stderr.splitlines()[-1] if stderr else f"exit status {process.returncode}"
        raise MeridianError(f"internal error in a meridian job: {detail}", 1, "check")
    if not isinstance(report, dict):
        raise MeridianError("internal error: a meridian job printed no result", 1, "check")
    return JobRun(report, seconds, usage.ru_maxrss * 1024)
