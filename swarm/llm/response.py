"""Split an LLM reply into its plan (prose) and its Python code.

How the code is chosen:
0. Thinking traces (`<think>...</think>` and the like, see `swarm.llm.thinking`) are dropped first: a draft
   inside them is never the code, and they are never the plan.
1. Line endings are normalised (CRLF/CR -> LF) and a BOM is dropped.
2. Fenced blocks are found: ``` or ~~~ (3 or more, up to 3 spaces of indent), closed by a line of the same
   fence character at least as long; an unclosed fence runs to the end of the reply. Blocks tagged with
   another language (bash, json, text, ...) are ignored.
3. Candidates are blocks tagged python/py/python3/py3/ipython (any case) and untagged blocks. A candidate
   counts as code only if `ast.parse` accepts it and it is more than bare names, constants or data literals
   (a JSON object parses as a Python dict but is not a program).
   An unclosed Python block that fails to parse but ends in prose (an unindented line that reads like a
   sentence, e.g. "Hope this helps!") is cut before that prose when the rest parses; truncated code keeps its
   syntax error.
4. The pick, best first: a parsing Python-tagged block, then a parsing untagged block; within a tier the block
   with the most distinct gene-section markers, then the longest, then the later one. If no block parses, the
   text outside the blocks is tried as in 5 (e.g. a ```bash block followed by unfenced Python). Failing that, a
   Python-tagged block that fails to parse is returned with its `syntax_error` set (so a debug step can fix it);
   empty blocks and blocks of bare names/constants (`...`) never count.
5. Without fences, the whole reply is code if it parses; otherwise the reply minus leading and trailing prose
   lines is tried (starting at a line that looks like code: import/from/def/class/@/#/if __name__).
The plan is the reply with the chosen code removed, stripped of surplus blank lines.
A block tagged python that holds another language which happens to parse (R's `x <- 1` is `x < -1`) is taken
as Python; running it fails and the debug step sees why.
"""

from __future__ import annotations

import ast
import json
import re
import textwrap
from dataclasses import dataclass

from swarm.llm.thinking import split_thinking
from swarm.protocol import count_markers
from swarm.pyparse import parse_python

PYTHON_TAGS = frozenset({"python", "py", "python3", "py3", "ipython", "pycon", "python-code"})

_FENCE_OPEN_RE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n]*)$")
_CODE_START_RE = re.compile(r"^(import |from \S+ import |def |class |async def |@|#|if __name__)")
_MAX_PROSE_TRIALS = 40
# A line of prose after code: unindented, a capitalised word, then at least two more words; no code symbols.
_PROSE_LINE_RE = re.compile(r"^[A-Z][A-Za-z'’]*(?:[ \t]+[A-Za-z0-9'’\",.;:!?()\-]+){2,}[ \t]*$")
_EMPTY = "empty code"
_TRIVIAL = "only bare names or constants, not a program"
_DATA = "only a data literal (JSON-like), not a program"
_LITERALS = (ast.Dict, ast.List, ast.Set, ast.Tuple)


class ResponseParseError(ValueError):
    """The reply holds no usable Python code; the message says what was found instead."""


@dataclass(frozen=True)
class ParsedResponse:
    """A reply split into plan text and code; `syntax_error` is set when the code does not parse."""

    plan: str
    code: str
    syntax_error: str | None = None


@dataclass(frozen=True)
class _Block:
    lang: str  # lower-cased first word of the info string; "" when untagged
    code: str
    start: int  # character span of the whole block, fences included
    end: int
    closed: bool


def normalise(text: str) -> str:
    """LF line endings, no BOM."""
    return text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")


