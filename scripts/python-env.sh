#!/usr/bin/env bash
# Creates (or updates) the virtual environment .venv with the Python packages the test harnesses and benchmarks use
# as independent references (shapely, pyproj, geographiclib, selenium, pytest), Dask and pyarrow for meridian-dask,
# and meridian-dask itself (python/, installed editable, so the tests run the clone's own code).
# Usage: scripts/python-env.sh [requirements-file ...]   (default: Tests/python/requirements.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
files=("$@"); ((${#files[@]})) || files=(Tests/python/requirements.txt)
[[ -x .venv/bin/python ]] || python3 -m venv .venv
stamp=.venv/.installed-$(cat "${files[@]}" python/pyproject.toml | sha1sum | cut -c1-12)
if [[ ! -f $stamp ]]; then
    for f in "${files[@]}"; do .venv/bin/pip install -q --disable-pip-version-check -r "$f"; done
    # meridian-dask: its dependencies are pinned in the requirements above.
    .venv/bin/pip install -q --disable-pip-version-check --no-deps -e ./python
    touch "$stamp"
fi
