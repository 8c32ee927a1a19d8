#!/usr/bin/env bash
# Fuzzes Meridian's readers of outside data with libFuzzer under AddressSanitizer (issue 15).
# Usage: scripts/fuzz.sh [TARGET|all] [SECONDS]      (default: all, 10 s each)
#        scripts/fuzz.sh --build-only                (only the build; then FUZZ_SKIP_BUILD=1 runs without it)
#   TARGET: kml kmz geojson csv wkt feature-input viewer-json ogr geodesic-cli kmz-pack xml-attributes srs
#   (fuzz/Sources/meridian-fuzz/FuzzTargets.swift)
# Builds in its own scratch path (.build/fuzz) so the normal build is not invalidated. The seed corpus comes from the
# repository: Tests/Fixtures (KML, KMZ, GeoJSON, CSV files) and fuzz/seeds/TARGET; the growing corpus lives in
# .build/fuzz/corpus/TARGET (not committed). A crash, leak or timeout (an input taking more than FUZZ_TIMEOUT) fails the
# run, leaves the input in .build/fuzz/artifacts/ and must become a regression test (Tests/Fuzz... see docs/fuzzing.md).
# Environment: FUZZ_NICE (nice level, default 0),
# FUZZ_CONFIG (debug, the default, quick to build; release: optimised, 2-3x the executions per second, for long
#   runs; both keep Swift's bounds and overflow checks, and release keeps assert() with -assert-config Debug),
# FUZZ_RUNS (stop after this many executions, or at SECONDS, whichever comes first),
# FUZZ_TIMEOUT (seconds of wall-clock time one input may take, default 10; libFuzzer measures wall time, so a run at
#   nice 19 on a loaded machine may need more, see docs/fuzzing.md),
# FUZZ_DETECT_LEAKS (1 default: libFuzzer checks for leaks after any input that allocates more than it frees;
#   0: only LeakSanitizer's check at exit, which still fails the run on an unsuppressed leak, see docs/fuzzing.md),
# FUZZ_SKIP_BUILD (set: use the fuzz binary already built, e.g. for several targets run in parallel),
# FUZZ_JOBS (how many targets run at once, default 1: each libFuzzer process is one thread, so 2 on 2 idle cores halve
#   the wall time of `all` and give each target the same time on a core; the logs are printed in the targets' order),
# FUZZ_SEED (libFuzzer's -seed: the same seed and binary mutate the same way, so a failure of a short run can be
#   replayed; scripts/test.sh fixes it, long runs leave it unset for a new random seed each time).
# A failing run prints its input in base64 (inputs are at most 64 KiB), so a CI log is enough to reproduce it.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(kml kmz geojson csv wkt feature-input viewer-json ogr geodesic-cli kmz-pack xml-attributes srs)
build_only=""
[[ ${1:-} == --build-only ]] && { build_only=1; shift; }
which=${1:-all}
seconds=${2:-10}
jobs=${FUZZ_JOBS:-1}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "FUZZ_JOBS must be a positive whole number, not '$jobs'" >&2; exit 2; }
if [[ $which != all ]]; then
    [[ " ${targets[*]} " == *" $which "* ]] || { echo "unknown target '$which' (one of: ${targets[*]})" >&2; exit 2; }
    targets=("$which")
fi
scratch=.build/fuzz
config=${FUZZ_CONFIG:-debug}
case $config in
    debug) build=$scratch; extra=() ;;
    release) build=.build/fuzz-release; extra=(-Xswiftc -assert-config -Xswiftc Debug) ;;
    *) echo "FUZZ_CONFIG must be debug or release, not '$config'" >&2; exit 2 ;;
esac
binary="$build/$config/meridian-fuzz"
if [[ -z ${FUZZ_SKIP_BUILD:-} ]]; then
    mkdir -p "$scratch"
    if ! nice -n "${FUZZ_NICE:-0}" swift build -c "$config" --scratch-path "$build" --product meridian-fuzz \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DFUZZING "${extra[@]}" \
        > "$scratch/build-$config.log" 2>&1; then
        grep -v 'Cannot export local symbol' "$scratch/build-$config.log" | grep -E 'error:' | head -20 >&2
        echo "the fuzz build failed (log: $scratch/build-$config.log)" >&2
        exit 1
    fi
    grep -E 'warning: .*(fuzz|Meridian)' "$scratch/build-$config.log" || true
fi
[[ -x $binary ]] || { echo "the fuzz build failed" >&2; exit 1; }
[[ -z $build_only ]] || exit 0

