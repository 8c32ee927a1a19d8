#!/usr/bin/env bash
# Runs every test: installs what is missing, builds (failing on any compiler warning), builds the documentation
# (scripts/docs.sh --analyze, failing on any docc warning), runs the Swift tests
# (unit, reference and CLI end-to-end), each fuzz target briefly (scripts/fuzz.sh), then the Python harness
# (peer-library comparisons, GDAL/XSD interop and headless-browser tests of the viewer), and the README's main
# command on a fresh clone of this commit (scripts/first-run-check.sh: scripts/run.sh with nothing built, until the
# viewer and its documentation answer). Idempotent. A private PostgreSQL + PostGIS server (scripts/postgis.sh) runs for
# the tests and is stopped at the end, also when a step fails (trap); MERIDIAN_PG names it to the Swift and Python tests.
#
# Two lanes, so that the work that leaves a core idle overlaps the rest (2 cores are the target; each step's wall
# and CPU times are printed as it ends, and as a table at the end, also when a step fails):
#   main:        install-deps (build packages), PostGIS, debug build, docs --analyze, swift test, pytest
#   side lanes:  setup   (install-deps --browser, python-env), while the debug build runs;
#                checks  (the first-run check's release build from nothing, then the fuzz build under ASan and
#                         every fuzz target 15 s), from the start, beside the debug build: the release build is
#                         mostly one compiler process at a time (whole-module optimisation), and pytest waits for it
#                         (in a run that started it after the debug build, main waited 142 s with one core idle).
# pytest runs in two worker processes (pytest-xdist, `-n 2 --dist loadgroup`: each test module in one worker, all
# the Dask tests in one, Tests/python/conftest.py), so that its waits (Dask, Chromium, timeouts) overlap the other
# worker's work and both cores stay busy once the checks lane has ended.
# pytest runs the release binary the first-run check built from a clone of this commit (the `meridian` a user runs,
# built once; the debug build when the tree has uncommitted changes), so main waits for it after swift test.
# A failing lane stops the run with its log (artifacts/lane-NAME.log). TEST_SERIAL=1 runs the lanes one after the
# other instead (the same steps, for a machine with one core or to time each step alone).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p artifacts
root=$PWD

