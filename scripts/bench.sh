#!/usr/bin/env bash
# Set up everything and run the main job: the speed-up table on this machine,
# beside the 2014 course's numbers and today's peer libraries.
#
#   scripts/bench.sh [polymask bench options]     e.g.  scripts/bench.sh --quick
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh bench
.venv/bin/polymask bench "$@"
