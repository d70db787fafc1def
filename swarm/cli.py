"""The `swarm` command. Command groups register themselves on the argparse parser via `REGISTRARS`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from rich.console import Console

from swarm.competitions import commands as competitions_commands
from swarm.competitions.errors import CompetitionError

EXIT_BAD_INPUT = 2

# Each registrar adds one command group; its leaf parsers set `handler(args, console) -> exit code`.
REGISTRARS: list[Callable[[argparse._SubParsersAction], None]] = [competitions_commands.register]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="swarm", description="Swarm-Ev2: LLM-guided search on Kaggle-style tasks."
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for register in REGISTRARS:
        register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the chosen command, and turn known errors into one sentence and exit code 2."""
    args = build_parser().parse_args(argv)
    console = Console()
    try:
        return int(args.handler(args, console))
    except (CompetitionError, ValueError, OSError) as exc:
        message = str(exc).rstrip(".")
        Console(stderr=True).print(f"swarm: error: {message}.", highlight=False, soft_wrap=True)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
