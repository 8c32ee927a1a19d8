#!/usr/bin/env bash
# The main job: installs what is missing, builds Meridian (release), buffers the bundled seed points like the
# "Create buffers around points" sample (examples/output/), builds the DocC documentation (scripts/docs.sh, into
# .build/docs), then starts the sample viewer on http://127.0.0.1:8080 with the documentation at /docs/.
# Idempotent. Options are passed to `meridian serve` (e.g. --port 9000). Each step that fails stops the script with
# a line saying which step, and the log to read.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The release build also writes each module's symbol graph for the documentation (scripts/docs.sh --symbol-graphs),
# so that the documentation needs no second (debug) build.
graphs=.build/symbolgraph-release
symbol_graph_flags=(-Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs"
                    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public -Xswiftc -emit-extension-block-symbols)
mkdir -p "$graphs"
echo "Building Meridian (release; a few minutes the first time; log: .build/run-build.log)"
# --static-swift-stdlib: the Swift runtime and Foundation linked into the executable, so that no start looks up
# their ~15 libraries' symbols (`meridian near` on two one-point GeoPackages 65 -> 56 ms; BENCHMARKS.md [c41]).
# Every release build of the project (bench/run, scripts/kml-bench.sh) passes it too: one build configuration.
if ! swift build -c release --static-swift-stdlib --product meridian "${symbol_graph_flags[@]}" \
        > .build/run-build.log 2>&1; then
    grep -E 'error' .build/run-build.log | head -20 >&2
    echo "run.sh: the release build failed (full log: .build/run-build.log)" >&2
    exit 1
fi
bin="$(swift build -c release --static-swift-stdlib --show-bin-path)/meridian"
mkdir -p examples/output
"$bin" --version
"$bin" srs EPSG:32038
for out in buffers.geojson buffers.svg; do
    "$bin" buffer examples/seed-points.csv --srs EPSG:32038 --distance-field radius_mi --unit mi -o "examples/output/$out"
done
"$bin" buffer examples/seed-points.csv --srs EPSG:32038 --distance-field radius_mi --unit mi --union \
    -o examples/output/buffers-union.svg
echo "Wrote examples/output/buffers.geojson, buffers.svg and buffers-union.svg"
# The documentation (docc from the toolchain), from the symbol graphs of the release build above.
mkdir -p artifacts
if ! scripts/docs.sh --symbol-graphs "$graphs" --meridian "$bin" > artifacts/docs.log 2>&1; then
    tail -5 artifacts/docs.log >&2
    echo "run.sh: building the documentation failed (full log: artifacts/docs.log)" >&2
    exit 1
fi
tail -1 artifacts/docs.log
echo "Starting the viewer, with the documentation at /docs/"
exec "$bin" serve --docs .build/docs "$@"
