"""Reading a competition's CSV as it means it (swarm/formats/csv_tables.py): numbers and booleans exactly as
pandas' defaults read them, their "NA" cells missing; text keeps "NA", "None", "null", "N/A" and "nan" as words."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from swarm.formats.csv_tables import NA_TOKENS, holds_missing_tokens, read_csv_as_meant

TABLE = (
    "id,price,count,flag,empty,token,word,all_na\n"
    "1,1.5,3,True,,NA,NA,NA\n"
    "2,,NA,NA,,None,null,NA\n"
    "3,NA,5,False,,null,N/A,NA\n"
    "4,n/a,,True,,nan,,NA\n"
)
NUMERIC = ["id", "price", "count", "flag", "empty"]


def test_the_tokens_are_pandas_own() -> None:
    parsers = pytest.importorskip("pandas._libs.parsers")
    assert frozenset(parsers.STR_NA_VALUES) == NA_TOKENS


def test_numbers_and_booleans_read_as_pandas_defaults_read_them() -> None:
    meant, default = read_csv_as_meant(io.StringIO(TABLE)), pd.read_csv(io.StringIO(TABLE))
    for column in NUMERIC:
        pd.testing.assert_series_equal(meant[column], default[column])
    assert meant["price"].isna().tolist() == [False, True, True, True]


def test_text_keeps_the_words_and_only_an_empty_cell_is_missing() -> None:
    meant = read_csv_as_meant(io.StringIO(TABLE))
    assert meant["token"].tolist() == ["NA", "None", "null", "nan"]
    assert meant["word"].tolist()[:3] == ["NA", "null", "N/A"] and pd.isna(meant["word"].iloc[3])
    assert meant["all_na"].tolist() == ["NA"] * 4  # nothing but "NA": words too (pandas' defaults: no values)
    assert pd.read_csv(io.StringIO(TABLE))["token"].isna().all()  # what pandas' defaults make of them


def test_chunks_and_options() -> None:
    chunks = list(read_csv_as_meant(io.StringIO(TABLE), chunksize=2))
    assert [len(c) for c in chunks] == [2, 2] and chunks[1]["token"].tolist() == ["null", "nan"]
    assert chunks[0]["price"].tolist()[0] == 1.5 and chunks[0]["price"].isna().tolist() == [False, True]
    head = read_csv_as_meant(io.StringIO(TABLE), nrows=1, usecols=["id", "word"])
    assert head.to_dict("list") == {"id": [1], "word": ["NA"]}
    as_text = read_csv_as_meant(io.StringIO(TABLE), dtype=str)
    assert as_text["price"].iloc[2] == "NA" and pd.isna(
        as_text["price"].iloc[1]
    )  # a dtype: as pandas reads it


def test_holds_missing_tokens() -> None:
    assert holds_missing_tokens(["a", "None"]) and holds_missing_tokens(pd.Series(["", "b"]))
    assert not holds_missing_tokens(["a", " NA "]) and not holds_missing_tokens([])
