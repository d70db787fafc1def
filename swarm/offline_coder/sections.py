"""Split a solution into its preamble and gene sections, read the offline coder's choices, join it back."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from swarm.protocol import GENE_SECTIONS, SECTION_MARKER_RE

CHOICE_PREFIX = "# offline-choice: "
_CHOICE_RE = re.compile(r"^# offline-choice: (\{.*\})[ \t]*$", re.MULTILINE)


@dataclass
class SplitCode:
    """A solution cut at its section markers: `sections[name]` starts with the marker line."""

    preamble: str
    sections: dict[str, str] = field(default_factory=dict)

    def join(self) -> str:
        """The code again, sections in GENE_SECTIONS order (unknown names after them)."""
        names = [n for n in GENE_SECTIONS if n in self.sections]
        names += [n for n in self.sections if n not in GENE_SECTIONS]
        parts = [self.preamble.rstrip("\n") + "\n"] + [self.sections[n].rstrip("\n") + "\n" for n in names]
        return "\n\n".join(parts)

    def has_all_sections(self) -> bool:
        return all(name in self.sections for name in GENE_SECTIONS)


def split_code(code: str) -> SplitCode:
    """Cut `code` at its `# [SECTION: NAME]` markers (the first marker of a name wins; later ones stay inside)."""
    matches = list(SECTION_MARKER_RE.finditer(code or ""))
    if not matches:
        return SplitCode(preamble=code or "")
    split = SplitCode(preamble=code[: matches[0].start()])
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(code)
        name = match.group(1)
        if name in split.sections:
            split.sections[name] += code[match.start() : end]
        else:
            split.sections[name] = code[match.start() : end]
    return split


def choice_lines(code: str) -> list[str]:
    """The `# offline-choice:` lines of a solution, in order: the genome the offline coder wrote it from."""
    return [match.group(0).strip() for match in _CHOICE_RE.finditer(code or "")]


def read_choice(section_text: str) -> dict[str, Any] | None:
    """The offline coder's choice recorded in a section, or None for a section it did not write."""
    match = _CHOICE_RE.search(section_text or "")
    if not match:
        return None
    try:
        choice = json.loads(match.group(1))
    except json.JSONDecodeError:
        return None
    return choice if isinstance(choice, dict) else None


def read_genome(split: SplitCode) -> dict[str, dict[str, Any]]:
    """The choices of every section the offline coder wrote (other sections are left out)."""
    genome = {}
    for name, text in split.sections.items():
        choice = read_choice(text)
        if name in GENE_SECTIONS and choice is not None:
            genome[name] = choice
    return genome


def section_of_line(code: str, line_number: int) -> str | None:
    """The section holding 1-based `line_number` of `code`, or None for the preamble / out of range."""
    lines = (code or "").splitlines()
    if not 1 <= line_number <= len(lines):
        return None
    current = None
    for text in lines[:line_number]:
        match = SECTION_MARKER_RE.match(text)
        if match:
            current = match.group(1)
    return current
