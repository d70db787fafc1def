"""Split solution code into its gene sections and assemble code from sections of several parents.

Code before the first marker is the preamble (imports, helpers). Code without any marker is one opaque gene:
`split_genes` returns an empty dict for it, and the individual is still valid. Markers are read however they
are spelled (`swarm.protocol.canonical_markers`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from swarm.protocol import GENE_SECTIONS, SECTION_MARKER_RE, canonical_markers, section_marker

PREAMBLE = "_PREAMBLE"


class GeneError(ValueError):
    """Code or a crossover plan does not fit the gene sections; the message says how."""


def split_sections(code: str) -> dict[str, str]:
    """`{PREAMBLE: ..., "DATA": ..., ...}`: each section's body (marker line excluded), in code order."""
    code = canonical_markers(code)
    matches = list(SECTION_MARKER_RE.finditer(code))
    sections: dict[str, str] = {PREAMBLE: code[: matches[0].start()] if matches else code}
    for i, match in enumerate(matches):
        name = match.group(1)
        end = matches[i + 1].start() if i + 1 < len(matches) else len(code)
        body = code[match.end() : end].lstrip("\n")
        if name in sections:
            raise GeneError(f"section {name} appears twice")
        sections[name] = body
    return sections


def split_genes(code: str) -> dict[str, str]:
    """The known gene sections of `code` (no preamble); empty when the code has no markers."""
    try:
        sections = split_sections(code)
    except GeneError:
        return {}
    return {name: body for name, body in sections.items() if name in GENE_SECTIONS}


def missing_sections(code: str) -> list[str]:
    """Gene sections the code lacks (all of them for opaque code)."""
    present = split_genes(code)
    return [name for name in GENE_SECTIONS if name not in present]


def assemble(parents: Sequence[str], plan: Mapping[str, int]) -> str:
    """Code made of each section taken from the parent the plan names (0, 1, …); preamble from parent 0.

    Every gene section must appear in every parent and in the plan."""
    split = [split_sections(code) for code in parents]
    for index, sections in enumerate(split):
        lacking = [name for name in GENE_SECTIONS if name not in sections]
        if lacking:
            raise GeneError(f"parent {index} lacks sections {', '.join(lacking)}")
    unknown = set(plan) - set(GENE_SECTIONS)
    if unknown:
        raise GeneError(f"crossover plan names unknown sections {sorted(unknown)}")
    parts = [split[0][PREAMBLE].rstrip("\n") + "\n\n"] if split[0][PREAMBLE].strip() else []
    for name in GENE_SECTIONS:
        source = plan.get(name, 0)
        if not 0 <= source < len(split):
            raise GeneError(f"crossover plan takes {name} from parent {source}, but there are {len(split)}")
        parts.append(f"{section_marker(name)}\n{split[source][name].rstrip()}\n\n")
    return "".join(parts).rstrip("\n") + "\n"
