"""P4 peers: simplekml writes 100k placemarks (points with an IconStyle, 10-vertex lines, 20-vertex polygons) as
.kml and .kmz; lxml and fastkml read the .kml back. Usage: p4_peers.py write|lxml|fastkml REPS OUTDIR"""
import sys
import zipfile

import numpy as np

import common

mode, reps, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
N = common.P4_COUNT


def write():
    import simplekml
    base, jitter = common.p4_data()
    doc = simplekml.Kml()
    style = simplekml.Style()
    style.iconstyle.icon.href = "http://maps.google.com/mapfiles/kml/shapes/placemark_circle.png"
    style.iconstyle.scale = 1.2
    for i in range(N):
        x, y = base[i]
        kind = i % 3
        if kind == 0:
            p = doc.newpoint(name=f"p{i}", coords=[(x, y)])
            p.style = style
        elif kind == 1:
            pts = [(x + dx, y + dy) for dx, dy in jitter[i, :10]]
            doc.newlinestring(name=f"l{i}", coords=pts)
        else:
            ang = np.linspace(0, 2 * np.pi, 20, endpoint=False)
            ring = [(x + 0.01 * np.cos(a), y + 0.01 * np.sin(a)) for a in ang]
            ring.append(ring[0])
            doc.newpolygon(name=f"a{i}", outerboundaryis=ring)
    doc.save(f"{out}/peer.kml")
    doc.savekmz(f"{out}/peer.kmz")


def read_lxml():
    from lxml import etree
    total = 0
    tree = etree.parse(f"{out}/peer.kml")
    for el in tree.iter("{http://www.opengis.net/kml/2.2}coordinates"):
        for tup in el.text.split():
            x, y, *_ = tup.split(",")
            float(x), float(y)
            total += 1
    return total


def read_fastkml():
    from fastkml import kml
    k = kml.KML.parse(f"{out}/peer.kml")
    count = 0
    stack = list(k.features)
    while stack:
        f = stack.pop()
        if hasattr(f, "features"):
            stack.extend(f.features)
        else:
            count += 1
    return count


fn = {"write": write, "lxml": read_lxml, "fastkml": read_fastkml}[mode]
times, result = common.timed(fn, reps, budget=120.0)
tool = {"write": "simplekml write .kml+.kmz", "lxml": "lxml read .kml", "fastkml": "fastkml read .kml"}[mode]
common.emit({"case": "P4 " + ("write" if mode == "write" else "read"), "tool": tool, "times": times,
             "result": result if isinstance(result, int) else None})
