#!/bin/sh
# Install what the project's tests need, then run them all (README's test command; .ci/run runs it).
#   - Debian's Chromium, through apt (sudo when not root), when there is none at $PTO_AVS_CHROMIUM
#     (default /usr/bin/chromium): the HTML-report test drives it;
#   - the pinned Node.js packages of reports/allure (npm ci): Allure 3 and playwright-core;
#   - a virtual environment .venv with pto-avs and its dev extra (the pinned ruff) installed
#     editable (pip install -e ".[dev]").
# Then: ruff check . (a finding fails the run), and .venv/bin/pytest -n auto with any arguments
# given to this script: `sh tests/run.sh -m "not slow"` is the fast tier (tests marked slow left out).
# Needs Python 3.10+ and Node.js 20+ with npm on PATH.
set -eu
cd "$(dirname "$0")/.."

# Expected durations, measured with -n 2 on a 2-core machine shared with other work (Dec 2026):
# the fast tier 68 s (4,500 tests, 64 s of CPU) at a load of 2-3, and 337 s at a load of 11;
# avs/ 114 s (22,098 cases); the tests/ folders one at a time 35 minutes at a load of 5-15, so an
# estimated 7-8 minutes unloaded. The run is CPU-bound: more cores (pytest -n auto) divide it.
# The set-up adds a minute or more (npm ci, pip).
case " $* " in
    *"not slow"*) echo "tests/run.sh: the fast tier (-m \"not slow\"): expect about a minute on 2 cores, after the set-up" >&2 ;;
    "  ") echo "tests/run.sh: everything (ruff, then tests/ and the avs/ conformance suite): expect about" \
             "10 minutes on 2 cores, less with more; sh tests/run.sh -m \"not slow\" is the fast tier (about a minute)" >&2 ;;
    *) echo "tests/run.sh: pytest $*: a part of the run (everything takes about 10 minutes on 2 cores)" >&2 ;;
esac

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
.venv/bin/pip install -q -e ".[dev]"
.venv/bin/ruff check .
exec .venv/bin/pytest -n auto "$@"
