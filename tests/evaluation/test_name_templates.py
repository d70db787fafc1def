"""File names made from ids (`swarm.evaluation.name_templates`): the rule is read from the test examples' own
names and kept only where it gives every one of them back."""

from __future__ import annotations

from swarm.evaluation.name_templates import name_template


def test_herbarium_names_a_folder_per_thousand_and_padded_numbers() -> None:
    ids = [str(k) for k in (0, 7, 999, 1000, 2345, 13001)]
    herbarium_2020 = [f"images/{k // 1000:03d}/{k}.jpg" for k in map(int, ids)]
    herbarium_2022 = [f"{k // 1000:03d}/test-{k:06d}.jpg" for k in map(int, ids)]
    rule = name_template(ids, herbarium_2020)
    assert (
        rule is not None
        and [rule(i) for i in ids] == herbarium_2020
        and rule("40512") == "images/040/40512.jpg"
    )
    rule = name_template(ids, herbarium_2022)
    assert (
        rule is not None and [rule(i) for i in ids] == herbarium_2022 and rule("512") == "000/test-000512.jpg"
    )


def test_an_id_within_a_name_keeps_the_text_around_it() -> None:
    ids = ["8b2f1e4a-1933-11ea-a7d1-eed471f9a0b0", "0c1d2e3f-1933-11ea-9c2a-aa0000000001"]
    rule = name_template(ids, [f"{i}.jpg" for i in ids])
    assert (
        rule is not None
        and rule("ffff0000-1933-11ea-0000-000000000000") == "ffff0000-1933-11ea-0000-000000000000.jpg"
    )


def test_names_that_do_not_follow_the_ids_give_no_rule() -> None:
    ids = ["1", "2", "3"]
    assert name_template(ids, ["a.jpg", "b.jpg", "c.jpg"]) is None
    assert name_template(ids, ["x/1.jpg", "y/2.jpg", "x/3.jpg"]) is None  # a folder no rule gives
    assert name_template(ids, ["1.jpg", "2.jpg"]) is None
