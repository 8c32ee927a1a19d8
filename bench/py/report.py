"""Turns bench/out/results.jsonl into the Markdown table of BENCHMARKS.md. Usage: report.py RESULTS.jsonl"""
import json
import statistics
import sys

TARGETS = {"P1a": 0.33, "P1b": 0.33, "P1c": 0.25, "P1d": 0.33, "P1e": 0.33, "P2": 0.5,
           "P3 4326->32038": 0.5, "P3 4326->3857": 0.5, "P3cli": 0.3, "P4 write": 0.05, "P4 read": 1.0,
           "P5 wkt 100000": 0.10, "P5 geojson 100000": 0.10}
# The peer each case's target is measured against (None: the fastest peer row of the case).
REFERENCE = {"P5 wkt 10000": "shapely", "P5 wkt 100000": "shapely", "P5 wkt 1000000": "shapely",
             "P5 geojson 10000": "shapely", "P5 geojson 100000": "shapely", "P5 geojson 1000000": "shapely",
             "P4 write": "simplekml", "P4 read": "lxml", "P3 4326->32038": "pyproj", "P3 4326->3857": "pyproj",
             "P3cli": "cs2cs"}
# Scaling: two threads against one (when both cores are free) and P5s GeoJSON against WKT.
SCALING_TARGET = 0.6
GEOJSON_OVER_WKT_TARGET = 1.3

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
cases = []
for r in rows:
    if r["case"] not in cases:
        cases.append(r["case"])


def med(r):
    return statistics.median(r["times"]) if r.get("times") else None


def timing(r):
    if "timeout" in r:
        return f"> {r['timeout']} s (timed out)"
    if "pending" in r:
        return "pending"
    if "error" in r:
        return r["error"]
    t = r["times"]
    return f"{med(r):.3f} [{min(t):.3f}–{max(t):.3f}] (n={len(t)})"


def checks(m, peer):
    out = []
    if "points" in m:  # P5: the whole job
        if peer and "area" in peer:
            out.append(f"Δarea vs {peer['tool']} {abs(m['area'] - peer['area']) / peer['area']:.1e}")
        out.append(f"{m['bytes'] / 1e6:.0f} MB written")
        if m["points"] == 1_000_000 and m.get("times"):
            t, rss = med(m), m["peak_rss_mb"]
            out.append(f"1M: ≤ 10 s {'met' if t <= 10 else 'NOT met'}, ≤ 1.2 GB {'met' if rss <= 1200 else 'NOT met'}")
        return "; ".join(out)
    if "area" in m and peer and "area" in peer:
        out.append(f"Δarea {abs(m['area'] - peer['area']) / peer['area']:.1e}")
        for k in ("parts", "holes", "vertices"):
            out.append(f"{k} {m[k]}" + ("" if m[k] == peer[k] else f" ≠ {peer[k]}"))
        out.append("valid" if m["valid"] and peer["valid"] else f"VALID? {m['valid']}/{peer['valid']}")
    if "geos_area" in m:
        same = m.get("counts_equal", all(m.get(k) == m.get("geos_" + k) for k in ("parts", "holes", "vertices")))
        out.append(f"vs GEOS 3.11 union: Δarea {m['geos_rel_area_diff']:.1e}, counts {'equal' if same else 'DIFFER'}"
                   f"{'' if m['geos_valid'] else ', GEOS invalid'} (GEOS path {m['geos_time']:.1f} s)")
    if "result" in m and peer and peer.get("result") is not None:
        out.append(f"coordinates read: {m['result']}" + ("" if m["result"] == peer["result"] else f" ≠ {peer['result']}"))
    if "mean_vertices" in m:
        out.append(f"adaptive: {m['mean_vertices']:.1f} vertices per circle at max deviation {m['max_deviation_m']:.2f} m"
                   f" (the deviation of a 64-vertex circle); {m['parts']} parts for {m['circles']} circles")
    if "kml_bytes" in m:
        out.append(f".kml {m['kml_bytes'] / 1e6:.1f} MB, .kmz {m['kmz_bytes'] / 1e6:.1f} MB")
    if m.get("fallback"):
        out.append(f"GEOS fallback: {m['fallback']}")
    if "max_abs_diff" in (peer or {}):
        out.append(f"max Δ vs pyproj {peer['max_abs_diff']:.1e}")
    if "differing_values" in m:
        out.append(f"values printed differently from cs2cs: {m['differing_values']} "
                   f"(largest difference {m['max_abs_diff_printed']:.1e})")
    return "; ".join(out)


