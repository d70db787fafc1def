"""The `swarm` command's core: command groups register themselves on the argparse parser via `REGISTRARS`.

The console script is flows/cli.py, which adds `swarm run` (the main job needs Prefect, which the core may not
import); `python -m swarm.cli` serves the core's commands alone."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from rich.console import Console

from swarm.competitions import commands as competitions_commands
from swarm.competitions.errors import CompetitionError

EXIT_BAD_INPUT = 2

Registrar = Callable[[argparse._SubParsersAction], None]

# Each registrar adds one command group; its leaf parsers set `handler(args, console) -> exit code`.
REGISTRARS: list[Registrar] = [competitions_commands.register]


def build_parser(registrars: list[Registrar] | None = None) -> argparse.ArgumentParser:
    """The `swarm` parser with the command groups of `registrars` (default `REGISTRARS`)."""
    parser = argparse.ArgumentParser(
        prog="swarm", description="Swarm-Ev2: LLM-guided search on Kaggle-style tasks."
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for register in REGISTRARS if registrars is None else registrars:
        register(subparsers)
    return parser


def main(argv: list[str] | None = None, registrars: list[Registrar] | None = None) -> int:
    """Parse `argv`, run the chosen command, and turn known errors into one sentence and exit code 2."""
    args = build_parser(registrars).parse_args(argv)
    console = Console()
    try:
        return int(args.handler(args, console))
    except (CompetitionError, ValueError, OSError) as exc:
        message = str(exc).rstrip(".")
        Console(stderr=True).print(f"swarm: error: {message}.", highlight=False, soft_wrap=True)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
