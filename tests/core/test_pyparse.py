"""`parse_python` lets one thread parse at a time (CPython 3.11's AST converter shares its recursion depth between
threads, gh-106905: a run's parallel steps failed with "AST constructor recursion depth mismatch")."""

from __future__ import annotations

import ast
import threading
from types import SimpleNamespace

import pytest

import swarm.pyparse as pyparse


def test_two_threads_never_parse_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    count, most, both = threading.Lock(), [0, 0], threading.Event()  # [parsing now, most at once]
    real_parse = ast.parse

    def watched_parse(source: str) -> ast.Module:
        with count:
            most[0] += 1
            most[1] = max(most)
            if most[0] == 2:
                both.set()
        both.wait(timeout=1.0)  # the other thread gets a second to enter too: only a lock keeps it out
        with count:
            most[0] -= 1
        return real_parse(source)

    monkeypatch.setattr(pyparse, "ast", SimpleNamespace(parse=watched_parse))  # this module's `ast` alone
    threads = [threading.Thread(target=pyparse.parse_python, args=("x = 1",)) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most[1] == 1 and not both.is_set()


def test_it_parses_as_ast_does() -> None:
    assert ast.dump(pyparse.parse_python("y = [1, 2]")) == ast.dump(ast.parse("y = [1, 2]"))
