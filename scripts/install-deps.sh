#!/usr/bin/env bash
# Installs the Debian packages Meridian needs to build, test and benchmark. Idempotent: installs only what is missing.
# Usage: scripts/install-deps.sh [--browser]   (--browser adds chromium + chromium-driver for the viewer's browser tests)
set -euo pipefail
packages=(pkg-config libgeos-dev libproj-dev proj-data proj-bin libzip-dev zlib1g-dev libmicrohttpd-dev
          libgdal-dev libpq-dev libxml2-utils gdal-bin python3-venv curl)
if [[ "${1:-}" == "--browser" ]]; then packages+=(chromium chromium-driver); fi
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "Installing: ${missing[*]}" >&2
    sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
