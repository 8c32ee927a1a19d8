#!/usr/bin/env bash
# KML throughput and memory figures (not part of the test suite): generates KML files into a scratch folder
# (default /tmp/meridian-kml-bench, ~1.1 GB) and times the release `meridian kml` commands on them.
#   read (streaming):  meridian kml info --stream BIG.kml   → placemarks/s read, peak RSS (bounded memory)
#   read tree + write: meridian kml convert MID.kml OUT.kml / OUT.kmz → placemarks/s (read + write)
#   create:            meridian kml create POINTS.csv -o OUT.kml → placemarks/s (CSV read + project + write)
# Usage: scripts/kml-bench.sh [SCRATCH_DIR] [BIG_PLACEMARKS]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/tmp/meridian-kml-bench}
big=${2:-4000000}
mkdir -p "$dir"
swift build -c release --static-swift-stdlib --product meridian 2>&1 | grep -E "error|warning:|Compiling|Build" | tail -3
bin="$(swift build -c release --static-swift-stdlib --show-bin-path)/meridian"

generate() {  # generate FILE COUNT: points, lines and polygons with shared styles, ExtendedData, descriptions
python3 - "$1" "$2" <<'PY'
import sys, random
path, n = sys.argv[1], int(sys.argv[2])
random.seed(1)
with open(path, "w", buffering=1 << 20) as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>bench</name>\n')
    f.write('<Style id="p"><IconStyle><color>ff0000ff</color><Icon><href>http://x/i.png</href></Icon></IconStyle></Style>\n')
    f.write('<Style id="a"><LineStyle><color>ff00ff00</color><width>2</width></LineStyle><PolyStyle><color>9900ffff</color></PolyStyle></Style>\n')
    for i in range(n):
        x, y = random.uniform(-180, 180), random.uniform(-85, 85)
        k = i % 10
        if k < 8:
            g = '<Point><coordinates>%.7f,%.7f,0</coordinates></Point>' % (x, y)
            s = "#p"
        elif k == 8:
            g = '<LineString><tessellate>1</tessellate><coordinates>%s</coordinates></LineString>' % " ".join("%.7f,%.7f" % (x + j * 1e-3, y + j * 1e-3) for j in range(8))
            s = "#a"
        else:
            ring = [(x, y), (x + .01, y), (x + .01, y + .01), (x, y + .01), (x, y)]
            g = '<Polygon><outerBoundaryIs><LinearRing><coordinates>%s</coordinates></LinearRing></outerBoundaryIs></Polygon>' % " ".join("%.7f,%.7f" % c for c in ring)
            s = "#a"
        f.write('<Placemark id="p%d"><name>Placemark %d</name><description><![CDATA[<b>n</b> %d]]></description><styleUrl>%s</styleUrl>'
                '<ExtendedData><Data name="k"><value>%d</value></Data></ExtendedData>%s</Placemark>\n' % (i, i, i, s, i, g))
    f.write('</Document></kml>\n')
PY
}

measure() {  # measure LABEL COUNT COMMAND...
    local label=$1 count=$2; shift 2
    /usr/bin/time -o "$dir/time.txt" -f "%e %M" "$@" >"$dir/last.out" 2>"$dir/last.err" || { cat "$dir/last.err"; return 1; }
    read -r secs rss < <(tail -1 "$dir/time.txt")
    python3 -c "import sys; n, s, r = int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]); print('%s: %d placemarks in %.1f s = %.0f placemarks/s, peak RSS %.0f MiB' % (sys.argv[1], n, s, n / max(s, 1e-9), r / 1024))" "$label" "$count" "$secs" "$rss"
}

[[ -f $dir/big.kml ]] || generate "$dir/big.kml" "$big"
[[ -f $dir/mid.kml ]] || generate "$dir/mid.kml" 200000
ls -la "$dir/big.kml" "$dir/mid.kml"
measure "stream-read $(du -h "$dir/big.kml" | cut -f1) KML (kml info --stream)" "$big" "$bin" kml info --stream "$dir/big.kml"
measure "tree-read mid KML (kml info)" 200000 "$bin" kml info "$dir/mid.kml"
measure "read tree + write KML (kml convert mid.kml)" 200000 "$bin" kml convert --overwrite "$dir/mid.kml" "$dir/out.kml"
measure "read tree + write KMZ (kml convert mid.kml)" 200000 "$bin" kml convert --overwrite "$dir/mid.kml" "$dir/out.kmz"
measure "stream-read KMZ (kml info --stream out.kmz)" 200000 "$bin" kml info --stream "$dir/out.kmz"
python3 -c "
import random; random.seed(2)
with open('$dir/points.csv','w') as f:
    f.write('name,lon,lat\n')
    for i in range(200000): f.write('P%d,%.7f,%.7f\n' % (i, random.uniform(-180,180), random.uniform(-85,85)))"
measure "create KML from CSV (kml create)" 200000 "$bin" kml create "$dir/points.csv" -o "$dir/points.kml" --overwrite
