"""Fresh ids for the view's test side (issue 30, point 2): drawn in the test ids' format and range, handed out in
the view's row order, and kept (saying why) where ids carry meaning or something else names them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions import load_competition_dir
from swarm.evaluation import fresh_files
from swarm.evaluation.fresh_ids import draw_fresh_ids
from swarm.evaluation.harness import Harness
from swarm.evaluation.metric_choice import SOURCE_COMPETITION_JSON, MetricChoice
from swarm.layouts.holdout import build_holdout
from swarm.layouts.qa.split import line_id
from swarm.pipeline.evaluation_setup import load_evaluation, prepare_evaluation
from tests.layouts.tables.miniatures import (
    binary_competition,
    filed_by_first_character,
    image_competition,
    make_competition,
    read,
)


def draw(test_ids: list[str], taken: set[str], n_held: int, seed: int = 0):
    order = np.random.default_rng(seed).permutation(len(test_ids) + n_held)
    return draw_fresh_ids(order, test_ids, taken, n_held, np.random.default_rng(seed + 1)), order


def test_numbered_ids_fill_the_test_range_as_densely_as_the_test_ids() -> None:
    """titanic: train 1-891, test 892-1309; with 196 held out the view's ids are 892-1505, one each."""
    fresh, order = draw([str(i) for i in range(892, 1310)], {str(i) for i in range(1, 892)}, 196)
    every = [*fresh.test, *fresh.held]
    assert fresh.fresh and sorted(map(int, every)) == list(range(892, 1506))
    assert [every[i] for i in order] == sorted(every, key=int)  # ascending down the view's rows


def test_sparse_numbered_ids_stay_in_their_range_and_skip_training_ids() -> None:
    test_ids = [str(i) for i in range(1000, 3000, 4)]  # 500 ids, one in four numbers
    taken = {str(i) for i in range(1001, 3000, 4)} | {str(i) for i in range(1, 1000)}
    fresh, _ = draw(test_ids, taken, 200)
    drawn = [int(i) for i in (*fresh.test, *fresh.held)]
    assert len(set(drawn)) == 700 and not {str(i) for i in drawn} & taken
    assert min(drawn) >= 1000 and max(drawn) < 1000 + 2 * 4 * 700  # about as dense as the test ids


