"""Output capture and traceback parsing."""

from __future__ import annotations

import pytest

from sandbox.result import ExecutionResult, OutputCollector, parse_traceback


def test_collector_keeps_short_output_whole_and_decodes_split_utf8():
    col = OutputCollector(1000)
    data = "héllo wörld ✓\n".encode()
    for i in range(len(data)):  # one byte at a time, splitting multi-byte characters
        col.feed(data[i : i + 1])
    assert col.text() == ("héllo wörld ✓\n", False)


def test_collector_keeps_head_and_tail_with_cut_marker():
    col = OutputCollector(100)
    col.feed(b"H" * 50)
    for _ in range(1000):
        col.feed(b"m" * 10)
    col.feed(b"T" * 50)
    text, cut = col.text()
    assert cut
    assert text.startswith("H" * 50)
    assert text.endswith("T" * 50)
    assert "[10000 characters cut]" in text
    assert col.total_chars == 10_100


def test_collector_rejects_tiny_limits():
    with pytest.raises(ValueError, match="max_chars must be at least 100"):
        OutputCollector(10)


def test_parse_traceback_takes_the_last_one_of_a_chain():
    output = (
        "starting\n"
        "Traceback (most recent call last):\n"
        '  File "/w/solution.py", line 3, in <module>\n'
        "    int('x')\n"
        "ValueError: invalid literal for int() with base 10: 'x'\n"
        "\nDuring handling of the above exception, another exception occurred:\n\n"
        "Traceback (most recent call last):\n"
        '  File "/w/solution.py", line 5, in <module>\n'
        "    train(df)\n"
        '  File "/w/solution.py", line 9, in train\n'
        "    raise RuntimeError('bad: data')\n"
        "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "RuntimeError: bad: data\n"
    )
    exc_type, exc_info, stack = parse_traceback(output)
    assert exc_type == "RuntimeError"
    assert exc_info == "bad: data"
    assert [(f.file, f.line, f.function) for f in stack] == [
        ("/w/solution.py", 5, "<module>"),
        ("/w/solution.py", 9, "train"),
    ]
    assert stack[1].code == "raise RuntimeError('bad: data')"


def test_parse_traceback_handles_dotted_types_bare_types_and_no_traceback():
    dotted = 'Traceback (most recent call last):\n  File "a.py", line 1, in <module>\nnumpy.core._exceptions._ArrayMemoryError: Unable to allocate\n'
    assert parse_traceback(dotted)[:2] == ("numpy.core._exceptions._ArrayMemoryError", "Unable to allocate")
    bare = 'Traceback (most recent call last):\n  File "a.py", line 2, in <module>\nKeyboardInterrupt\n'
    assert parse_traceback(bare)[:2] == ("KeyboardInterrupt", None)
    assert parse_traceback("all good\n") == (None, None, [])


def test_parse_traceback_reads_a_script_that_does_not_compile():
    """Python prints no "Traceback" header when the script itself fails to compile."""
    output = 'starting\n  File "/n/solution.py", line 6\n    key = (row["Sex"]\n          ^\nSyntaxError: \'(\' was never closed\n'
    exc_type, exc_info, stack = parse_traceback(output)
    assert (exc_type, exc_info) == ("SyntaxError", "'(' was never closed")
    assert [(f.file, f.line, f.code) for f in stack] == [("/n/solution.py", 6, 'key = (row["Sex"]')]
    indented = '  File "/n/solution.py", line 2\n    print(1)\nIndentationError: unexpected indent\n'
    assert parse_traceback(indented)[:2] == ("IndentationError", "unexpected indent")


def test_result_round_trips_through_json():
    result = ExecutionResult(output="x", exit_code=0, exec_time=0.5, backend="local", files=["working/a"])
    again = ExecutionResult.model_validate_json(result.model_dump_json())
    assert again == result
    assert again.succeeded
    assert not result.model_copy(update={"timed_out": True}).succeeded
