"""The CLI reports the versions of Meridian and of the C libraries it links, as the system reports them."""
import subprocess

from shapely import geos_version_string  # noqa: F401  (ensures the reference stack imports)


def test_version_names_geos_and_proj(meridian):
    out = subprocess.run([meridian, "--version"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    geos = subprocess.run(["pkg-config", "--modversion", "geos"], capture_output=True, text=True).stdout.strip()
    proj = subprocess.run(["pkg-config", "--modversion", "proj"], capture_output=True, text=True).stdout.strip()
    assert f"GEOS {geos}" in out.stdout
    assert f"PROJ {proj}" in out.stdout
    assert out.stdout.startswith("meridian ")