def variant_lines(case, rs, m_t):
    """Meridian's other runs of the case (thread counts), and the scaling ratio 2 threads / 1 thread."""
    variants = {r["tool"]: r for r in rs if r["tool"].startswith("meridian ") and med(r)}
    for tool, r in variants.items():
        extra = checks(r, None) if "differing_values" in r or "points" in r else ""
        print(f"| {case} | {tool} | {timing(r)} | {r.get('command_peak_rss_mb', r.get('peak_rss_mb', '—'))} | — | | "
              f"{extra} |")
    one, two = variants.get("meridian 1 thread"), variants.get("meridian 2 threads")
    if one and two:
        ratio = med(two) / med(one)
        # The cases whose scaling has a target are P1c, P5 at 1M (and P5s) and P3 in process; other cases' ratios are for the record.
        target = (f"≤ {SCALING_TARGET}: {'met' if ratio <= SCALING_TARGET else 'NOT met'}"
                  if case.startswith(("P1c", "P3 ")) or (case.startswith("P5") and case.endswith(" 1000000"))
                  else "— (no scaling target)")
        print(f"| {case} | scaling | | | {ratio:.3f} (2 threads / 1; one-shot, see bench/py/ab.py --threads) | "
              f"{target} | |")


def p6_rows(case, rs):
    """P6: Meridian (the CLI, else the library pipeline) against geopandas (its faster union) and PostGIS,
    both targets 0.15; reading against the same points from CSV, target 1.5; streaming: peak RSS by input size."""
    if case.startswith("P6 stream"):
        for r in rs:
            print(f"| {case} | {r['tool']} | {timing(r)} | {r.get('peak_rss_mb', '—')} | — | | {r.get('count', '')} points |")
        return
    if case.startswith("P6 read"):
        csv = next((r for r in rs if r["tool"] == "csv" and med(r)), None)
        for r in rs:
            ratio = f"{med(r) / med(csv):.2f} vs CSV" if (csv and med(r) and r is not csv) else "—"
            if r is not csv and csv and (r.get("sum_x"), r.get("sum_y")) != (csv.get("sum_x"), csv.get("sum_y")):
                ratio += " (Σx, Σy DIFFER from the CSV's)"
            met = f"≤ 1.5: {'met' if med(r) / med(csv) <= 1.5 else 'NOT met'}" if ratio != "—" else ""
            print(f"| {case} | {r['tool']} | {timing(r)} | {r.get('peak_rss_mb', '—')} | {ratio} | {met} | "
                  f"{r.get('count', '')} points |")
        return
    mer = next((r for r in rs if r["tool"] == "meridian" and med(r)), None) \
        or next((r for r in rs if r["tool"] == "meridian-library" and med(r)), None)
    gp = [r for r in rs if r["tool"].startswith("geopandas") and med(r)]
    gp_best = min(gp, key=med) if gp else None
    pg = next((r for r in rs if r["tool"] == "postgis" and med(r)), None)
    for r in rs:
        notes = []
        if gp_best and "area" in r and r is not gp_best:
            notes.append(f"Δarea vs {gp_best['tool']} {abs(r['area'] - gp_best['area']) / gp_best['area']:.1e}")
        for phase in ("read", "union", "write"):
            if phase in r:
                notes.append(f"{phase} {statistics.median(r[phase]):.2f} s")
        ratios, met = [], []
        if r is mer:
            for peer in (gp_best, pg):
                if peer:
                    q = med(r) / med(peer)
                    ratios.append(f"{q:.3f} vs {peer['tool']}")
                    met.append(f"≤ 0.15 vs {peer['tool']}: {'met' if q <= 0.15 else 'NOT met'}")
        name = f"**{r['tool']}**" if r is mer else r["tool"]
        print(f"| {case} | {name} | {timing(r)} | {r.get('peak_rss_mb', '—')} | {'; '.join(ratios) or '—'} | "
              f"{'; '.join(met)} | {'; '.join(notes)} |")


