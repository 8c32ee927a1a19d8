"""Starts and stops `meridian serve --port 0` for the viewer tests, and small HTTP helpers (loopback only)."""
import json
import pathlib
import re
import select
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"


class Viewer:
    """A running `meridian serve` process on a free loopback port."""

    def __init__(self, meridian: str, *options: str):
        self.process = subprocess.Popen([meridian, "serve", "--port", "0", *options], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        line = self._read_line(timeout=20)
        match = re.search(r"(http://127\.0\.0\.1:(\d+)/)", line)
        if not match:
            self.process.kill()
            raise AssertionError(f"meridian serve printed {line!r}; stderr: {self.process.stderr.read()}")
        self.url = match.group(1)
        self.port = int(match.group(2))

    def _read_line(self, timeout: float) -> str:
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            self.process.kill()
            raise AssertionError("meridian serve printed no URL in time")
        return self.process.stdout.readline()

    def stop(self, sig=signal.SIGTERM, timeout: float = 10) -> tuple[int, str]:
        """Sends a signal and returns (exit status, stderr)."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"meridian serve did not stop within {timeout} s of {sig!r}")
        return self.process.returncode, self.process.stderr.read()

    # HTTP helpers ---------------------------------------------------------------------------------------------

    def request(self, method: str, path: str, body: bytes | None = None, content_type="application/json",
                timeout: float = 60) -> tuple[int, dict, bytes]:
        """Returns (status, headers, body) without raising on 4xx/5xx."""
        req = urllib.request.Request(self.url.rstrip("/") + path, data=body, method=method)
        if body is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read()

    def post_json(self, path: str, value, timeout: float = 60) -> tuple[int, dict]:
        status, _, body = self.request("POST", path, json.dumps(value).encode(), timeout=timeout)
        return status, json.loads(body)

    def get_json(self, path: str) -> tuple[int, dict]:
        status, _, body = self.request("GET", path)
        return status, json.loads(body)

    def raw(self, data: bytes, timeout: float = 10) -> bytes:
        """Sends raw bytes on a fresh connection and returns everything the server answers."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as s:
            try:
                s.sendall(data)
            except (BrokenPipeError, ConnectionResetError):
                pass
            chunks = []
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                try:
                    chunk = s.recv(65536)
                except (ConnectionResetError, socket.timeout):
                    break
                if not chunk:
                    break
                chunks.append(chunk)
            return b"".join(chunks)


def record(name: str, value) -> None:
    """Adds a measured figure to artifacts/viewer-measurements.json (for the closing report)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / "viewer-measurements.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data[name] = value
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
