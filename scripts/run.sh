#!/usr/bin/env bash
# The main job: installs what is missing, builds Meridian (release), buffers the bundled seed points like the
# "Create buffers around points" sample (examples/output/), builds the DocC documentation (scripts/docs.sh, into
# .build/docs), then starts the sample viewer on http://127.0.0.1:8080 with the documentation at /docs/.
# Idempotent. Options are passed to `meridian serve` (e.g. --port 9000). Each step that fails stops the script with
# a line saying which step, and the log to read.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product meridian 2>&1 | grep -Ev '^\[[0-9]+/[0-9]+\]' || true
bin="$(swift build -c release --show-bin-path)/meridian"
mkdir -p examples/output
"$bin" --version
"$bin" srs EPSG:32038
for out in buffers.geojson buffers.svg; do
    "$bin" buffer examples/seed-points.csv --srs EPSG:32038 --distance-field radius_mi --unit mi -o "examples/output/$out"
done
"$bin" buffer examples/seed-points.csv --srs EPSG:32038 --distance-field radius_mi --unit mi --union \
    -o examples/output/buffers-union.svg
echo "Wrote examples/output/buffers.geojson, buffers.svg and buffers-union.svg"
# The documentation (docc from the toolchain; dump-symbol-graph builds the modules in debug the first time).
mkdir -p artifacts
if ! scripts/docs.sh > artifacts/docs.log 2>&1; then
    tail -5 artifacts/docs.log >&2
    echo "run.sh: building the documentation failed (full log: artifacts/docs.log)" >&2
    exit 1
fi
tail -1 artifacts/docs.log
echo "Starting the viewer, with the documentation at /docs/"
exec "$bin" serve --docs .build/docs "$@"
