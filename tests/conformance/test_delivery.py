"""End to end, one variant per family of forms: the no-key run (the offline coder, on the plain runner) on a
competition rewritten into real forms splits it, scores its nodes on the harness, delivers a submission, and the
grader, with the competition's rewritten answers, finds it valid and about as good as on the plain form:
ranzcr-like dotted UIDs naming the image files, "NA" and its kin as comments (jigsaw-unintended-bias' layout), a
BOM with CRLF line ends, CJK ids naming files with upper-case extensions, and class labels pandas reads as missing with a class only
the test has."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conformance.generated import class_table
from tests.conformance.ids import rewrite_ids
from tests.conformance.variants import NA_WORDS, put_text_values, reencode, upper_extensions
from tests.layouts.tables.miniatures import labels_table_competition
from tests.layouts.tables.text_miniatures import insults_competition, shares_competition
from tests.pipeline.plain_runs import plain_competition_run

RUN_LIMITS = ["agent.max_steps=3", "search.num_drafts=2", "search.parallel=2"]


def uid_images(root: Path) -> Path:
    rewrite_ids(labels_table_competition(root), "dotted-uid")
    return root


def na_text(root: Path) -> Path:
    put_text_values(shares_competition(root), "comment_text", NA_WORDS, csv.QUOTE_MINIMAL)
    return root


def bom_crlf(root: Path) -> Path:
    reencode(insults_competition(root), "crlf")
    reencode(root, "utf-8-sig")
    return root


def cjk_upper_files(root: Path) -> Path:
    rewrite_ids(labels_table_competition(root), "cjk")
    upper_extensions(root)
    return root


def word_classes(root: Path) -> Path:
    return class_table(root, list(NA_WORDS), only_in_test=("unseen",))


# Each variant: its builder, and what a working model reaches (bright vs dark images are told apart; the
# insults' and comments' words tell them; each class has its own band of x, bar the class no training row has).
VARIANTS: dict[str, tuple[Callable[[Path], Path], Callable[[float], bool]]] = {
    "dotted-uid-ids": (uid_images, lambda score: score > 0.8),
    "na-words-as-text": (na_text, lambda score: score > 0.7),
    "bom-and-crlf": (bom_crlf, lambda score: score > 0.8),
    "cjk-ids-upper-case-files": (cjk_upper_files, lambda score: score > 0.8),
    "na-words-as-classes": (word_classes, lambda score: score > 0.6),
}


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_no_key_run_on_real_forms_delivers_a_graded_submission(
    tmp_path: Path, base_overrides: list[str], monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    build, good_enough = VARIANTS[variant]
    competition = build(tmp_path / "forms")
    overrides = [o for o in base_overrides if not o.startswith("data.competition=")]
    summary = plain_competition_run([*overrides, *RUN_LIMITS], tmp_path / "run", competition)
    assert summary["validation_source"] == "harness", summary
    assert summary["good_nodes"] >= 1, summary
    grade = summary["grade"]
    assert grade["valid"] and good_enough(grade["score"]), grade
