#!/usr/bin/env bash
# What tests/browser needs: Debian's Chromium (installed with apt-get when
# /usr/bin/chromium is missing; CI runs as root) and the pinned npm packages
# (npm ci, redone only when package-lock.json changes).
set -euo pipefail
cd "$(dirname "$0")"
start=$(date +%s)
if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "browser/install.sh: /usr/bin/chromium is missing; as root run: apt-get install chromium" >&2
        exit 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if ! [ -f node_modules/.stamp ] || ! cmp -s package-lock.json node_modules/.stamp; then
    npm ci --no-audit --no-fund --loglevel=error
    cp package-lock.json node_modules/.stamp
fi
echo "browser/install.sh: chromium and the web client ready in $(( $(date +%s) - start )) s"
