"""The P5 scaling plot: wall time and peak RSS against the number of points, log-log, per tool and output format.
Usage: p5_plot.py RESULTS.jsonl OUT.png"""
import json
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
rows = [r for r in rows if r["case"].startswith("P5 ") and r.get("times")]
fig, (ax_t, ax_m) = plt.subplots(1, 2, figsize=(11, 4.5))
styles = {"meridian": "C0", "shapely": "C1", "duckdb": "C2"}
for tool, colour in styles.items():
    for fmt, marker, dash in (("wkt", "o", "-"), ("geojson", "s", "--")):
        pts = sorted((r["points"], statistics.median(r["times"]), r["peak_rss_mb"]) for r in rows
                     if r["tool"] == tool and r["format"] == fmt)
        if not pts:
            continue
        n = [p[0] for p in pts]
        ax_t.plot(n, [p[1] for p in pts], dash, marker=marker, color=colour, label=f"{tool} → {fmt}")
        ax_m.plot(n, [p[2] for p in pts], dash, marker=marker, color=colour, label=f"{tool} → {fmt}")
for ax, title, unit in ((ax_t, "wall time, end to end", "s"), (ax_m, "peak RSS", "MiB")):
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("points")
    ax.set_ylabel(unit)
    ax.set_title(f"P5: {title}")
    ax.grid(True, which="both", alpha=0.3)
ax_t.legend(fontsize=8)
fig.suptitle("Buffer 1692.6 US ft (64-gon) and union, CSV in → WKT / GeoJSON out (bench/run P5)", fontsize=10)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
