"""The harness split of twin tables of groups (nfl-player-contact-detection's layout, issue 29): whole game plays
held out, their rows of every `train_<x>.csv` moved to `test_<x>.csv` and their videos to `test/`, their labels
kept by the harness alone; and the offline coder's reading of the test's contacts from their ids."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from swarm.competitions import load_competition_dir
from swarm.formats.id_parts import id_part_columns
from swarm.layouts.holdout import build_holdout
from swarm.layouts.twins.reader import group_of, twin_fields
from tests.layouts.twins.miniatures import nfl_contact


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def test_whole_game_plays_move_to_the_test_side_with_their_rows_and_videos(tmp_path: Path) -> None:
    root = nfl_contact(tmp_path / "c")
    competition = load_competition_dir(root)
    public = competition.public_dir
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, seed=3)
    view = holdout.public_dir

    original = read(public / "train_labels.csv")
    labels = read(holdout.labels_path)
    own = holdout.own_ids("held")  # every game play of the test side has a fresh key; each row's own is here
    own_contacts = labels["contact_id"].map(own)
    held_plays = set(original.set_index("contact_id").loc[own_contacts, "game_play"])
    assert holdout.split == "group:game_play" and len(held_plays) == 2
    # every contact of a held-out game play is held out, with its own label
    assert set(own_contacts) == set(original.loc[original["game_play"].isin(held_plays), "contact_id"])
    truth = original.set_index("contact_id")["contact"]
    assert (labels["contact"].to_numpy() == truth.loc[own_contacts].to_numpy()).all()
    # the view's labels table keeps the other game plays whole, and none of the held-out ones
    kept = read(view / "train_labels.csv")
    assert not set(kept["game_play"]) & held_plays and len(kept) + len(labels) == len(original)
    # the sample lists the test's contacts and the held-out ones, each once
    sample, test_sample = read(view / "sample_submission.csv"), read(public / "sample_submission.csv")
    assert sorted(sample["contact_id"]) == sorted([*holdout.own_ids("test"), *labels["contact_id"]])
    assert sorted(holdout.own_ids("test").values()) == sorted(test_sample["contact_id"])
    # each twin's held-out rows are on the test side only, the test's rows all still there
    for name in ("baseline_helmets", "player_tracking", "video_metadata"):
        train_view, test_view = read(view / f"train_{name}.csv"), read(view / f"test_{name}.csv")
        train_before, test_before = read(public / f"train_{name}.csv"), read(public / f"test_{name}.csv")
        moved = train_before[train_before["game_play"].isin(held_plays)]
        assert not set(train_view["game_play"]) & held_plays and len(moved) > 0
        assert len(test_view) == len(test_before) + len(moved) and list(test_view.columns) == list(
            test_before.columns
        )
        fresh = {group_of(i, set(test_view["game_play"])) for i in sample["contact_id"]}
        assert set(test_view["game_play"]) == fresh and not fresh & (
            set(test_before["game_play"]) | held_plays
        )
    # the videos of a held-out game play are in test/, under its fresh key, and no longer in train/
    fresh_plays = {group_of(i, fresh) for i in labels["contact_id"]}
    assert len(fresh_plays) == len(held_plays) > 0
    for play in fresh_plays:
        for view_name in ("All29", "Endzone", "Sideline"):
            assert (view / "test" / f"{play}_{view_name}.mp4").is_file()
    for play in held_plays:
        for view_name in ("All29", "Endzone", "Sideline"):
            assert not (view / "train" / f"{play}_{view_name}.mp4").exists()
    assert sorted(holdout.file_dirs) == ["test", "train"]
    # no file of the view holds a held-out contact's label: the only table with `contact` is the kept labels
    tables = sorted(view.rglob("*.csv"))
    assert {"train_labels.csv", "sample_submission.csv"} <= {p.name for p in tables}
    for path in tables:
        frame = read(path)
        if "contact" in frame.columns and path.name != "sample_submission.csv":
            assert path.name == "train_labels.csv" and not set(frame["contact_id"]) & set(own_contacts)


def test_the_layout_is_found_only_where_ids_start_with_a_twin_group(tmp_path: Path) -> None:
    root = nfl_contact(tmp_path / "c")
    public = root / "prepared" / "public"
    ids = read(public / "sample_submission.csv")["contact_id"].tolist()
    names = sorted(p.name for p in public.iterdir())
    layout = twin_fields(str(public), names, "contact_id", ["contact"], ids)
    assert layout is not None and layout["group"] == "game_play" and len(layout["twins"]) == 3
    assert twin_fields(str(public), names, "contact_id", ["contact"], [*ids, "99999_000001_0_1_G"]) is None
    (public / "test_baseline_helmets.csv").unlink()
    (public / "test_player_tracking.csv").unlink()
    (public / "test_video_metadata.csv").unlink()
    names = sorted(p.name for p in public.iterdir())
    assert twin_fields(str(public), names, "contact_id", ["contact"], ids) is None
    # the longest group an id starts with, ended by "_"
    assert group_of("58_1_0_7_G", {"58", "58_1"}) == "58_1" and group_of("581_0", {"58"}) is None


def test_the_layout_is_found_in_tables_that_begin_with_a_byte_order_mark(tmp_path: Path) -> None:
    """CSVs saved with a BOM: the header read for the layout is pandas' (a raw read had made the first column
    '\\ufeffcontact_id', so the twins went unseen and the harness split a plain table)."""
    public = nfl_contact(tmp_path / "c") / "prepared" / "public"
    for path in public.glob("*.csv"):
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    ids = read(public / "sample_submission.csv")["contact_id"].tolist()
    names = sorted(p.name for p in public.iterdir())
    layout = twin_fields(str(public), names, "contact_id", ["contact"], ids)
    assert layout is not None and layout["group"] == "game_play"


def test_the_offline_coder_reads_the_labelled_columns_an_id_joins() -> None:
    head = pd.DataFrame(
        {
            "contact_id": ["58_001_0_7_G", "58_001_3_7_9"],
            "game_play": ["58_001", "58_001"],
            "datetime": ["t0", "t3"],
            "step": ["0", "3"],
            "nfl_player_id_1": ["7", "7"],
            "nfl_player_id_2": ["G", "9"],
            "contact": ["1", "0"],
        }
    )
    parts = ["game_play", "step", "nfl_player_id_1", "nfl_player_id_2"]
    assert id_part_columns(head, "contact_id", ["contact"]) == parts
    # a later part holding "_" cannot be split back from the right: no columns
    odd = head.assign(nfl_player_id_2=["G_1", "9_1"], contact_id=["58_001_0_7_G_1", "58_001_3_7_9_1"])
    assert id_part_columns(odd, "contact_id", ["contact"]) is None
    # ids that join no columns
    assert id_part_columns(head.assign(contact_id=["a", "b"]), "contact_id", ["contact"]) is None


def test_every_test_and_held_out_game_play_gets_a_fresh_key(tmp_path: Path) -> None:
    """With enough game plays to draw from (`<game>_<play>`, digits in their places), every game play of the test
    side is renamed alike in the twins' test tables, the videos' names and the sample's ids."""
    root = nfl_contact(tmp_path / "nfl", n_plays=40, n_test=10)
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25, seed=0)
    view, public = holdout.public_dir, root / "prepared" / "public"
    assert holdout.fresh_ids, holdout.describe_ids()
    own_plays = set(read(public / "test_player_tracking.csv")["game_play"]) | set(
        read(public / "train_labels.csv")["game_play"]
    )
    plays = set(read(view / "test_player_tracking.csv")["game_play"])
    assert plays == set(read(view / "test_video_metadata.csv")["game_play"]) and not plays & own_plays
    assert {group_of(i, plays) for i in read(view / "sample_submission.csv")["contact_id"]} == plays
    assert {p.name.rsplit("_", 1)[0] for p in (view / "test").iterdir()} == plays
    own = {**holdout.own_ids("test"), **holdout.own_ids("held")}
    assert len(own) >= 20
    for contact in list(own)[:20]:  # each video under its fresh game play is its own game play's
        play, mine = group_of(contact, plays), group_of(own[contact], own_plays)
        side = "test" if contact in holdout.own_ids("test") else "train"
        assert (view / "test" / f"{play}_Endzone.mp4").read_bytes() == (
            public / side / f"{mine}_Endzone.mp4"
        ).read_bytes()
