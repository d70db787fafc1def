"""CSV tables in the encodings real competitions ship: UTF-8 with a byte-order mark and CRLF line ends, on every
miniature's public CSVs (each must still load, split into its census layout and pass the offline coder's
preflight), and Latin-1 bytes in the text tables' free text, past each file's first row: the harness refuses in
one sentence naming the file, and so must the no-key run before its first step."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from flows.run_competition import main
from tests.conformance.checks import build_miniature, layout_found, refusal, split_variant
from tests.conformance.ids import Unrepresentable
from tests.conformance.test_cell_forms import TEXT_TABLES
from tests.conformance.variants import ACCENTED, put_text_values, reencode, text_column
from tests.evaluation.census_miniatures import MINIATURES
from tests.layouts.test_registry import census_layouts


@pytest.mark.parametrize("encoding", ["utf-8-sig", "crlf"])
@pytest.mark.parametrize("competition_id", sorted(MINIATURES))
def test_csvs_with_a_bom_or_crlf_line_ends_split_as_they_did(
    tmp_path: Path, competition_id: str, encoding: str
) -> None:
    root = build_miniature(competition_id, tmp_path)
    if not reencode(root, encoding):
        pytest.skip(f"{competition_id} has no public CSV outside its archives")
    split = split_variant(root, tmp_path, competition_id=competition_id)
    assert layout_found(split, tmp_path) == census_layouts()[competition_id]


def latin1_variant(competition_id: str, tmp_path: Path) -> Path:
    """The text table with accented text in its free-text column, its public CSVs written as Latin-1."""
    root = build_miniature(competition_id, tmp_path)
    put_text_values(root, text_column(root / "prepared" / "public", set()), ACCENTED)
    try:
        reencode(root, "latin-1")
    except Unrepresentable as exc:
        pytest.skip(f"{competition_id} in Latin-1: {exc}")
    return root


@pytest.mark.parametrize("competition_id", TEXT_TABLES)
def test_latin1_tables_are_refused_naming_the_file(tmp_path: Path, competition_id: str) -> None:
    message = refusal(latin1_variant(competition_id, tmp_path), tmp_path, competition_id=competition_id)
    assert "is not UTF-8 text (byte 0x" in message, message
    assert message.split(" ")[0] in {p.name for p in (tmp_path / competition_id).rglob("*.csv")}, message


def test_the_no_key_run_refuses_latin1_tables_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = latin1_variant("spooky-author-identification", tmp_path)
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    args = ["--no-live", "--data-dir", str(root), "--set", f"project.runs_dir={tmp_path / 'runs'}"]
    code = main([*args, "--set", "execution.sandbox=unsafe-local"])
    err = capsys.readouterr().err
    error = [line for line in err.splitlines() if line.startswith("error: ")]
    assert code == 2 and len(error) == 1 and "Traceback" not in err, err[-2000:]
    named = [n for n in ("train.csv", "test.csv") if f"{n} is not UTF-8 text (byte 0x" in error[0]]
    assert named, error[0]  # the accented text is in both tables' free-text column
    assert not os.path.exists(tmp_path / "runs") or not os.listdir(tmp_path / "runs")
