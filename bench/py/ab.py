"""Before/after: the same cases timed on two builds of Meridian, alternated on the same machine in one run, so that
a change's effect is not confused with the machine's ("no case slower"; the host and its load differ
between days by more than most changes do).

    ab.py OLD_DIR NEW_DIR [--rounds N] [--reps N] [CASE ...]
    ab.py --threads A B DIR [--rounds N] [--reps N] [CASE ...]

OLD_DIR and NEW_DIR are release build folders (`.build/release` of two checkouts) holding `meridian` and
`meridian-bench`. Each round runs every case once on each build (old first in odd rounds, new first in even ones);
each run is one process repeating the timed work REPS times (in-process cases) or one command line (CLI cases),
and its median counts. Inputs are bench/run's (bench/out/inputs; run bench/run once first). Prints one line per
case: the median over rounds of each build's figure, new / old, and how many rounds the new build was faster.
Both builds run with their default threads, as users run them.

With `--threads A B` the two sides are one build (DIR) run with `--threads A` ("old") and `--threads B` ("new"):
the scaling, 2 threads against 1, alternated so that the host's changes of speed (this VM's single-thread
times move by up to 2x within minutes) fall on both sides alike. The last column then also gives the median of the
rounds' own ratios, each taken between two runs seconds apart.

Two things outside Meridian are kept out of every run: a CLI case's output file from the round before is removed
(untimed, then `sync`) so that each command writes a new file, as a user's first run does (on ext4, renaming a
2 GB file over an existing one costs 1.5-2 s of kernel time in `rename` alone: the old file's blocks freed and the
new one's allocated, strace -T); and a run during which the hypervisor took more than `--max-steal` percent
(default 5) of the machine's CPU time (/proc/stat's "steal") is run again, up to 3 times, because a stolen core is
not a free one and it slows a two-thread run more than a one-thread one, which moves to the other core. The last
column gives each side's median steal and how many runs were repeated.

Cases: P1a P1b P1d P1e (buffer + union in process), P2 (geodesic circles), P3-32038 P3-3857 (project 1M points),
P4w P4r (KML write / read), P4big (stream a 1 GiB KML, one repetition; the file is
made on first use in bench/out/kml and kept), P5-10k-wkt P5-10k-geojson P5-100k-wkt P5-100k-geojson (the CLI, CSV → union → file),
G1cli (the CLI, a geodesic buffer of the zigzag line), G4 (geodesic buffers of Texas's counties, union),
and for the scaling runs P1c, P5-1M-wkt P5-1M-geojson (one command line of 1M points each) and P3cli.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = os.path.join(HERE, "..", "out", "inputs")
KML = os.path.join(HERE, "..", "out", "kml")
R_P1 = {"P1a": "5280", "P1b": "1692.6", "P1c": "535.2", "P1d": "26400", "P1e": "1"}
# Cases for `--threads` only: a before/after run without named cases leaves them out (P5 at 1M takes minutes a round).
SCALING_ONLY = ("P1c", "P5-1M-wkt", "P5-1M-geojson", "P3cli")


def large_kml():
    """bench/run's 1 GiB KML (peer.kml's placemarks repeated), made once and kept for the rounds."""
    path = os.path.join(KML, "large.kml")
    if not os.path.exists(path):
        subprocess.run([sys.executable, os.path.join(HERE, "make_large_kml.py"), os.path.join(KML, "peer.kml"), path],
                       check=True)
    return path


def bench_case(args):
    """A meridian-bench case: the median of its own repetitions."""
    return lambda build, reps, scratch: ("bench", [os.path.join(build, "meridian-bench"), *args(reps, scratch)])


def cli_case(args):
    """A whole command line: its wall time."""
    return lambda build, reps, scratch: ("cli", [os.path.join(build, "meridian"), *args(scratch)])


def p5(n, fmt):
    return cli_case(lambda s: ["buffer", f"{INPUTS}/P5-{n}.csv", "--srs", "EPSG:5070", "--distance", "1692.6us-ft",
                               "--union", "--quiet", "-o", f"{s}/p5.{fmt}"])


CASES = {
    **{c: bench_case(lambda reps, s, c=c: ["p1", f"{INPUTS}/{c}.xy", R_P1[c], str(reps), "--time-only"]) for c in R_P1},
    "P2": bench_case(lambda reps, s: ["p2", f"{INPUTS}/P2.xy", str(reps)]),
    "P3-32038": bench_case(lambda reps, s: ["p3", f"{INPUTS}/P3.xy", "32038", str(reps)]),
    "P3-3857": bench_case(lambda reps, s: ["p3", f"{INPUTS}/P3.xy", "3857", str(reps)]),
    "P4w": bench_case(lambda reps, s: ["p4", "write", INPUTS, s, str(reps)]),
    "P4r": bench_case(lambda reps, s: ["p4", "read", os.path.join(KML, "peer.kml"), str(reps)]),
    "P4big": bench_case(lambda reps, s: ["p4", "read-stream", large_kml(), "1"]),
    "P5-10k-wkt": p5(10000, "wkt"), "P5-10k-geojson": p5(10000, "geojson"),
    "P5-100k-wkt": p5(100000, "wkt"), "P5-100k-geojson": p5(100000, "geojson"),
    "P5-1M-wkt": p5(1000000, "wkt"), "P5-1M-geojson": p5(1000000, "geojson"),
    "P3cli": cli_case(lambda s: ["project", f"{INPUTS}/P3.csv", "--to", "EPSG:32038", "--quiet", "-o", f"{s}/p3.csv"]),
    "G1cli": cli_case(lambda s: ["buffer", f"{INPUTS}/G1.geojson", "--geodesic", "--distance", "100km",
                                 "--quiet", "-o", f"{s}/g1.geojson"]),
    "G4": bench_case(lambda reps, s: ["geo", "polygons", f"{INPUTS}/G4.json", "10000", str(reps), "-", "--union"]),
}


def cpu_ticks():
    """The machine's (total, steal) CPU ticks since boot, from /proc/stat's first line."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal (guest time is already counted in user).
    return sum(fields[:8]), fields[7]


