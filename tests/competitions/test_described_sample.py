"""A public dir without a sample submission whose description shows the submission file (issue 29, point 1):
billion-word-imputation ships only `train_v2.txt.zip` and `test_v2.txt.zip`, and its description says "test.csv
is a valid submission file itself" above the header `id,"sentence"`. The loader takes the test table whose header
is the one shown for the sample; without such a header or table it still stops, naming what the dir holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from swarm.competitions import CompetitionError, load_competition
from swarm.competitions.grading import score_submission
from tests.layouts.sentences.miniatures import BILLION_WORD_DESCRIPTION, billion_word


def test_the_test_table_with_the_shown_header_is_the_sample(tmp_path: Path) -> None:
    competition = load_competition(str(billion_word(tmp_path / "bw")), tmp_path / "cache")
    assert competition.sample_submission.name == "test_v2.txt"
    assert competition.metric is not None
    assert (competition.metric.id_column, competition.metric.target_columns) == ("id", ("sentence",))
    # the test table itself is a valid submission: each sentence one word short of the answer
    score = score_submission(competition, competition.sample_submission)
    assert 0 < score < 12


@pytest.mark.parametrize(
    "description",
    [
        BILLION_WORD_DESCRIPTION.replace('id,"sentence"', 'id,"text"'),  # a header no test table has
        BILLION_WORD_DESCRIPTION.split("#### Submission File")[0],  # no submission file shown
    ],
    ids=["other header", "none shown"],
)
def test_without_a_shown_header_matching_a_test_table_the_load_still_stops(
    tmp_path: Path, description
) -> None:
    root = billion_word(tmp_path / "bw")
    (root / "prepared" / "public" / "description.md").write_text(description)
    with pytest.raises(CompetitionError, match=r"sample_submission.csv is missing, and no other table"):
        load_competition(str(root), tmp_path / "cache")