# Step timing ---------------------------------------------------------------------------------------------------------
# Each step appends "lane step wall_s cpu_s load status" to artifacts/timings/LANE.tsv. A step runs in a subshell, so
# that its CPU time (user+sys of its finished processes: the subshell's waited-for children, fields 16 and 17 of
# /proc/PID/stat) is its own and not that of a lane which ended meanwhile.
rm -rf artifacts/timings
mkdir -p artifacts/timings
lane=main
ticks=$(getconf CLK_TCK)
child_cpu() {  # the CPU ticks of this shell's waited-for children
    local stat
    read -r stat < "/proc/$BASHPID/stat"
    local -a f=(${stat##*) })  # the fields after the command name: field 3 on
    echo $((f[13] + f[14]))    # cutime, cstime
}
step_name="" step_wall=0 step_load=""
step_begin() {
    step_name=$1 step_wall=$EPOCHREALTIME step_load=$(cut -d' ' -f1 /proc/loadavg)
    rm -f "artifacts/timings/$lane.cpu"
    echo "== [$lane] $step_name (load $step_load)"
}
step_end() {  # step_end STATUS: records the step begun last
    [[ -n $step_name ]] || return 0
    local wall cpu=-
    wall=$(awk -v a="$step_wall" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
    [[ -f artifacts/timings/$lane.cpu ]] \
        && cpu=$(awk -v t="$(<"artifacts/timings/$lane.cpu")" -v hz="$ticks" 'BEGIN { printf "%.0f", t / hz }')
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$lane" "$step_name" "$wall" "$cpu" "$step_load" "$1" \
        >> "artifacts/timings/$lane.tsv"
    echo "== [$lane] $step_name: $1 after $wall s wall, $cpu s CPU"
    step_name=""
}
step() {  # step NAME COMMAND...: one timed step; a failure ends this shell (set -e), and its EXIT trap records it
    step_begin "$1"
    shift
    ( trap 'child_cpu > "artifacts/timings/$lane.cpu"' EXIT; "$@" )
    step_end ok
}
run_started=$EPOCHREALTIME
summary() {
    local total
    total=$(awk -v a="$run_started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
    echo "== step times (wall and CPU seconds, CPU = user+sys; load = 1-minute load average at the step's start)"
    cat artifacts/timings/*.tsv 2>/dev/null \
        | awk -F'\t' '{ printf "  %-7s %-20s %5s s wall %5s s CPU   load %-5s  %s\n", $1, $2, $3, $4, $5, $6 }'
    echo "== scripts/test.sh: $1 after $total s wall (load now $(cut -d' ' -f1-3 /proc/loadavg))"
}

# Lanes ---------------------------------------------------------------------------------------------------------------
declare -A lane_pid=()
lane_start() {  # lane_start NAME FUNCTION: runs FUNCTION in the background, timed as lane NAME, its output in a log
    local name=$1 fn=$2
    if [[ -n ${TEST_SERIAL:-} ]]; then lane_body "$name" "$fn"; return; fi
    lane_body "$name" "$fn" > "artifacts/lane-$name.log" 2>&1 &
    lane_pid[$name]=$!
    echo "== [$name] started in the background (log: artifacts/lane-$name.log)"
}
lane_body() {
    ( lane=$1; step_name=""
      trap 'status=$?; ((status)) && step_end "FAILED (exit $status)"; exit $status' EXIT
      "$2" )
}
lane_wait() {  # lane_wait NAME: waits for the lane and prints its log; a failed lane ends the run
    local name=$1 status=0
    [[ -n ${lane_pid[$name]:-} ]] || return 0
    step_begin "wait for $name"
    wait "${lane_pid[$name]}" || status=$?
    unset "lane_pid[$name]"
    sed "s/^/[$name] /" "artifacts/lane-$name.log"
    if ((status)); then
        echo "the $name lane failed (exit $status; its log above, and in artifacts/lane-$name.log)" >&2
        return "$status"
    fi
    step_end ok
}
descendants() {  # the process ids under PID, children first
    local child
    for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do descendants "$child"; echo "$child"; done
}
finish() {
    local status=$? name pids
    ((status)) && step_end "FAILED (exit $status)"
    for name in "${!lane_pid[@]}"; do  # a lane still running when the run fails: stopped, the end of its log shown
        pids=$(descendants "${lane_pid[$name]}")
        kill -TERM "${lane_pid[$name]}" $pids 2>/dev/null || true
        wait "${lane_pid[$name]}" 2>/dev/null || true
        echo "[$name] stopped; the end of its log (artifacts/lane-$name.log):"
        tail -20 "artifacts/lane-$name.log" | sed "s/^/[$name] /"
    done
    scripts/postgis.sh stop || true
    if ((status)); then summary "FAILED (exit $status)"; else summary "passed"; fi
    exit "$status"
}
trap finish EXIT
trap 'exit 143' TERM INT

# The steps -----------------------------------------------------------------------------------------------------------
build() {
    swift build --build-tests 2>&1 | tee artifacts/build.log | grep -v '^\[' || true
    if grep -E '(warning|error):' artifacts/build.log | grep -v '^warning: .*Invalid Resource' >/dev/null; then
        echo "The build has warnings or errors (see artifacts/build.log):" >&2
        grep -E '(warning|error):' artifacts/build.log >&2
        return 1
    fi
}
# The DocC documentation (scripts/docs.sh): every module's catalog and doc comments, with --analyze; any docc
# warning (a broken symbol link, an unknown topic) fails the run. About 15-20 s after the build above.
docs() {
    scripts/docs.sh --analyze > artifacts/docs.log 2>&1 || { cat artifacts/docs.log >&2; return 1; }
    tail -1 artifacts/docs.log
}
swift_tests() {
    if ! swift test --skip-build > artifacts/swift-test.log 2>&1; then
        grep -E '✘|error:|failed' artifacts/swift-test.log | head -60 >&2
        echo "swift test failed (full log: artifacts/swift-test.log)" >&2
        return 1
    fi
    grep -E 'Test run with|Executed [0-9]+ tests' artifacts/swift-test.log | tail -2
}
postgis_start() { scripts/postgis.sh start > artifacts/postgis.env; }
# The Python harness runs the `meridian` a user runs: the release binary that the first-run check built from a clone
# of this commit (FIRST_RUN_KEEP), so that it is built once and the harness's large inputs take release time, not
# debug time. With uncommitted changes that binary is not what the tree holds, and the debug build is run instead.
release_kept=$root/.build/first-run-release
rm -rf "$release_kept"
tree_is_committed() { [[ -z $(git status --porcelain --untracked-files=no 2>/dev/null) ]]; }
wait_for_release() {  # until the checks lane has kept the release binary of HEAD (or has failed)
    local head
    head=$(git rev-parse HEAD)
    until [[ -f $release_kept/commit && $(<"$release_kept/commit") == "$head" ]]; do
        if [[ -n ${lane_pid[checks]:-} ]] && ! kill -0 "${lane_pid[checks]}" 2>/dev/null; then
            tail -30 artifacts/lane-checks.log >&2
            echo "the checks lane ended without keeping the release binary (log above: artifacts/lane-checks.log)" >&2
            return 1
        fi
        [[ -n ${lane_pid[checks]:-} ]] || { echo "the checks lane did not keep a release binary" >&2; return 1; }
        sleep 2
    done
}
python_tests() {
    local bin
    if tree_is_committed; then bin=$release_kept/meridian
    else bin="$(swift build --show-bin-path)/meridian"; echo "uncommitted changes: the harness runs the debug build"; fi
    MERIDIAN_BIN="$bin" .venv/bin/python -m pytest -q -n 2 --dist loadgroup Tests/python
}
setup_lane() {
    step browser-deps scripts/install-deps.sh --browser
    step python-env scripts/python-env.sh
}
# Every fuzz target for 15 s under AddressSanitizer, so that a reader regression shows here: one at a time beside the
# main lane, two at a time (each libFuzzer process is one thread) when the lanes run one after the other. A fixed seed: the same binary explores the same way on every run, so a failure here
# can be replayed (long runs, docs/fuzzing.md, use new seeds). Then the README's main command, as a newcomer runs it:
# a fresh clone, nothing built (a release build from nothing), until the viewer and its documentation answer.
checks_lane() {
    step first-run-check env FIRST_RUN_KEEP="$release_kept" scripts/first-run-check.sh
    step fuzz-build scripts/fuzz.sh --build-only
    step fuzz-runs env FUZZ_SKIP_BUILD=1 FUZZ_SEED=1 FUZZ_JOBS="${TEST_SERIAL:+2}" scripts/fuzz.sh all 15
}

# The run -------------------------------------------------------------------------------------------------------------
step install-deps scripts/install-deps.sh
step postgis-start postgis_start
eval "$(<artifacts/postgis.env)"
lane_start setup setup_lane
lane_start checks checks_lane
step build build
step docs docs
step swift-test swift_tests
lane_wait setup
if tree_is_committed; then step "wait for the release binary" wait_for_release; fi
step pytest python_tests
lane_wait checks
