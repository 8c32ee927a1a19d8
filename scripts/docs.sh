#!/usr/bin/env bash
# Builds the DocC documentation offline into a static site, without the DocC plugin: `swift package
# dump-symbol-graph` extracts each library module's symbol graph, the toolchain's own `docc` converts each module's
# catalog (Sources/<Module>/<Module>.docc) into an archive, and `docc merge` combines them into one site.
#
#   scripts/docs.sh [--analyze] [-o DIR] [--hosting-base-path PATH]
#
#   --analyze               also report docc's notes; any warning fails the build (scripts/test.sh uses this)
#   -o DIR                  the site's folder (default .build/docs); it is replaced
#   --hosting-base-path P   the URL path the site is served under (default "docs": `meridian serve` serves it at
#                           /docs/, pages at /docs/documentation/meridian/)
#
# Modules are converted in dependency order; each archive is a link dependency of the later ones, so articles
# link across modules with absolute symbol links (``/MeridianCore/Point``). Any docc warning fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
analyze=()
out=.build/docs
base=docs
while [ $# -gt 0 ]; do
    case "$1" in
        --analyze) analyze=(--analyze) ;;
        -o) out="$2"; shift ;;
        --hosting-base-path) base="$2"; shift ;;
        *) echo "docs.sh: unknown option '$1' (usage: scripts/docs.sh [--analyze] [-o DIR] [--hosting-base-path PATH])" >&2
           exit 2 ;;
    esac
    shift
done

# docc ships next to `swift` in the toolchain's bin folder (no xcrun on Linux).
docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
if [ ! -x "$docc" ]; then
    echo "docs.sh: no docc next to swift ($docc); install a Swift 6 toolchain that ships it" >&2
    exit 1
fi

modules=(MeridianCore MeridianEngine MeridianKML MeridianViewer MeridianCLI Meridian)
work=.build/docs-work
rm -rf "$work"
mkdir -p "$work"
log="$work/docc.log"

graphs="$(swift package dump-symbol-graph --minimum-access-level public --emit-extension-block-symbols 2>"$work/dump.log" \
    | sed -n 's/^Files written to //p')"
if [ -z "$graphs" ] || [ ! -d "$graphs" ]; then
    cat "$work/dump.log" >&2
    echo "docs.sh: swift package dump-symbol-graph wrote no symbol graphs" >&2
    exit 1
fi

dependencies=()
archives=()
for module in "${modules[@]}"; do
    mkdir -p "$work/graphs/$module"
    # The module's own graph and the graphs of its extensions to other modules (Module@Other.symbols.json).
    cp "$graphs/$module.symbols.json" "$work/graphs/$module/"
    cp "$graphs/$module"@*.symbols.json "$work/graphs/$module/" 2>/dev/null || true
    archive="$work/$module.doccarchive"
    if ! "$docc" convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$work/graphs/$module" \
        --output-path "$archive" \
        --fallback-display-name "$module" --fallback-bundle-identifier "$module" \
        --hosting-base-path "$base" \
        --enable-experimental-external-link-support \
        "${dependencies[@]}" "${analyze[@]}" --warnings-as-errors >>"$log" 2>&1; then
        failed=1
    fi
    dependencies+=(--dependency "$PWD/$archive")
    archives+=("$archive")
done
if grep -Eq '(warning|error):' "$log" || [ -n "${failed:-}" ]; then
    cat "$log" >&2
    echo "docs.sh: docc reported warnings or errors (above; log: $log)" >&2
    exit 1
fi
if [ ${#analyze[@]} -gt 0 ] && grep -q "[^[:space:]]" "$log"; then
    cat "$log"
fi

rm -rf "$out"
"$docc" merge "${archives[@]}" --output-path "$out" \
    --synthesized-landing-page-name Meridian --synthesized-landing-page-kind Package >"$work/merge.log" 2>&1 \
    || { cat "$work/merge.log" >&2; echo "docs.sh: docc merge failed" >&2; exit 1; }
echo "Documentation: $out (pages under /$base/documentation/<module>/, e.g. /$base/documentation/meridian/)"
