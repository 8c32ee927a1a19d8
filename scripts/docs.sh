#!/usr/bin/env bash
# Builds the DocC documentation offline into a static site, without the DocC plugin: each library module's symbol
# graph comes from the compiler (given with --symbol-graphs, as scripts/run.sh does from its release build) or from
# `swift package dump-symbol-graph`; the toolchain's own `docc` converts each module's catalog
# (Sources/<Module>/<Module>.docc) into an archive, and `docc merge` combines them into one site. Only the library
# modules below are needed, and the `meridian` executable for the command reference: the article
# CommandReference.md is made from the commands' declarations (`meridian --reference`) into a copy of
# Sources/Meridian/Meridian.docc, so that a new command or option appears in the documentation by itself.
#
#   scripts/docs.sh [--analyze] [-o DIR] [--hosting-base-path PATH] [--symbol-graphs DIR] [--meridian BIN]
#
#   --analyze               also report docc's notes; any warning fails the build (scripts/test.sh uses this)
#   -o DIR                  the site's folder (default .build/docs); it is replaced
#   --hosting-base-path P   the URL path the site is served under (default "docs": `meridian serve` serves it at
#                           /docs/, pages at /docs/documentation/meridian/)
#   --symbol-graphs DIR     use the symbol graphs the compiler wrote into DIR (swiftc -emit-symbol-graph
#                           -emit-symbol-graph-dir DIR -symbol-graph-minimum-access-level public
#                           -emit-extension-block-symbols) instead of running dump-symbol-graph
#   --meridian BIN          the `meridian` executable that writes the command reference (default: the debug build's,
#                           built first if it is missing; scripts/run.sh passes its release build's)
#
# Modules are converted in dependency order; each archive is a link dependency of the later ones, so articles
# link across modules with absolute symbol links (``/MeridianCore/Point``). Any docc warning fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
analyze=()
graphs=""
meridian=""
out=.build/docs
base=docs
while [ $# -gt 0 ]; do
    case "$1" in
        --analyze) analyze=(--analyze) ;;
        -o) out="$2"; shift ;;
        --hosting-base-path) base="$2"; shift ;;
        --symbol-graphs) graphs="$2"; shift ;;
        --meridian) meridian="$2"; shift ;;
        *) echo "docs.sh: unknown option '$1' (usage: scripts/docs.sh [--analyze] [-o DIR] [--hosting-base-path PATH] [--symbol-graphs DIR] [--meridian BIN])" >&2
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

modules=(MeridianCore MeridianEngine MeridianKML MeridianFeatureData MeridianIO MeridianViewer MeridianCLI Meridian)
work=.build/docs-work
rm -rf "$work"
mkdir -p "$work"
log="$work/docc.log"

if [ -z "$graphs" ]; then
    # dump-symbol-graph also tries the test modules, and fails for them when the tests have not been built: its
    # exit status is not ours to judge. What matters is that every library module's graph is written by this run.
    graphs=.build/symbolgraph-dump
    rm -rf "$graphs" "$(dirname "$(swift build --show-bin-path)")/symbolgraph"
    swift package dump-symbol-graph --minimum-access-level public --emit-extension-block-symbols \
        >"$work/dump.log" 2>&1 || true
    written="$(sed -n 's/^Files written to //p' "$work/dump.log" | tail -1)"
    if [ -n "$written" ] && [ -d "$written" ]; then
        mkdir -p "$graphs"
        for module in "${modules[@]}"; do cp "$written/$module".symbols.json "$written/$module"@*.symbols.json "$graphs/" 2>/dev/null || true; done
    fi
fi
for module in "${modules[@]}"; do
    if [ ! -s "$graphs/$module.symbols.json" ]; then
        [ -f "$work/dump.log" ] && grep -E 'error' "$work/dump.log" >&2
        echo "docs.sh: no symbol graph for $module in $graphs (log: $work/dump.log)" >&2
        exit 1
    fi
done

# The command reference, from the commands' declarations, into a copy of the Meridian catalog.
if [ -z "$meridian" ]; then
    meridian="$(swift build --show-bin-path)/meridian"
    if [ ! -x "$meridian" ] && ! swift build --product meridian >"$work/meridian-build.log" 2>&1; then
        grep -E 'error' "$work/meridian-build.log" | head -20 >&2
        echo "docs.sh: building meridian for the command reference failed (log: $work/meridian-build.log)" >&2
        exit 1
    fi
fi
mkdir -p "$work/catalogs"
cp -R Sources/Meridian/Meridian.docc "$work/catalogs/"
if ! "$meridian" --reference >"$work/catalogs/Meridian.docc/CommandReference.md"; then
    echo "docs.sh: $meridian --reference failed" >&2
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
    catalog="Sources/$module/$module.docc"
    [ -d "$work/catalogs/$module.docc" ] && catalog="$work/catalogs/$module.docc"
    if ! "$docc" convert "$catalog" \
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