# Seed files: small ones only (libFuzzer's -max_len is 64 KiB here).
seeds() {
    case $1 in
        kml) find Tests/Fixtures/kml -name '*.kml' -size -64k ;;
        kmz) find Tests/Fixtures/kml -name '*.kmz' -size -64k ;;
        geojson) find Tests/Fixtures -name '*.geojson' -size -64k ;;
        csv) find Tests/Fixtures -name '*.csv' -size -64k ;;
        *) true ;;
    esac
    [[ -d fuzz/seeds/$1 ]] && find "fuzz/seeds/$1" -type f
    return 0
}

# The longest input: 64 KiB, but 4 KiB for the geodesic buffers (each vertex costs geodesic problems: the target is
# the builder's paths and bounds, not large inputs, which the work bound refuses anyway).
max_len() { [[ $1 == geodesic-cli ]] && echo 4096 || echo 65536; }

mkdir -p "$scratch/artifacts" "$scratch/logs"
# One target's run; its exit status is the target's verdict.
fuzz_target() {
    local t=$1 corpus="$scratch/corpus/$1" log status=0
    mkdir -p "$corpus"
    seeds "$t" | while read -r f; do cp -n "$f" "$corpus/seed-$(sha1sum "$f" | cut -c1-16)" 2>/dev/null || true; done
    # One log per run (runs of one target may overlap; a shared log would be truncated under a running one).
    log="$scratch/logs/$t-$config-$(date -u +%Y%m%dT%H%M%SZ)-$BASHPID.log"
    echo "fuzz $t: ${seconds}s, corpus $(ls "$corpus" | wc -l) inputs, log $log"
    # SWIFT_BACKTRACE=enable=no: a Swift trap goes straight to libFuzzer's deadly-signal handler (which saves the input);
    # Swift's own backtracer would read the stack from another thread, which ASan reports as a bogus underflow.
    if ! MERIDIAN_FUZZ_TARGET=$t SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 LSAN_OPTIONS=suppressions=$PWD/fuzz/lsan.supp \
        nice -n "${FUZZ_NICE:-0}" "$binary" "$corpus" -max_total_time="$seconds" -runs="${FUZZ_RUNS:--1}" -max_len="$(max_len "$t")" -timeout="${FUZZ_TIMEOUT:-10}" \
        ${FUZZ_SEED:+-seed="$FUZZ_SEED"} -detect_leaks="${FUZZ_DETECT_LEAKS:-1}" -rss_limit_mb=4096 -artifact_prefix="$scratch/artifacts/$t-" -print_final_stats=1 \
        > "$log" 2>&1 || grep -q 'ERROR: LeakSanitizer' "$log"; then
        # The exit status covers a crash, a timeout and a leak report (libFuzzer's per input, or LeakSanitizer's at
        # exit, which ends the process with its own exit code); the grep catches a leak report whatever the status.
        echo "fuzz $t FAILED (log: $log):" >&2
        grep -E 'ERROR|SUMMARY|Test unit written|==[0-9]+==' "$log" | head -20 >&2
        artifact=$(sed -n "s/.*Test unit written to \([^ ]*\).*/\1/p" "$log" | tail -1)
        if [[ -n $artifact && -f $artifact ]]; then
            echo "the input ($(wc -c < "$artifact") bytes, base64; decode with base64 -d and replay:" \
                "MERIDIAN_FUZZ_TARGET=$t $binary FILE):" >&2
            head -c 65536 "$artifact" | base64 -w 0 >&2
            echo >&2
        fi
        status=1
    fi
    grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$log" | sed "s/^/  $t /" || true
    return $status
}

status=0
if ((jobs == 1)); then
    for t in "${targets[@]}"; do fuzz_target "$t" || status=1; done
    exit $status
fi
# FUZZ_JOBS targets at a time: target i starts when target i - FUZZ_JOBS has ended; each one's output is held in a
# file and printed when it ends, in the targets' order.
mkdir -p "$scratch/out"
pids=()
for i in "${!targets[@]}"; do
    if ((i >= jobs)); then
        k=$((i - jobs))
        wait "${pids[k]}" || status=1
        cat "$scratch/out/${targets[k]}.$$"; rm -f "$scratch/out/${targets[k]}.$$"
    fi
    fuzz_target "${targets[i]}" > "$scratch/out/${targets[i]}.$$" 2>&1 &
    pids[i]=$!
done
for ((k = ${#targets[@]} - jobs < 0 ? 0 : ${#targets[@]} - jobs; k < ${#targets[@]}; k++)); do
    wait "${pids[k]}" || status=1
    cat "$scratch/out/${targets[k]}.$$"; rm -f "$scratch/out/${targets[k]}.$$"
done
exit $status
