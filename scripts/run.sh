#!/usr/bin/env bash
# The main job: installs what is missing, builds Meridian (release), buffers the bundled seed points like the
# "Create buffers around points" sample (examples/output/), then starts the sample viewer on http://127.0.0.1:8080.
# Idempotent. Options are passed to `meridian serve` (e.g. --port 9000).
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
if "$bin" --help | grep -q '^  serve'; then
    exec "$bin" serve "$@"
fi
