"""config/default.yaml: every setting of a run with its default and what it does, written from the config model.

    python -m swarm.default_config            # rewrite config/default.yaml
    python -m swarm.default_config --check    # exit 1 where the file differs from the model

The file is a valid `--config` file that changes nothing (a default that reads the environment, the cache dir,
is written as a comment); tests/config/test_default_file.py fails when it drifts from the model.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from swarm.config import DEFAULT_CACHE_DIR, Config

DEFAULT_FILE = Path(__file__).resolve().parents[1] / "config" / "default.yaml"
WIDTH = 116
HEADER = """\
# Every setting of a run, with its default. Written by `python -m swarm.default_config` from swarm/config.py (and
# sandbox/config.py): change the model, then rewrite this file; a test fails where the two differ.
#
# Use a copy that keeps only the lines you change: python flows/run_competition.py --config my.yaml
# Or set one value: --set search.num_drafts=5, or the environment: SWARM_SEARCH__NUM_DRAFTS=5 (see .env.example).
"""
# Defaults read from the environment when a run starts: written as comments, so that loading this file keeps them.
FROM_ENVIRONMENT = {("project", "cache_dir"): DEFAULT_CACHE_DIR}


def render() -> str:
    """The file's text: each section, each field's description as comments above `name: default`."""
    lines = [HEADER.rstrip("\n")]
    for name, field in Config.model_fields.items():
        section = field.default_factory() if field.default_factory else field.default  # type: ignore[call-arg]
        lines += ["", *_comment(_doc(type(section)), 0), f"{name}:"]
        lines += _fields(section, (name,), 1)
    return "\n".join(lines) + "\n"


def _fields(model: BaseModel, path: tuple[str, ...], depth: int) -> list[str]:
    """The lines of `model`'s fields at `depth` (two spaces a level); nested sections recursively."""
    out: list[str] = []
    indent = "  " * depth
    for name, field in type(model).model_fields.items():
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            out += [*_comment(_doc(type(value)), depth), f"{indent}{name}:"]
            out += _fields(value, (*path, name), depth + 1)
            continue
        out += _comment(field.description or "", depth)
        if (*path, name) in FROM_ENVIRONMENT:
            out.append(f"{indent}# {name}: {FROM_ENVIRONMENT[(*path, name)]}")
            continue
        dumped = yaml.safe_dump({name: _plain(value)}, sort_keys=False, default_flow_style=False, width=1000)
        out += [f"{indent}{line}" for line in dumped.rstrip("\n").splitlines()]
    return out


def _plain(value: Any) -> Any:
    """`value` as YAML writes it: models as mappings, paths as text."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, Path):
        return str(value)
    return value


def _doc(cls: type) -> str:
    """A section's docstring, first paragraph, on one line."""
    doc = (cls.__doc__ or "").strip().split("\n\n")[0]
    return " ".join(doc.split()) if doc and not doc.startswith(("A base class", "Usage docs")) else ""


def _comment(text: str, depth: int) -> list[str]:
    indent = "  " * depth
    return [f"{indent}# {line}" for line in textwrap.wrap(text, WIDTH - len(indent) - 2)] if text else []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 where the file differs from the model")
    parser.add_argument("--path", type=Path, default=DEFAULT_FILE)
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        same = args.path.is_file() and args.path.read_text(encoding="utf-8") == text
        print(
            f"{args.path}: {'up to date' if same else 'differs from the model; run python -m swarm.default_config'}"
        )
        return 0 if same else 1
    args.path.parent.mkdir(parents=True, exist_ok=True)
    args.path.write_text(text, encoding="utf-8")
    print(f"wrote {args.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
