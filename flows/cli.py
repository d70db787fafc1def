"""The `swarm` console script: the core's command groups (`swarm competitions ...`, swarm/cli.py) and the flows'
scripts as commands: `swarm run ...` is `python flows/run_competition.py ...`, `swarm benchmark ...` is
`python flows/benchmark.py ...`.

Why the console script lives here and not in swarm/cli.py: the flows import Prefect, and the core may import
neither `flows` nor `prefect`, not even lazily (tests/core/test_import_layers.py). flows/ may import the core, so
this module builds the core's parser (`swarm.cli.main`, same commands, same errors) with the scripts added, and
pyproject.toml points `swarm` here. A script's command is handed its arguments untouched, before any parsing
here, to that script's own `main` (one parser, one main: the same options, output and exit codes), which names
itself `swarm run` in usage and errors. The script is imported only then, so `swarm competitions ...` starts
without Prefect, as before; `python -m swarm.cli` still serves the core's commands alone.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from swarm import cli as core


def _run(argv: list[str], prog: str) -> int:
    from flows.run_competition import main

    return main(argv, prog)


def _benchmark(argv: list[str], prog: str) -> int:
    from flows.benchmark import main

    return main(argv, prog)


# command -> (the script's main, its line in `swarm --help`)
SCRIPTS: dict[str, tuple[Callable[[list[str], str], int], str]] = {
    "run": (_run, "the main job: solve a competition end to end (flows/run_competition.py)"),
    "benchmark": (
        _benchmark,
        "competitions one after another and a table (flows/benchmark.py)",
    ),
}


def register_scripts(subparsers: argparse._SubParsersAction) -> None:
    """List the scripts' commands in `swarm --help`; `main` hands them over before the parser sees them."""
    for name, (script, help_line) in SCRIPTS.items():
        command = subparsers.add_parser(name, help=help_line, add_help=False)
        command.set_defaults(
            handler=lambda args, console, script=script, name=name: script([], f"swarm {name}")
        )


def main(argv: list[str] | None = None) -> int:
    """`swarm COMMAND ...`: a script's command runs that script's main; any other, the core's."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in SCRIPTS:
        script, _ = SCRIPTS[argv[0]]
        return script(argv[1:], f"swarm {argv[0]}")
    return core.main(argv, [*core.REGISTRARS, register_scripts])


if __name__ == "__main__":
    sys.exit(main())
