"""The gene parser: sections of solution code, completeness, and assembly from a crossover plan."""

from __future__ import annotations

import pytest

from swarm.ga.genes import PREAMBLE, GeneError, assemble, missing_sections, split_genes, split_sections
from swarm.protocol import GENE_SECTIONS, section_marker


def solution(tag: str, sections=GENE_SECTIONS) -> str:
    body = "\n".join(f"{section_marker(name)}\n{name.lower()}_{tag} = '{tag}'\n" for name in sections)
    return f"import os  # preamble {tag}\n\n{body}"


def test_split_finds_every_section_in_order_with_the_preamble() -> None:
    sections = split_sections(solution("a"))
    assert list(sections) == [PREAMBLE, *GENE_SECTIONS]
    assert sections[PREAMBLE].startswith("import os  # preamble a")
    assert sections["MODEL"].strip() == "model_a = 'a'"
    assert not missing_sections(solution("a"))


def test_code_without_markers_is_one_opaque_gene() -> None:
    code = "print('no markers here')\n"
    assert split_genes(code) == {}
    assert missing_sections(code) == list(GENE_SECTIONS)
    assert split_sections(code) == {PREAMBLE: code}


def test_missing_and_duplicate_sections_are_reported() -> None:
    partial = solution("a", sections=GENE_SECTIONS[:3])
    assert missing_sections(partial) == list(GENE_SECTIONS[3:])
    doubled = solution("a") + f"\n{section_marker('DATA')}\nagain = 1\n"
    with pytest.raises(GeneError, match="DATA appears twice"):
        split_sections(doubled)
    assert split_genes(doubled) == {}  # a malformed individual counts as opaque


def test_assemble_takes_each_section_from_the_planned_parent() -> None:
    plan = {name: i % 2 for i, name in enumerate(GENE_SECTIONS)}
    child = assemble([solution("a"), solution("b")], plan)
    genes = split_genes(child)
    for i, name in enumerate(GENE_SECTIONS):
        assert genes[name].strip() == f"{name.lower()}_{'ab'[i % 2]} = '{'ab'[i % 2]}'"
    assert child.startswith("import os  # preamble a")
    compile(child, "child.py", "exec")


def test_assemble_rejects_bad_plans_and_incomplete_parents() -> None:
    with pytest.raises(GeneError, match="parent 1 lacks"):
        assemble([solution("a"), "print(1)\n"], {"DATA": 1})
    with pytest.raises(GeneError, match="unknown sections"):
        assemble([solution("a"), solution("b")], {"FEATURES": 1})
    with pytest.raises(GeneError, match="parent 2"):
        assemble([solution("a"), solution("b")], {"MODEL": 2})