def find_fenced_blocks(text: str) -> list[_Block]:
    """All fenced blocks in `text` (already normalised), in order."""
    blocks: list[_Block] = []
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    i = 0
    while i < len(lines):
        match = _FENCE_OPEN_RE.match(lines[i])
        if not match or (match["fence"][0] == "`" and "`" in match["info"]):
            i += 1
            continue
        fence, indent = match["fence"], len(match["indent"])
        close_re = re.compile(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$")
        body_start = i + 1
        j = body_start
        while j < len(lines) and not close_re.match(lines[j]):
            j += 1
        closed = j < len(lines)
        body = [_drop_indent(line, indent) for line in lines[body_start:j]]
        end = min(offsets[j + 1] if closed else len(text), len(text))
        blocks.append(_Block(_language(match["info"]), "\n".join(body), offsets[i], end, closed))
        i = j + 1
    return blocks


def _drop_indent(line: str, indent: int) -> str:
    """Remove up to `indent` leading spaces (the fence's own indent) from a body line."""
    spaces = len(line) - len(line.lstrip(" "))
    return line[min(spaces, indent) :]


def _language(info: str) -> str:
    word = re.split(r"[\s:,{}=]+", info.strip().strip("{}").strip(), maxsplit=1)[0] if info.strip() else ""
    return word.lstrip(".").lower()


def syntax_error_of(code: str) -> str | None:
    """None when `code` is a real Python program, else a short reason."""
    if not code.strip():
        return _EMPTY
    try:
        tree = parse_python(code)
    except SyntaxError as exc:
        return f"SyntaxError: {exc.msg} (line {exc.lineno})"
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, absurd nesting
        return f"{type(exc).__name__}: {exc}"
    if all(_is_trivial(stmt) for stmt in tree.body):
        return _TRIVIAL
    if all(isinstance(stmt, ast.Expr) and _is_data(stmt.value) for stmt in tree.body):
        return _DATA
    return None


def _is_trivial(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Name | ast.Constant)


def _is_data(node: ast.expr) -> bool:
    """A literal made only of literals: what a JSON value looks like when parsed as Python."""
    if isinstance(node, ast.Constant | ast.Name):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return True
    if isinstance(node, ast.Dict):
        return all(k is not None and _is_data(k) for k in node.keys) and all(_is_data(v) for v in node.values)
    return isinstance(node, _LITERALS) and all(_is_data(e) for e in node.elts)  # type: ignore[attr-defined]


def _gene_count(code: str) -> int:
    return count_markers(code)


def _rank(block: _Block) -> tuple[int, int, int]:
    return (_gene_count(block.code), len(block.code.strip()), block.start)


def _plan_without(text: str, start: int, end: int) -> str:
    plan = text[:start].rstrip() + "\n\n" + text[end:].lstrip()
    return re.sub(r"\n{3,}", "\n\n", plan).strip()


def _cut_trailing_prose(text: str, block: _Block, code: str) -> _Block:
    """An unclosed block whose code fails to parse, cut before trailing prose if the code then parses."""
    lines = code.split("\n")
    for index in range(1, len(lines)):
        if not _PROSE_LINE_RE.match(lines[index]) or syntax_error_of(lines[index]) is None:
            continue
        kept = "\n".join(lines[:index]).strip("\n")
        if syntax_error_of(kept) is None:
            return _Block(block.lang, kept, block.start, _body_line_offset(text, block, index), block.closed)
    return _Block(block.lang, code, block.start, block.end, block.closed)


def _body_line_offset(text: str, block: _Block, index: int) -> int:
    """Where line `index` of a block's code (leading blank lines stripped) starts in `text`."""
    body_at = text.find("\n", block.start) + 1
    raw = text[body_at:].split("\n")
    lead = next(i for i, line in enumerate(raw) if line.strip())
    return body_at + sum(len(line) + 1 for line in raw[: lead + index])


def _from_blocks(text: str, blocks: list[_Block]) -> ParsedResponse | None:
    python_ok, untagged_ok, python_bad = [], [], []
    for block in blocks:
        code = textwrap.dedent(block.code).strip("\n")
        if block.lang and block.lang not in PYTHON_TAGS:
            continue
        candidate = _Block(block.lang, code, block.start, block.end, block.closed)
        error = syntax_error_of(code)
        if error is not None and not block.closed:
            candidate = _cut_trailing_prose(text, block, code)
            error = syntax_error_of(candidate.code)
        if error is None:
            (python_ok if block.lang else untagged_ok).append(candidate)
        elif block.lang and error not in (_EMPTY, _TRIVIAL, _DATA):
            python_bad.append(candidate)
    for tier in (python_ok, untagged_ok):
        if tier:
            best = max(tier, key=_rank)
            return ParsedResponse(_plan_without(text, best.start, best.end), best.code + "\n")
    outside = _from_text_between(text, blocks)
    if outside is not None:
        return outside
    if python_bad:
        best = max(python_bad, key=_rank)
        return ParsedResponse(
            _plan_without(text, best.start, best.end), best.code + "\n", syntax_error_of(best.code)
        )
    return None


def _from_text_between(text: str, blocks: list[_Block]) -> ParsedResponse | None:
    """Unfenced code in the text before, between or after the blocks: the longest stretch that parses."""
    found: list[tuple[int, int]] = []
    edges = [0, *(b for block in blocks for b in (block.start, block.end)), len(text)]
    for begin, stop in zip(edges[::2], edges[1::2], strict=True):
        parsed = _from_bare_text(text[begin:stop])
        if parsed is not None:
            at = text.find(parsed.code.rstrip("\n"), begin)
            found.append((at, at + len(parsed.code.rstrip("\n"))))
    if not found:
        return None
    start, end = max(found, key=lambda span: span[1] - span[0])
    return ParsedResponse(_plan_without(text, start, end), text[start:end] + "\n")


def _from_bare_text(text: str) -> ParsedResponse | None:
    """Code without fences: the whole reply, or the reply with leading/trailing prose lines dropped."""
    stripped = text.strip("\n")
    if syntax_error_of(stripped) is None:
        return ParsedResponse("", stripped + "\n")
    lines = stripped.split("\n")
    starts = [i for i, line in enumerate(lines) if _CODE_START_RE.match(line)]
    trials = 0
    for start in starts:
        for end in range(len(lines), start, -1):
            if end < len(lines) and lines[end - 1].strip() == "":
                continue
            trials += 1
            if trials > _MAX_PROSE_TRIALS:
                return None
            code = "\n".join(lines[start:end]).strip("\n")
            if syntax_error_of(code) is None:
                plan = "\n".join(lines[:start] + [""] + lines[end:]).strip()
                return ParsedResponse(re.sub(r"\n{3,}", "\n\n", plan), code + "\n")
    return None


def extract(text: str) -> ParsedResponse | None:
    """The reply's plan and code, or None when it holds no Python code."""
    if not isinstance(text, str):
        raise TypeError(f"an LLM reply must be a str, got {type(text).__name__}")
    text = normalise(split_thinking(text)[0])
    blocks = find_fenced_blocks(text)
    if blocks:
        return _from_blocks(text, blocks)
    return _from_bare_text(text)


def extract_code(text: str) -> str | None:
    """Only the code (None when there is none)."""
    parsed = extract(text)
    return parsed.code if parsed is not None else None


def parse_response(text: str) -> ParsedResponse:
    """The reply's plan and code; ResponseParseError saying what the reply held when there is no code."""
    parsed = extract(text)
    if parsed is not None:
        return parsed
    text = split_thinking(text)[0]
    blocks = find_fenced_blocks(normalise(text))
    if not normalise(text).strip():
        raise ResponseParseError("the reply is empty; expected a plan and a ```python code block")
    data = _data_kind(normalise(text), blocks)
    if data:
        raise ResponseParseError(
            f"the reply is {data}, not Python code; expected a plan and a ```python block"
        )
    if blocks:
        langs = ", ".join(b.lang or "untagged" for b in blocks)
        raise ResponseParseError(
            f"no Python code in the reply: {len(blocks)} fenced block(s) ({langs}) but none is Python that parses"
        )
    raise ResponseParseError(
        f"no Python code in the reply ({len(text)} chars of prose, no fenced block and no text that parses as Python)"
    )


def _data_kind(text: str, blocks: list[_Block]) -> str | None:
    """What JSON data the reply (or its only fenced block) is, e.g. "a JSON object"; None when it is not."""
    candidates = [text.strip()] + ([blocks[0].code.strip()] if len(blocks) == 1 else [])
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        return "a JSON object" if isinstance(value, dict) else f"JSON data ({type(value).__name__})"
    return None
