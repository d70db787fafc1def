"""swarm.pipeline.heap: the process's long-lived objects frozen once, out of the collector's full walks."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from swarm.config import load_config
from swarm.pipeline import heap
from swarm.pipeline.context import create_run, open_run
from swarm.pipeline.schedule import start_epoch


def test_the_first_call_freezes_what_is_alive_and_later_calls_do_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(heap, "_frozen", False)
    alive = [[i] for i in range(1000)]  # tracked containers not frozen yet
    before = gc.get_freeze_count()
    assert heap.freeze_long_lived() is True
    frozen = gc.get_freeze_count()
    assert frozen >= before + len(alive)
    later = [[i] for i in range(1000)]
    assert heap.freeze_long_lived() is False
    # `later` stays with the collector (frozen objects of the process may die meanwhile, as a test runner's threads'
    # do, so the count may fall: it must not grow by what `later` holds)
    assert gc.get_freeze_count() < frozen + len(later)
    assert later and alive


def test_an_epoch_start_freezes_the_process_heap(
    tmp_path: Path, base_overrides: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(heap, "_frozen", False)
    rc, journal, state = open_run(create_run(load_config(None, base_overrides), tmp_path / "run").root)
    before = gc.get_freeze_count()
    start_epoch(rc, journal, state, 1)
    assert heap._frozen and gc.get_freeze_count() > before
