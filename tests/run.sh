#!/bin/sh
# Install what the project's tests need, then run them all (README's test command; .ci/run runs it).
#   - Debian's Chromium, through apt (sudo when not root), when there is none at $PTO_AVS_CHROMIUM
#     (default /usr/bin/chromium): the HTML-report test drives it;
#   - the pinned Node.js packages of reports/allure (npm ci): Allure 3 and playwright-core;
#   - a virtual environment .venv with pto-avs installed editable (pip install -e .).
# Then: .venv/bin/pytest -n auto, with any arguments given to this script.
# Needs Python 3.10+ and Node.js 20+ with npm on PATH.
set -eu
cd "$(dirname "$0")/.."

chromium="${PTO_AVS_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    echo "tests/run.sh: no Chromium at $chromium: installing Debian's chromium with apt-get" >&2
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    [ -x "$chromium" ] || { echo "tests/run.sh: still no Chromium at $chromium" >&2; exit 1; }
fi

node_major=$(node --version 2>/dev/null | sed 's/^v\([0-9]*\).*/\1/')
if [ "${node_major:-0}" -lt 20 ]; then
    echo "tests/run.sh: Node.js 20 or newer is needed on PATH (found: $(node --version 2>/dev/null || echo none))" >&2
    exit 1
fi
npm ci --prefix reports/allure --no-audit --no-fund --loglevel=error

python3 -m venv .venv
.venv/bin/pip install -q -e .
exec .venv/bin/pytest -n auto "$@"