def once(case, build, reps, scratch, threads=None):
    """One run: (its figure in seconds, the percentage of the machine's CPU time the hypervisor stole meanwhile)."""
    kind, command = CASES[case](build, reps, scratch)
    if threads is not None:
        command += ["--threads", str(threads)]
    if "-o" in command:  # a new file each run, not one renamed over the last run's (untimed)
        output = command[command.index("-o") + 1]
        if os.path.exists(output):
            os.remove(output)
        os.sync()
    total0, steal0 = cpu_ticks()
    t0 = time.perf_counter()
    p = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    total1, steal1 = cpu_ticks()
    stolen = 100.0 * (steal1 - steal0) / max(1, total1 - total0)
    if p.returncode != 0:
        sys.exit(f"{' '.join(command)}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
    if kind == "cli":
        return wall, stolen
    line = [x for x in p.stdout.splitlines() if x.startswith("{")][-1]
    return statistics.median(json.loads(line)["times"]), stolen


def measured(case, build, reps, scratch, threads, max_steal):
    """`once`, repeated (up to 3 more times) while the hypervisor stole more than `max_steal` percent: (figure,
    steal, repeats)."""
    for repeat in range(4):
        figure, stolen = once(case, build, reps, scratch, threads)
        if stolen <= max_steal:
            break
    return figure, stolen, repeat


def main(argv):
    if argv[:1] == ["--threads"]:
        # One build, two thread counts: ("old", DIR, A) against ("new", DIR, B).
        a, b, build = int(argv[1]), int(argv[2]), argv[3]
        sides = {"old": (build, a), "new": (build, b)}
        labels = (f"--threads {a}", f"--threads {b}")
        rest = argv[4:]
    else:
        sides = {"old": (argv[0], None), "new": (argv[1], None)}
        labels = ("old", "new")
        rest = argv[2:]
    options = {"--rounds": 5, "--reps": 3, "--max-steal": 5.0}
    for flag in options:
        if flag in rest:
            i = rest.index(flag)
            options[flag] = float(rest[i + 1]) if flag == "--max-steal" else int(rest[i + 1])
            del rest[i:i + 2]
    rounds, reps, max_steal = options["--rounds"], options["--reps"], options["--max-steal"]
    cases = rest or [c for c in CASES if c not in SCALING_ONLY]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        sys.exit(f"unknown case(s) {unknown}; known: {' '.join(CASES)}")
    print(f"| Case | {labels[0]} (median of {rounds} rounds) | {labels[1]} | {labels[1]} / {labels[0]} | "
          f"rounds {labels[1]} faster | median of the rounds' ratios [min–max] | load before → after | "
          f"median steal % {labels[0]} / {labels[1]} (runs repeated, > {max_steal:g} %) |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        for case in cases:
            load0 = os.getloadavg()[0]
            times = {"old": [], "new": []}
            steal = {"old": [], "new": []}
            repeats = 0
            for r in range(rounds):
                order = ["old", "new"] if r % 2 == 0 else ["new", "old"]
                for name in order:
                    build, threads = sides[name]
                    figure, stolen, repeated = measured(case, build, reps, scratch, threads, max_steal)
                    times[name].append(figure)
                    steal[name].append(stolen)
                    repeats += repeated
            o, n = statistics.median(times["old"]), statistics.median(times["new"])
            faster = sum(a < b for a, b in zip(times["new"], times["old"]))
            ratios = [b / a for a, b in zip(times["old"], times["new"])]
            print(f"| {case} | {o:.4f} s | {n:.4f} s | {n / o:.3f} | {faster} of {rounds} | "
                  f"{statistics.median(ratios):.3f} [{min(ratios):.3f}–{max(ratios):.3f}] | "
                  f"{load0:.1f} → {os.getloadavg()[0]:.1f} | {statistics.median(steal['old']):.1f} / "
                  f"{statistics.median(steal['new']):.1f} ({repeats}) |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
