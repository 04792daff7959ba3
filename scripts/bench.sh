#!/usr/bin/env bash
# Set up everything and run the main job: the speed-up table on this machine,
# beside the 2014 course's numbers and today's peer libraries.
#
#   scripts/bench.sh [polymask bench options]     e.g.  scripts/bench.sh --quick
#   scripts/bench.sh --json before.json ... scripts/bench.sh --json after.json
#   scripts/bench.sh --compare before.json after.json
#
# The full table takes several minutes (the pure-Python stages are timed 3
# times on the whole image); --quick times them on a band of rows.  Run it on
# a quiet machine: the header says when the load made the figures unreliable.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh bench
.venv/bin/polymask bench "$@"
