"""Replies as models write them: loosely spelled gene markers, thinking traces, and replies that are not
Python (JSON, prose)."""

from __future__ import annotations

import pytest

from swarm.ga.genes import missing_sections, split_genes
from swarm.llm.response import ResponseParseError, extract, parse_response
from swarm.protocol import GENE_SECTIONS, canonical_markers, count_markers, parse_metric_line

LOOSE = """import numpy as np

# [SECTION:DATA]
x = np.arange(4)
## SECTION: MODEL
model = 'ridge'
# [Section: LOSS]
loss = 'mse'
#  section - optimizer
opt = 'adam'
# [ SECTION : regularization ]
reg = 0.1
# SECTION: Initialization
init = 0
    # [section: training tricks]
tricks = []
"""


def test_loose_markers_are_rewritten_to_the_canonical_form() -> None:
    code = canonical_markers(LOOSE)
    for name in GENE_SECTIONS:
        assert f"# [SECTION: {name}]" in code
    assert "    # [SECTION: TRAINING_TRICKS]" in code  # indentation kept
    assert count_markers(LOOSE) == len(GENE_SECTIONS)


def test_loose_markers_split_into_their_own_sections() -> None:
    genes = split_genes(LOOSE)
    assert genes["DATA"].strip() == "x = np.arange(4)"
    assert genes["MODEL"].strip() == "model = 'ridge'" and genes["LOSS"].strip() == "loss = 'mse'"
    assert not missing_sections(LOOSE)


@pytest.mark.parametrize("line", ["# Section: data loading", "# sections of the model", "# [SECTION: FOO]"])
def test_ordinary_comments_and_unknown_names_are_left_alone(line: str) -> None:
    assert canonical_markers(line + "\n") == line + "\n"


def test_metric_lines_are_unchanged() -> None:
    line = 'SWARM_METRIC {"name": "rmse", "value": 0.5, "lower_is_better": true}'
    assert parse_metric_line(line).value == 0.5


def test_the_draft_inside_a_thinking_trace_is_not_the_code() -> None:
    reply = (
        "<think>\nFirst idea:\n```python\nprint('draft ' * 1000)\nimport sys\nsys.exit(1)\n```\n"
        "That is too slow.\n</think>\nPlan: the final one.\n\n```python\nprint('final')\n```\n"
    )
    parsed = parse_response(reply)
    assert parsed.code == "print('final')\n"
    assert "draft" not in parsed.plan and "think" not in parsed.plan and parsed.plan == "Plan: the final one."


def test_an_unclosed_closing_tag_from_a_template_marks_the_trace() -> None:
    reply = "Okay, let me write print('draft').\n</think>\n\n```python\nprint('final')\n```"
    assert parse_response(reply).code == "print('final')\n"


@pytest.mark.parametrize(
    "reply",
    [
        '{"is_bug": false, "metric": 0.8}',
        '```json\n{"model": "lightgbm", "folds": 5}\n```',
        "[1, 2, 3]",
        '```python\n{"a": [1, 2, {"b": null}], "c": -1}\n```',
    ],
)
def test_a_json_reply_is_a_parse_failure_not_a_program(reply: str) -> None:
    assert extract(reply) is None
    with pytest.raises(ResponseParseError, match=r"JSON"):
        parse_response(reply)


def test_prose_is_a_parse_failure_with_a_readable_reason() -> None:
    with pytest.raises(ResponseParseError, match="no Python code in the reply"):
        parse_response("I would use gradient boosting with five folds.")


def test_a_program_that_builds_a_dict_is_still_code() -> None:
    assert extract('config = {"a": 1}\nprint(config)\n').code == 'config = {"a": 1}\nprint(config)\n'
