#!/usr/bin/env bash
# Build the documentation site into docs/_build/html with warnings as errors and every
# cross-reference checked (nitpicky), numpydoc checks on the public docstrings,
# then check that its API reference lists every public name.
#
#   scripts/docs.sh            from a fresh clone: needs python3 (3.9+) and a C++17 compiler
#
# It sets up what it needs in .venv: without polymask there, scripts/setup.sh builds it
# with the `docs` extra (creating .venv if there is none); with polymask there but not the
# `docs` extra's packages (after scripts/wheel.sh, say), it installs those from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."

python=.venv/bin/python
if ! { [ -x "$python" ] && "$python" -c "import polymask" 2>/dev/null; }; then
    echo "==> docs: no polymask in .venv; building it with the docs extra (scripts/setup.sh docs)"
    bash scripts/setup.sh docs
fi
# The docs extra's requirements: pyproject.toml's (the installed metadata's on Python < 3.11).
mapfile -t requirements < <("$python" - <<'EOF'
import re
try:
    import tomllib
    with open("pyproject.toml", "rb") as file:
        print("\n".join(tomllib.load(file)["project"]["optional-dependencies"]["docs"]))
except ImportError:
    from importlib.metadata import requires
    for requirement in requires("polymask") or []:
        name, _, marker = requirement.partition(";")
        if re.search(r"""extra\s*==\s*["']docs["']""", marker):
            print(name.strip())
EOF
)
if ! "$python" -c "import sphinx, myst_parser, numpydoc, pydata_sphinx_theme, sphinx_copybutton, dask.array, xarray" \
        2>/dev/null; then
    echo "==> docs: installing the docs extra into .venv: ${requirements[*]}"
    "$python" -m pip install --quiet "${requirements[@]}"
fi

rm -rf docs/_build/doctrees
"$python" -m sphinx -n -W --keep-going -q -b html -d docs/_build/doctrees docs docs/_build/html
"$python" docs/check_api.py docs/_build/html/objects.inv
echo "docs: docs/_build/html/index.html"
