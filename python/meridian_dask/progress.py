"""The progress line, like `meridian buffer`'s (`ProgressLine` in Sources/MeridianCLI/Output/ProgressLine.swift):
`meridian-dask buffer: union 12 of 40 tasks · 250,000 features/s · ETA 5 s`, shown on a terminal only, after a
second, redrawn in place a few times a second and erased at the end."""
from __future__ import annotations

import sys
import threading
import time


def grouped(n: int) -> str:
    """1234567 -> "1,234,567"."""
    return f"{n:,}"


class Progress:
    """A progress line on standard error (or nothing: `enabled` false, or standard error not a terminal)."""

    def __init__(self, prefix: str, enabled: bool = True, stream=None, delay: float = 1.0, interval: float = 0.2):
        self.stream = stream or sys.stderr
        self.enabled = enabled and self.stream.isatty()
        self.prefix = prefix
        self.delay = delay
        self._lock = threading.Lock()
        self._start = time.monotonic()
        self._phase, self._done, self._total, self._features, self._phase_start = "", 0, None, 0, self._start
        self._shown = False
        self._stop = threading.Event()
        if self.enabled:
            self._thread = threading.Thread(target=self._run, args=(interval,), daemon=True)
            self._thread.start()

    def begin(self, phase: str, total: int | None = None) -> None:
        """Starts a phase of `total` tasks."""
        with self._lock:
            self._phase, self._done, self._total, self._features = phase, 0, total, 0
            self._phase_start = time.monotonic()

    def task_done(self, features: int = 0) -> None:
        """One more task of the phase is done, with the features it handled."""
        with self._lock:
            self._done += 1
            self._features += features

    def text(self, elapsed: float) -> str:
        """The line's text."""
        s = f"{self.prefix}: {self._phase}"
        if self._total is None:
            return s + f" · {round(elapsed)} s"
        s += f" {grouped(self._done)} of {grouped(self._total)} tasks"
        if elapsed > 0.05 and self._features > 0:
            s += f" · {grouped(round(self._features / elapsed))} features/s"
        if elapsed > 0.05 and 0 < self._done <= self._total:
            s += f" · ETA {int((self._total - self._done) * elapsed / self._done + 0.999)} s"
        return s

    def _run(self, interval: float) -> None:
        while not self._stop.wait(interval):
            with self._lock:
                now = time.monotonic()
                if now - self._start < self.delay:
                    continue
                self._shown = True
                self.stream.write("\r\x1b[K" + self.text(now - self._phase_start))
                self.stream.flush()

    def finish(self) -> None:
        """Stops and erases the line."""
        self._stop.set()
        with self._lock:
            if self._shown:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
                self._shown = False
