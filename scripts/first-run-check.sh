#!/usr/bin/env bash
# The README's main command on a fresh clone, as a newcomer runs it: clones the repository's current commit into an
# empty temporary folder, runs scripts/run.sh there (nothing built before it) with the viewer on a free port, waits
# until the viewer's first page and the documentation's landing page both answer 200, then stops it and removes the
# clone. scripts/test.sh runs it, so CI proves the first run works.
#
#   scripts/first-run-check.sh [TIMEOUT_SECONDS]   (default 1500: a release build from nothing on 2 cores)
#
# FIRST_RUN_KEEP=DIR keeps what the check built: the clone's release `meridian` and the viewer's resource bundle beside
# it are copied into DIR (replaced) once the viewer has answered, with DIR/commit naming the commit they were built
# from. scripts/test.sh runs the Python harness on that binary: the one a user runs, built once.
set -euo pipefail
cd "$(dirname "$0")/.."
timeout_s="${1:-1500}"
repo="$PWD"
work="$(mktemp -d)"
log="$work/run.log"
pid=""
cleanup() {
    if [ -n "$pid" ]; then kill -- -"$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT  # stopped from outside (scripts/test.sh stops its lanes when a step fails): clean up too
git clone -q "$repo" "$work/meridian"
# Uncommitted changes are not part of the check: it runs what a clone of this commit runs.
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
( cd "$work/meridian" && exec setsid scripts/run.sh --port "$port" ) >"$log" 2>&1 &
pid=$!
started=$SECONDS
answers() { [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$1")" = 200 ]; }
until answers / && answers /docs/documentation/meridian/; do
    if ! kill -0 "$pid" 2>/dev/null; then
        tail -20 "$log" >&2
        echo "first-run-check: scripts/run.sh ended before the viewer answered (log above)" >&2
        exit 1
    fi
    if (( SECONDS - started > timeout_s )); then
        tail -20 "$log" >&2
        echo "first-run-check: the viewer did not answer within ${timeout_s} s (log above)" >&2
        exit 1
    fi
    sleep 2
done
echo "first-run-check: scripts/run.sh on a fresh clone serves / and /docs/documentation/meridian/ after $((SECONDS - started)) s"
if [ -n "${FIRST_RUN_KEEP:-}" ]; then
    release="$work/meridian/.build/release"
    if [ -d "$FIRST_RUN_KEEP" ] && [ -n "$(ls -A "$FIRST_RUN_KEEP")" ] && [ ! -f "$FIRST_RUN_KEEP/commit" ]; then
        echo "first-run-check: FIRST_RUN_KEEP=$FIRST_RUN_KEEP is a folder this script did not make; not replaced" >&2
        exit 1
    fi
    rm -rf "$FIRST_RUN_KEEP"
    mkdir -p "$FIRST_RUN_KEEP"
    cp "$release/meridian" "$FIRST_RUN_KEEP/"
    cp -R "$release/Meridian_MeridianViewer.resources" "$FIRST_RUN_KEEP/"
    git -C "$work/meridian" rev-parse HEAD > "$FIRST_RUN_KEEP/commit"
    echo "first-run-check: kept the release meridian of $(cut -c1-12 "$FIRST_RUN_KEEP/commit") in $FIRST_RUN_KEEP"
fi
