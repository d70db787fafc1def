"""The one trimming rule: never over budget, both ends kept, the cut reported."""

from __future__ import annotations

import re

import pytest

from swarm.text import trim_middle


@pytest.mark.parametrize("limit", [0, 1, 5, 30, 31, 60, 200, 999])
def test_trim_middle_never_exceeds_budget(limit):
    text = "abc\n" * 300 + "x" * 500
    got = trim_middle(text, limit)
    assert len(got) <= limit
    if limit >= 60:
        assert got.endswith("x" * 10)


def test_trim_middle_reports_what_was_cut():
    text = "A" * 100 + "\n" + "B" * 1000 + "\n" + "C" * 100
    got = trim_middle(text, 300)
    match = re.search(r"\n\[\.\.\. (\d+) chars, (\d+) lines cut \.\.\.\]\n", got)
    assert match is not None
    head, tail = got[: match.start()], got[match.end() :]
    assert text.startswith(head) and text.endswith(tail)
    assert len(head) + int(match[1]) + len(tail) == len(text)
    with pytest.raises(ValueError, match="limit"):
        trim_middle("x", -1)


def test_trim_middle_takes_none_and_splits_the_room_as_asked():
    assert trim_middle(None, 10) == ""
    text = "H" * 1000 + "T" * 1000
    tail_heavy = trim_middle(text, 400, head_fraction=0.25)
    assert tail_heavy.count("H") < tail_heavy.count("T")
    assert trim_middle(text, 400, head_fraction=1.0).endswith("cut ...]\n")
    with pytest.raises(ValueError, match="head_fraction"):
        trim_middle(text, 400, head_fraction=1.5)
