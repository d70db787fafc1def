"""Parsing LLM replies into plan and code, including many malformed replies."""

import pytest

from swarm.llm.response import (
    ParsedResponse,
    ResponseParseError,
    extract,
    extract_code,
    find_fenced_blocks,
    parse_response,
    syntax_error_of,
)
from swarm.protocol import section_marker

SOLUTION = "import pandas as pd\n\ndf = pd.read_csv('train.csv')\nprint(df.shape)\n"


def fenced(code, tag="python", fence="```"):
    return f"{fence}{tag}\n{code}{fence}\n"


def test_plain_reply_with_plan_and_python_block():
    reply = "I will load the data and print its shape.\n\n" + fenced(SOLUTION) + "\nThis is quick."
    parsed = parse_response(reply)
    assert parsed == ParsedResponse(
        plan="I will load the data and print its shape.\n\nThis is quick.", code=SOLUTION, syntax_error=None
    )


@pytest.mark.parametrize(
    "tag", ["python", "py", "Python", "PYTHON", "python3", "py3", "{python}", "python title=x"]
)
def test_python_tag_spellings(tag):
    assert extract_code("Plan.\n" + fenced(SOLUTION, tag=tag)) == SOLUTION


@pytest.mark.parametrize("fence", ["~~~", "````", "~~~~~"])
def test_other_fences(fence):
    assert extract_code("Plan.\n" + fenced(SOLUTION, fence=fence)) == SOLUTION


def test_crlf_and_cr_line_endings():
    reply = ("Plan line.\n" + fenced(SOLUTION) + "Bye.\n").replace("\n", "\r\n")
    parsed = parse_response(reply)
    assert parsed.code == SOLUTION and "\r" not in parsed.plan
    assert extract_code(("x\n" + fenced(SOLUTION)).replace("\n", "\r")) == SOLUTION


def test_bom_is_ignored():
    assert extract_code("\ufeff" + fenced(SOLUTION)) == SOLUTION


def test_other_language_blocks_are_ignored_and_kept_in_plan():
    reply = (
        "First install:\n"
        + fenced("pip install lightgbm\n", tag="bash")
        + "Config:\n"
        + fenced('{"lr": 0.1}\n', tag="json")
        + fenced(SOLUTION)
        + fenced("x = 1\n", tag="text")
    )
    parsed = parse_response(reply)
    assert parsed.code == SOLUTION
    assert "pip install lightgbm" in parsed.plan and '{"lr": 0.1}' in parsed.plan
    assert "read_csv" not in parsed.plan


def test_json_block_that_parses_as_python_is_still_ignored():
    # '{"a": 1}' is a valid Python expression; the json tag must win.
    reply = fenced('{"a": 1, "b": [1, 2]}\nprint(1)\n', tag="json") + fenced(SOLUTION)
    assert extract_code(reply) == SOLUTION


def test_longest_python_block_wins():
    short = "import os\n"
    assert extract_code(fenced(short) + "and the full one:\n" + fenced(SOLUTION)) == SOLUTION
    assert extract_code(fenced(SOLUTION) + "a snippet:\n" + fenced(short)) == SOLUTION


def test_block_with_gene_markers_beats_longer_block():
    genes = f"{section_marker('DATA')}\nimport pandas as pd\n{section_marker('MODEL')}\nm = 1\n"
    longer = "x = 1\n" * 50
    assert extract_code(fenced(longer) + fenced(genes)) == genes
    assert extract_code(fenced(genes) + fenced(longer)) == genes


def test_more_distinct_markers_beat_fewer():
    two = f"{section_marker('DATA')}\na = 1\n{section_marker('MODEL')}\nb = 2\n"
    one = f"{section_marker('DATA')}\na = 1\n" + "c = 3\n" * 30
    assert extract_code(fenced(one) + fenced(two)) == two


def test_equal_blocks_pick_the_later_one():
    first, second = "a = 1\n", "b = 2\n"
    assert extract_code(fenced(first) + fenced(second)) == second


def test_python_tagged_beats_untagged_even_if_shorter():
    untagged = "```\n" + "z = 0\n" * 20 + "```\n"
    assert extract_code(untagged + fenced(SOLUTION)) == SOLUTION


def test_untagged_block_used_when_it_parses():
    assert extract_code("Here:\n```\n" + SOLUTION + "```\nok") == SOLUTION


def test_untagged_prose_block_is_not_code():
    with pytest.raises(ResponseParseError, match="untagged"):
        parse_response("Output looks like:\n```\nAccuracy is 0.8 on fold 1\n```\n")


def test_valid_block_beats_broken_python_block():
    broken = "def f(:\n    pass\n"
    assert extract_code(fenced(broken) + fenced(SOLUTION)) == SOLUTION


def test_only_broken_python_block_is_returned_with_its_error():
    parsed = parse_response("Plan\n" + fenced("import os\ndef f(:\n    pass\n"))
    assert parsed.code.startswith("import os")
    assert (
        parsed.syntax_error is not None
        and "SyntaxError" in parsed.syntax_error
        and "line 2" in parsed.syntax_error
    )


def test_unclosed_fence_runs_to_end():
    reply = "Plan first.\n```python\n" + SOLUTION
    parsed = parse_response(reply)
    assert parsed.code == SOLUTION and parsed.plan == "Plan first."


def test_truncated_unclosed_fence_reports_syntax_error():
    parsed = parse_response("```python\nimport os\nfor x in range(")
    assert parsed.syntax_error is not None