def test_prefixed_padded_hex_and_uuid_ids_keep_their_format() -> None:
    padded, _ = draw([f"img_{i:03d}" for i in range(1, 11)], {f"img_{i:03d}" for i in range(1, 41)}, 10)
    assert all(re.fullmatch(r"img_\d{3}", i) for i in padded.test + padded.held)
    assert not {*padded.test, *padded.held} & {f"img_{i:03d}" for i in range(1, 41)}
    rng = np.random.default_rng(3)
    hex_ids = [f"id_{''.join(rng.choice(list('0123456789abcdef'), 9))}" for _ in range(30)]
    prefixed, _ = draw(hex_ids, set(), 10)
    assert all(re.fullmatch(r"id_[0-9a-f]{9}", i) for i in prefixed.test + prefixed.held)
    uuids = [f"{rng.integers(16**8):08x}-{rng.integers(16**4):04x}-11e8-a6a3-ec086b02610b" for _ in range(30)]
    shaped, _ = draw(uuids, set(), 10)
    assert all(re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-11e8-a6a3-ec086b02610b", i) for i in shaped.held)
    assert len({*shaped.test, *shaped.held}) == 40


def test_signed_64_bit_ids_are_drawn_as_signed_numbers_in_their_range() -> None:
    """tensorflow2-question-answering's example ids: random signed 64-bit numbers, both signs."""
    rng = np.random.default_rng(5)
    test_ids = [str(int(n)) for n in rng.integers(-(2**63) + 1, 2**63 - 1, size=50)]
    taken = {str(int(n)) for n in rng.integers(-(2**63) + 1, 2**63 - 1, size=200)}
    fresh, _ = draw(test_ids, taken, 20)
    drawn = [*fresh.test, *fresh.held]
    assert fresh.fresh and len(set(drawn)) == 70 and not set(drawn) & (taken | set(test_ids))
    assert all(re.fullmatch(r"-?[1-9]\d*", i) and -(2**63) <= int(i) < 2**63 for i in drawn)
    assert any(i.startswith("-") for i in drawn) and any(not i.startswith("-") for i in drawn)


def test_dotted_uids_ending_in_numbers_beyond_64_bits_get_fresh_ones_of_their_form() -> None:
    """ranzcr's StudyInstanceUIDs: `1.2.826.0.1.3680043.8.498.<38 digits>`, random numbers far beyond 64 bits."""
    rng = np.random.default_rng(11)
    tails = [
        int(a) * 10**19 + int(b) for a, b in rng.integers(10**18, 10**19 - 1, size=(90, 2), dtype=np.uint64)
    ]
    uids = [f"1.2.826.0.1.3680043.8.498.{tail}" for tail in tails]
    test_ids, taken = uids[:30], set(uids[30:])
    fresh, _ = draw(test_ids, taken, 20)
    drawn = [*fresh.test, *fresh.held]
    assert fresh.fresh and len(set(drawn)) == 50 and not set(drawn) & (taken | set(test_ids))
    assert all(re.fullmatch(r"1\.2\.826\.0\.1\.3680043\.8\.498\.[1-9]\d{37}", i) for i in drawn)
    low, high = min(tails[:30]), max(tails[:30])
    assert all(low <= int(i.rsplit(".", 1)[1]) < 10**38 for i in drawn) and high > 2**64


def test_plain_numbers_beyond_64_bits_skip_the_taken_ones_in_a_dense_range() -> None:
    """Ids that are numbers past 2**64 lying close together: drawn one by one in their range, none taken."""
    base = 10**30
    test_ids = [str(base + i) for i in range(0, 200, 2)]
    taken = {str(base + i) for i in range(1, 200, 2)}
    fresh, _ = draw(test_ids, taken, 40)
    drawn = [int(i) for i in (*fresh.test, *fresh.held)]
    assert fresh.fresh and len(set(drawn)) == 140 and not {str(i) for i in drawn} & taken
    assert min(drawn) >= base and max(drawn) < base + 2 * 2 * 140


def test_a_json_lines_record_id_is_read_from_its_last_key() -> None:
    text = json.dumps({"document_text": 'a "example_id": 7 inside', "example_id": "-42"})
    assert line_id(text, "example_id") == "-42"
    assert line_id('{"example_id": 123, "x": 1}', "example_id") == "123"
    assert line_id('{"other": 1}', "example_id") is None


def test_numbers_of_one_length_stay_within_it_padded_as_the_training_ids() -> None:
    """siim-isic's `ISIC_<7 digits>`: sparse test numbers would reach 8 digits at the test ids' density."""
    rng = np.random.default_rng(9)
    test_ids = [f"ISIC_{n:07d}" for n in sorted(rng.choice(np.arange(1_000_000, 10**7), 30, replace=False))]
    taken = {f"ISIC_{n:07d}" for n in rng.choice(10**6, 50, replace=False)}  # zero-padded training ids
    fresh, _ = draw(test_ids, taken, 20)
    drawn = [*fresh.test, *fresh.held]
    assert fresh.fresh and len(set(drawn)) == 50 and not set(drawn) & taken
    assert all(re.fullmatch(r"ISIC_\d{7}", i) for i in drawn)
    room, _ = draw([str(n) for n in range(10, 100)], set(), 40)  # no room among two digits: they grow longer
    assert room.fresh and len({*room.test, *room.held}) == 130


def test_a_lone_letter_name_is_drawn_among_letters_of_its_case() -> None:
    """vesuvius: the test fragment `a`, the training fragments `1` and `2` (one of them held out)."""
    fresh, _ = draw(["a"], {"1", "2"}, 1)
    assert fresh.fresh and len({*fresh.test, *fresh.held}) == 2
    assert all(re.fullmatch(r"[a-z]", i) for i in (*fresh.test, *fresh.held))
    upper, _ = draw(["XY", "QZ"], {"EF"}, 3)
    assert all(re.fullmatch(r"[A-Z]{2}", i) and i != "EF" for i in (*upper.test, *upper.held))


def test_hex_tokens_sharing_digits_are_drawn_over_their_whole_width() -> None:
    """3d-object's sample tokens: 64 hex digits; test tokens numbered alike leave little room in their shape."""
    test_ids = [f"{n:064x}" for n in range(0x1380, 0x13A0)]
    taken = {f"{n:064x}" for n in range(0x1000, 0x1380)} | {f"d{n:063x}" for n in range(500)}
    fresh, _ = draw(test_ids, taken, 20)
    drawn = [*fresh.test, *fresh.held]
    assert fresh.fresh and len(set(drawn)) == 52 and not set(drawn) & taken
    assert all(re.fullmatch(r"[0-9a-f]{64}", i) for i in drawn)
    short, _ = draw(["00ab", "00ac"], set(), 100)  # short hex ids are no tokens: no room, kept
    assert not short.fresh


def test_ids_of_no_known_format_are_kept_saying_why() -> None:
    fresh, _ = draw(["alpha", "beta-2x", "gamma"], set(), 2)
    assert not fresh.fresh and "'alpha'" in fresh.kept


def test_ids_that_follow_a_date_column_are_kept_and_the_run_says_so(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    days = pd.date_range("2020-01-01", periods=130).strftime("%Y-%m-%d")
    train = pd.DataFrame(
        {"id": range(1, 101), "date": days[:100], "x": rng.normal(size=100), "y": rng.normal(size=100)}
    )
    test = pd.DataFrame({"id": range(101, 131), "date": days[100:], "x": rng.normal(size=30)})
    sample = pd.DataFrame({"id": range(101, 131), "y": 0.0})
    root = make_competition(tmp_path / "c", train, test, sample, "rmse")
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2)
    assert not holdout.fresh_ids and "follow the order of date" in holdout.describe_ids()
    assert set(read(holdout.public_dir / "test.csv")["id"]) >= {str(i) for i in range(101, 131)}


def test_competition_json_keep_ids_keeps_them_and_a_side_table_keyed_by_them_follows_them(
    tmp_path: Path,
) -> None:
    root = binary_competition(tmp_path / "c")
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "accuracy"}, "keep_ids": True}))
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2)
    assert not holdout.fresh_ids and '"keep_ids": true' in holdout.describe_ids()

    root = binary_competition(tmp_path / "d")
    public = root / "prepared" / "public"
    pd.DataFrame({"id": range(1001, 1051), "extra": 1}).to_csv(public / "test_extra.csv", index=False)
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h2", fraction=0.2)
    assert holdout.fresh_ids
    extra = read(
        holdout.public_dir / "test_extra.csv"
    )  # the test rows under their fresh ids, as test.csv has them
    own = holdout.own_ids("test")
    assert sorted(extra["id"], key=int) == sorted(own, key=int) and {own[i] for i in extra["id"]} == {
        str(i) for i in range(1001, 1051)
    }
    assert read(root / "prepared" / "public" / "test_extra.csv")["id"].tolist() == [
        str(i) for i in range(1001, 1051)
    ]
    pd.DataFrame({"id": range(1001, 1051)}).to_parquet(
        public / "test_extra.parquet"
    )  # not rewritten: ids kept
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h3", fraction=0.2)
    assert not holdout.fresh_ids and "test_extra.parquet names rows by id" in holdout.describe_ids()


