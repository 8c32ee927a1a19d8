#!/usr/bin/env bash
# Runs every test: installs what is missing, builds (failing on any compiler warning), builds the documentation
# (scripts/docs.sh --analyze, failing on any docc warning), runs the Swift tests
# (unit, reference and CLI end-to-end), each fuzz target briefly (scripts/fuzz.sh), then the Python harness
# (peer-library comparisons, GDAL/XSD interop and headless-browser tests of the viewer), and last the README's main
# command on a fresh clone of this commit (scripts/first-run-check.sh: scripts/run.sh with nothing built, until the
# viewer and its documentation answer). Idempotent. A private PostgreSQL + PostGIS server (scripts/postgis.sh) runs for
# the tests and is stopped at the end, also when a step fails (trap); MERIDIAN_PG names it to the Swift and Python tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --browser
scripts/python-env.sh
trap 'scripts/postgis.sh stop' EXIT
eval "$(scripts/postgis.sh start)"
mkdir -p artifacts
swift build --build-tests 2>&1 | tee artifacts/build.log | grep -v '^\[' || true
if grep -E '(warning|error):' artifacts/build.log | grep -v '^warning: .*Invalid Resource' >/dev/null; then
    echo "The build has warnings or errors (see artifacts/build.log):" >&2
    grep -E '(warning|error):' artifacts/build.log >&2
    exit 1
fi
# The DocC documentation (scripts/docs.sh): every module's catalog and doc comments, with --analyze; any docc
# warning (a broken symbol link, an unknown topic) fails the run. About 10-15 s after the build above.
scripts/docs.sh --analyze > artifacts/docs.log 2>&1 || { cat artifacts/docs.log >&2; exit 1; }
tail -1 artifacts/docs.log
if ! swift test --skip-build > artifacts/swift-test.log 2>&1; then
    grep -E '✘|error:|failed' artifacts/swift-test.log | head -60 >&2
    echo "swift test failed (full log: artifacts/swift-test.log)" >&2
    exit 1
fi
grep -E 'Test run with|Executed [0-9]+ tests' artifacts/swift-test.log | tail -2
# Every fuzz target for 15 s under AddressSanitizer (10 targets: 150 s), so that a reader regression shows here.
# A fixed seed: the same binary explores the same way on every run, so a failure here can be replayed (long runs,
# docs/fuzzing.md, use new seeds).
FUZZ_SEED=1 scripts/fuzz.sh all 15
MERIDIAN_BIN="$(swift build --show-bin-path)/meridian" .venv/bin/python -m pytest -q Tests/python
# The README's main command, as a newcomer runs it: a fresh clone, nothing built (a release build from nothing).
scripts/first-run-check.sh
