"""A Sphinx directive that prints the ``polymask`` command's help, one section per subcommand.

    ```{cli-help}
    ```

The page shows exactly what ``polymask --help`` and ``polymask COMMAND --help``
print in a terminal, taken from the command line itself when the site is built,
so it cannot drift from the code.  It runs ``polymask.cli.main`` rather than
walking the parser because ``polymask bench`` parses its own options (the main
parser passes them through untouched), and a parser walker would show them as
one opaque argument.  A subcommand added to the parser gets its section without
editing the page.
"""
from __future__ import annotations

import contextlib
import io
import os

from docutils import nodes
from docutils.parsers.rst import Directive


def command_help(argv: list[str]) -> str:
    """What ``polymask ARGV --help`` prints, at a fixed width so the page does not follow the builder's terminal."""
    from polymask.cli import main

    printed = io.StringIO()
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "88"
    try:
        with contextlib.redirect_stdout(printed), contextlib.suppress(SystemExit):
            main([*argv, "--help"])
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous
    return printed.getvalue().rstrip()


def subcommands() -> list[str]:
    """The subcommands of ``polymask``, in the parser's order."""
    import argparse

    from polymask.cli import build_parser

    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []


class CliHelp(Directive):
    has_content = False

    def run(self):
        def block(argv):
            text = command_help(argv)
            literal = nodes.literal_block(text, text)
            literal["language"] = "text"
            return literal

        found = [block([])]
        for name in subcommands():
            section = nodes.section(ids=[f"polymask-{name}"], names=[f"polymask {name}"])
            section += nodes.title(text=f"polymask {name}")
            section += block([name])
            self.state.document.note_implicit_target(section, section)
            found.append(section)
        return found


def setup(app):
    app.add_directive("cli-help", CliHelp)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