def test_the_harness_delivers_the_test_rows_under_their_own_ids(tmp_path: Path) -> None:
    competition = load_competition_dir(binary_competition(tmp_path / "c"))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, seed=1)
    assert holdout.fresh_ids and "fresh id" in holdout.describe_ids()
    view = read(holdout.public_dir / "sample_submission.csv")
    own = holdout.own_ids("test")
    path = tmp_path / "s.csv"
    view.assign(y=[own.get(i, "0")[-1] for i in view["id"]]).to_csv(
        path, index=False
    )  # a test row's own id's digit
    result = Harness(holdout, competition.metric, competition.sample_submission).evaluate(
        path, tmp_path / "t.csv"
    )
    delivered = read(tmp_path / "t.csv")
    assert result.problem is None and list(delivered["id"]) == list(read(competition.sample_submission)["id"])
    assert (delivered["y"] == delivered["id"].str[-1]).all()  # each row's prediction went with its own id


def test_files_filed_by_their_first_characters_are_renamed_into_their_new_folders(tmp_path: Path) -> None:
    """seti's `test/<c>/<id>.npy`: each test and held-out file under the folder of its fresh id's first
    character, holding its own row's bytes."""
    root = filed_by_first_character(image_competition(tmp_path / "seti"))
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25, seed=1)
    assert holdout.fresh_ids, holdout.describe_ids()
    test = holdout.public_dir / "test"
    files = {p.stem: p for p in test.rglob("*.tif")}
    assert set(files) == set(read(holdout.public_dir / "sample_submission.csv")["id"])
    assert all(path.parent.name == stem[0] for stem, path in files.items())
    assert holdout.own_ids("held") and holdout.own_ids("test")
    for view_id, own in holdout.own_ids("held").items():
        assert files[view_id].read_bytes() == f"train/{own}".encode()
    for view_id, own in holdout.own_ids("test").items():
        assert files[view_id].read_bytes() == f"test/{own}".encode()


