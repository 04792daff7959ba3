#!/usr/bin/env bash
# Build the documentation site into docs/_build/html with warnings as errors and every
# cross-reference checked (nitpicky), numpydoc checks on the public docstrings,
# then check that its API reference lists every public name.
#
#   scripts/docs.sh            (needs .venv with the `docs` extra: scripts/setup.sh test,docs)
set -euo pipefail
cd "$(dirname "$0")/.."

python=.venv/bin/python
rm -rf docs/_build/doctrees
"$python" -m sphinx -n -W --keep-going -q -b html -d docs/_build/doctrees docs docs/_build/html
"$python" docs/check_api.py docs/_build/html/objects.inv
echo "docs: docs/_build/html/index.html"
