"""Starts and stops `meridian serve --port 0` for the viewer tests, and small HTTP helpers (loopback only)."""
import fcntl
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
    """Adds a measured figure to artifacts/viewer-measurements.json (for the closing report). The harness runs in
    several worker processes (pytest-xdist), so the read-modify-write holds an exclusive lock on a lock file."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / "viewer-measurements.json"
    with open(ARTIFACTS / "viewer-measurements.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = json.loads(path.read_text()) if path.exists() else {}
        data[name] = value
        path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


# The proximity reference of the buffers page's premises layer (/api/near), independent of Meridian: planar distances
# by shapely in EPSG:32038's US survey feet, geodesic ones by GeographicLib on NAD27's ellipsoid (Clarke 1866).
US_FT = 1200 / 3937
MILE = 1609.344


def near_reference(points, radii, premises, geodesic):
    """(point, premise, miles, rank) for every premise within its point's radius in miles, ordered as `meridian
    near` orders them: by point, then distance, then premise; ranks from 1 within a point."""
    from geographiclib.geodesic import Geodesic
    from pyproj import Transformer
    from shapely.geometry import Point

    clarke_1866 = Geodesic(6378206.4, 1 / 294.978698213898)
    to_nad27 = Transformer.from_crs("EPSG:32038", "EPSG:4267", always_xy=True)
    rows = []
    for i, t in enumerate(points):
        found = []
        for j, p in enumerate(premises):
            if geodesic:
                (lon1, lat1), (lon2, lat2) = to_nad27.transform(t["x"], t["y"]), to_nad27.transform(p["x"], p["y"])
                miles = clarke_1866.Inverse(lat1, lon1, lat2, lon2)["s12"] / MILE
            else:
                miles = Point(t["x"], t["y"]).distance(Point(p["x"], p["y"])) * US_FT / MILE
            if miles <= radii[i]:
                found.append((miles, j))
        rows += [(i, j, miles, rank) for rank, (miles, j) in enumerate(sorted(found), start=1)]
    return rows