def test_hex_ids_too_short_to_draw_from_are_kept() -> None:
    fresh, _ = draw([f"id_{i:02x}" for i in range(200)], set(), 100)  # 256 two-digit names for 300 rows
    assert not fresh.fresh and "'id_00'" in fresh.kept


def test_the_run_says_before_its_first_step_whether_ids_are_fresh_or_kept(tmp_path: Path) -> None:
    choice = MetricChoice("accuracy", False, SOURCE_COMPETITION_JSON, "competition.json names 'accuracy'")
    options = {"holdout_fraction": 0.2, "split": "auto", "seed": 0, "max_train_mb": 100.0}
    fresh = prepare_evaluation(
        tmp_path / "r1", load_competition_dir(binary_competition(tmp_path / "c")), choice, **options
    )
    assert fresh.lines()[2] == "ids: every test and held-out row has a fresh id (id) in the sandbox"
    root = binary_competition(tmp_path / "d")
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "accuracy"}, "keep_ids": True}))
    kept = prepare_evaluation(tmp_path / "r2", load_competition_dir(root), choice, **options)
    assert (
        kept.lines()[2]
        == 'ids: the test ids (id) are kept in the sandbox: competition.json says "keep_ids": true'
    )
    assert load_evaluation(tmp_path / "r2").to_dict()["ids"] == kept.lines()[2].removeprefix("ids: ")


def test_test_inputs_over_the_copy_limit_are_linked_and_the_run_says_so(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(fresh_files, "COPY_LIMIT_BYTES", 10)  # the miniature's images are more than 10 bytes
    root = image_competition(tmp_path / "c")
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25, seed=1)
    assert holdout.fresh_ids and "linked under the fresh ids, not copied" in holdout.describe_ids()
    test = holdout.public_dir / "test"
    assert all(path.stat().st_nlink > 1 for path in test.iterdir())  # links of the public files
    assert not list(holdout.public_dir.glob("*.before-fresh-ids"))


def test_held_out_rows_of_a_table_without_ids_are_recorded_with_no_own_id(tmp_path: Path) -> None:
    """Where the labelled table has no id column, the held-out rows had no id of their own: the harness's record of
    which view id is which row's says so, rather than naming their fresh ids as their own."""
    rng = np.random.default_rng(2)
    train = pd.DataFrame({"x": rng.normal(size=60), "y": rng.normal(size=60)})
    test = pd.DataFrame({"id": range(1, 21), "x": rng.normal(size=20)})
    sample = pd.DataFrame({"id": range(1, 21), "y": 0.0})
    root = make_competition(tmp_path / "c", train, test, sample, "rmse")
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2)
    assert holdout.fresh_ids
    known = pd.read_csv(holdout.view_ids_path, dtype=str, keep_default_na=False)
    held, tested = known[known["row"] == "held"], known[known["row"] == "test"]
    assert len(held) == 12 and (held["own"] == "").all()
    assert sorted(tested["own"], key=int) == [str(i) for i in range(1, 21)]
