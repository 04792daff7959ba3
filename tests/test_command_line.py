"""The ``polymask`` command's first minute: its version, its help without arguments, a purpose per subcommand.

The help text itself (plain text, ``python -m polymask`` runs it) is
tests/test_numbering.py's; each subcommand's own behaviour is tested beside
it (tests/test_stages.py for ``annotate``, tests/test_exercises.py for
``check``, tests/test_bench.py for ``bench``).
"""
from __future__ import annotations

import subprocess
import sys

import pytest

import polymask
from polymask import cli


def test_version_prints_the_package_version_and_exits_0(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"polymask {polymask.__version__}"


def test_a_bare_polymask_prints_the_help_and_exits_0(capsys):
    assert cli.main([]) == 0
    printed = capsys.readouterr()
    assert printed.out.startswith("usage: polymask") and not printed.err
    for name in cli.PURPOSES:
        assert f"\n    {name}" in printed.out, f"{name} is not listed in the help"


def test_python_m_polymask_without_arguments_prints_the_help_and_exits_0():
    done = subprocess.run([sys.executable, "-m", "polymask"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: polymask") and "--version" in done.stdout


def test_every_subcommand_has_a_one_line_purpose_in_both_helps(capsys):
    parser = cli.build_parser()
    listed = parser.format_help()
    commands = next(action for action in parser._actions if action.dest == "command")
    assert set(commands.choices) == set(cli.PURPOSES), "a subcommand without a purpose, or a purpose without one"
    for name, purpose in cli.PURPOSES.items():
        assert "\n" not in purpose and purpose.endswith(".")
        assert purpose[0].lower() + purpose[1:-1] in " ".join(listed.split()), f"{name}'s purpose is not listed"
        if name == "bench":  # `polymask bench` prints its own help: its own description
            continue
        assert commands.choices[name].description == purpose
        with pytest.raises(SystemExit):
            cli.main([name, "--help"])
        own_help = capsys.readouterr().out
        assert purpose in " ".join(own_help.split()), f"polymask {name} --help does not open with its purpose"