print("| Case | Tool | Time s: median [min–max] | Peak RSS MiB | Meridian / peer | Target | Checks |")
print("|---|---|---|---|---|---|---|")
for case in cases:
    rs = [r for r in rows if r["case"] == case]
    if case.startswith("P6"):
        p6_rows(case, rs)
        continue
    mer = next((r for r in rs if r["tool"] == "meridian"), None)
    check = next((r for r in rs if r["tool"] == "meridian-geos-check"), None)
    if mer and check and "geos_area" in check:
        mer = dict(mer, **{k: v for k, v in check.items() if k.startswith("geos_") or k == "counts_equal"})
    peers = [r for r in rs if not r["tool"].startswith("meridian")]
    timed_peers = [p for p in peers if med(p) is not None]
    want = REFERENCE.get(case)
    ref = None
    if want:
        ref = next((p for p in timed_peers if p["tool"].startswith(want)), None)
    elif timed_peers:
        ref = min(timed_peers, key=med)
    m_t = med(mer) if mer else None
    target = TARGETS.get(case)
    if mer and case == "P4 read 1 GiB":
        rss = mer.get("peak_rss_mb")
        met = "—" if rss is None else f"RSS ≤ 200 MiB: {'met' if rss <= 200 else 'NOT met'}"
        print(f"| {case} | **Meridian** | {timing(mer)} | {rss if rss is not None else '—'} | — | {met} | "
              f"coordinates read: {mer.get('result', '—')} |")
        continue
    if mer:
        ratio = f"{m_t / med(ref):.3f} vs {ref['tool']}" if (m_t and ref) else "—"
        met = "—"
        if m_t and ref and target:
            met = f"≤ {target}: {'met' if m_t / med(ref) <= target else 'NOT met'}"
        print(f"| {case} | **Meridian** | {timing(mer)} | {mer.get('peak_rss_mb', '—')} | {ratio} | {met} | "
              f"{checks(mer, ref) if mer.get('times') else ''} |")
    floor = next((p for p in rs if p["tool"] == "PROJ floor" or p["tool"].startswith("PROJ ")), None)
    if mer and case.startswith("P3 ") and floor and med(floor) and m_t:
        print(f"| {case} | vs the floor | | | {m_t / med(floor):.3f} vs {floor['tool']} | ≤ 0.5: "
              f"{'met' if m_t / med(floor) <= 0.5 else 'NOT met'} | max Δ from its PROJ "
              f"{floor.get('max_abs_diff', float('nan')):.1e} |")
    if not case.startswith("G"):
        variant_lines(case, rs, m_t)
    if case.startswith("P5s geojson"):
        wkt = next((r for r in rows if r["case"] == case.replace("geojson", "wkt") and r["tool"] == "meridian"), None)
        if wkt and m_t and med(wkt):
            ratio = m_t / med(wkt)
            print(f"| {case} | GeoJSON / WKT | | | {ratio:.3f} | ≤ {GEOJSON_OVER_WKT_TARGET}: "
                  f"{'met' if ratio <= GEOJSON_OVER_WKT_TARGET else 'NOT met'} | |")
    if case.startswith("G"):
        # Geodesic cases: Meridian's other runs of the same job (planar in process; the whole command, geodesic and
        # planar) and the ratios the targets name, from this run.
        variants = {r["tool"]: r for r in rs if r["tool"].startswith("meridian ") and med(r)}
        for tool, r in variants.items():
            print(f"| {case} | {tool} | {timing(r)} | {r.get('command_peak_rss_mb', r.get('peak_rss_mb', '—'))} | — | | |")
        ratios = []
        planar = next((r for t, r in variants.items() if t.startswith("meridian planar")), None)
        if m_t and planar:
            ratios.append(f"geodesic / planar in process {m_t / med(planar):.2f}")
        if "meridian CLI geodesic" in variants and "meridian CLI planar" in variants:
            g, q = med(variants["meridian CLI geodesic"]), med(variants["meridian CLI planar"])
            ratios.append(f"CLI geodesic / CLI planar {g / q:.2f}" + (" (≤ 3: met)" if g / q <= 3 else " (≤ 3: NOT met)"))
        if m_t and ref:
            ratios.append(f"geodesic / peer {m_t / med(ref):.3f}" + (" (< 1: met)" if m_t < med(ref) else " (< 1: NOT met)"))
        if ref and "meridian_worst_vertex_error_m" in ref:
            ratios.append(f"worst vertex error Meridian {ref['meridian_worst_vertex_error_m']:.1e} m, "
                          f"peer {ref['worst_vertex_error_m']:.1e} m")
        if ratios:
            print(f"| {case} | ratios | | | | | {'; '.join(ratios)} |")
    for p in peers:
        ratio = f"{m_t / med(p):.3f}" if (m_t and med(p)) else "—"
        extra = ""
        if "points" in p:
            extra = f"{p['bytes'] / 1e6:.0f} MB written" if "bytes" in p else ""
        elif "area" in p:
            extra = f"parts {p['parts']}, holes {p['holes']}, vertices {p['vertices']}, valid {p['valid']}"
        if "max_abs_diff" in p:
            extra = f"max Δ Meridian vs pyproj {p['max_abs_diff']:.1e}"
        if "vertices_per_circle" in p:
            extra = f"{p['vertices_per_circle']} vertices per circle"
        if "result" in p and p["result"] is not None:
            extra = f"coordinates read: {p['result']}"
        if "sum_x" in p and mer and "sum_x" in mer:
            same = p["sum_x"] == mer["sum_x"] and p["sum_y"] == mer["sum_y"]
            extra = f"Σx, Σy {'equal to' if same else 'not equal to'} Meridian's (interpolated within the bound)"
            if "max_abs_diff" in p:
                extra += f"; Meridian's largest difference from it {p['max_abs_diff']:.1e}"
        ref_mark = " (reference)" if p is ref else ""
        print(f"| {case} | {p['tool']}{ref_mark} | {timing(p)} | {p.get('peak_rss_mb', '—')} | {ratio} | | {extra} |")