def test_missing_fences_whole_reply_is_code():
    parsed = parse_response(SOLUTION)
    assert parsed.code == SOLUTION and parsed.plan == ""


def test_missing_fences_with_leading_and_trailing_prose():
    reply = "Here is the solution:\n\n" + SOLUTION + "\nIt prints the shape of the data.\n"
    parsed = parse_response(reply)
    assert parsed.code == SOLUTION
    assert "Here is the solution:" in parsed.plan and "prints the shape" in parsed.plan


def test_indented_fence_in_a_list_is_dedented():
    reply = "1. Do this:\n   ```python\n   import os\n   if True:\n       print(os.sep)\n   ```\n"
    assert extract_code(reply) == "import os\nif True:\n    print(os.sep)\n"


def test_fence_inside_code_string_on_one_line_does_not_open_a_block():
    reply = "Use ```python blocks``` in docs.\n" + fenced(SOLUTION)
    assert extract_code(reply) == SOLUTION


def test_leading_blank_lines_inside_block_are_dropped():
    assert extract_code("```python\n\n\n" + SOLUTION + "\n\n```") == SOLUTION


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "   \n\n",
        "Sure",
        "I cannot help with that.",
        "42",
        '"just a string"',
        "```python\n```",
        "```python\n...\n```",
        '```bash\nls -la\n```\n```json\n{"a": 1}\n```',
    ],
)
def test_replies_without_code(reply):
    assert extract(reply) is None
    assert extract_code(reply) is None
    with pytest.raises(ResponseParseError):
        parse_response(reply)


def test_error_messages_say_what_was_found():
    with pytest.raises(ResponseParseError, match="empty"):
        parse_response("  ")
    with pytest.raises(ResponseParseError, match=r"2 fenced block\(s\) \(bash, json\)"):
        parse_response("```bash\nls\n```\n```json\n{}\n```")
    with pytest.raises(ResponseParseError, match="prose"):
        parse_response("Nothing to see here.")


def test_non_string_reply_is_a_type_error():
    with pytest.raises(TypeError, match="must be a str"):
        extract(None)


def test_null_bytes_do_not_crash():
    parsed = extract("```python\nx = '\x00'\n```")
    assert parsed is not None and parsed.syntax_error is not None
    assert syntax_error_of("a\x00b") is not None


def test_deeply_nested_code_does_not_crash():
    deep = "x = " + "(" * 500 + "1" + ")" * 500 + "\n"
    result = extract("```python\n" + deep + "```")
    assert result is not None  # returned, valid or with a syntax error, never an exception


def test_comment_only_prose_reply_is_not_code():
    prose = "\n".join(f"# Step {i}: think about it more, carefully." for i in range(3000))
    reply = prose + "\nThe end, no code."
    assert extract(reply) is None


def test_find_fenced_blocks_reports_language_and_closure():
    blocks = find_fenced_blocks("a\n```Bash\nls\n```\n~~~py\nx=1\n")
    assert [(b.lang, b.code, b.closed) for b in blocks] == [("bash", "ls", True), ("py", "x=1\n", False)]


def test_syntax_error_of():
    assert syntax_error_of("print(1)") is None
    assert syntax_error_of("") == "empty code"
    assert "bare name" in syntax_error_of("foo")
    assert syntax_error_of("def f(:").startswith("SyntaxError")


def test_bash_block_then_unfenced_python():
    reply = "Install first:\n```bash\npip install lightgbm\n```\nThen run:\n\n" + SOLUTION + "\nThat is all."
    parsed = parse_response(reply)
    assert parsed.code == SOLUTION and parsed.syntax_error is None
    assert "```bash\npip install lightgbm\n```" in parsed.plan and "That is all." in parsed.plan


def test_unfenced_python_then_bash_block():
    reply = "Solution:\n" + SOLUTION + "\nRun it with:\n```sh\npython solution.py\n```\n"
    parsed = parse_response(reply)
    assert parsed.code == SOLUTION and "python solution.py" in parsed.plan


def test_valid_unfenced_python_beats_a_broken_python_block():
    reply = "First try:\n```python\ndef f(:\n```\nFixed version:\n\n" + SOLUTION
    assert parse_response(reply).code == SOLUTION


def test_blocks_of_other_languages_and_prose_between_them_are_not_code():
    assert extract("Run:\n```bash\nls\n```\nand then\n```json\n{}\n```\nDone.") is None


@pytest.mark.parametrize("indent", ["", "   "])
def test_unclosed_python_fence_with_trailing_prose(indent):
    body = "\n".join(
        indent + line if line else line for line in (SOLUTION + "\nHope this helps, good luck!").split("\n")
    )
    parsed = parse_response(f"Plan.\n{indent}```python\n{body}\n\nLet me know if anything fails.\n")
    assert parsed.code == SOLUTION and parsed.syntax_error is None
    assert "Hope this helps, good luck!" in parsed.plan and "Let me know" in parsed.plan


def test_truncated_unclosed_fence_with_prose_like_line_keeps_its_error():
    parsed = parse_response("```python\nimport os\nx = compute(\nThe model is trained here\n")
    assert parsed.code.startswith("import os") and "The model" in parsed.code
    assert parsed.syntax_error is not None and "never closed" in parsed.syntax_error


def test_unclosed_fence_ending_in_a_code_like_line_is_not_cut():
    parsed = parse_response("```python\nimport os\nprint(os.sep)\nfor x in\n")
    assert parsed.syntax_error is not None and parsed.code.endswith("for x in\n")
