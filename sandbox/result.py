"""The outcome of one execution, and the helpers that build it: bounded output capture and traceback parsing."""

from __future__ import annotations

import codecs
import os
import re
import stat
from pathlib import Path

from pydantic import BaseModel, Field

from sandbox.tree_ops import iter_tree

CUT_MARKER = "\n... [{n} characters cut] ...\n"


class StackFrame(BaseModel):
    """One frame of a Python traceback."""

    file: str
    line: int
    function: str
    code: str = ""


class ExecutionResult(BaseModel):
    """What one run of a solution produced. JSON-serialisable (`model_dump_json`)."""

    output: str = Field(description="stdout+stderr interleaved, head+tail trimmed to max_output_chars.")
    output_truncated: bool = False
    exit_code: int | None = Field(description="None when the process never reported a status.")
    exc_type: str | None = None
    exc_info: str | None = Field(None, description="The exception message.")
    exc_stack: list[StackFrame] = Field(default_factory=list)
    exec_time: float = Field(description="Wall-clock seconds of the execution itself.")
    timed_out: bool = False
    oom_killed: bool = False
    disk_exceeded: bool = Field(False, description="Killed for writing more than execution.disk_mb in all.")
    files: list[str] = Field(default_factory=list, description="Files produced, relative to the node dir.")
    submission_path: Path | None = None
    submission_not_file: str | None = Field(
        None,
        description="What the submission path is when it exists but is not a regular file ('a FIFO', ...).",
    )
    backend: str
    isolated: bool = Field(True, description="False when the code ran with the caller's privileges.")

    @property
    def succeeded(self) -> bool:
        """True when the code exited 0 within its limits."""
        return self.exit_code == 0 and not self.timed_out and not self.oom_killed and not self.disk_exceeded

    def why_no_submission(self, tail: int = 300) -> str | None:
        """Why this run left no submission to use ('wrote no submission', or 'failed: ' and the last `tail`
        characters of its output); None where it succeeded and wrote one."""
        if self.succeeded and self.submission_path is not None:
            return None
        return "wrote no submission" if self.succeeded else "failed: " + self.output.strip()[-tail:]


class OutputCollector:
    """Collects a byte stream, keeping only a head and a tail so memory stays bounded by `max_chars`."""

    def __init__(self, max_chars: int) -> None:
        if max_chars < 100:
            raise ValueError(f"max_chars must be at least 100, got {max_chars}")
        self._head_limit = max_chars // 2
        self._tail_limit = max_chars - self._head_limit
        self._head: list[str] = []
        self._head_len = 0
        self._tail = ""
        self._total = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, data: bytes) -> None:
        """Add a chunk of raw output."""
        self._add(self._decoder.decode(data))

    def _add(self, text: str) -> None:
        if not text:
            return
        self._total += len(text)
        room = self._head_limit - self._head_len
        if room > 0:
            self._head.append(text[:room])
            self._head_len += min(room, len(text))
            text = text[room:]
        if text:
            self._tail = (self._tail + text)[-self._tail_limit :]

    @property
    def total_chars(self) -> int:
        return self._total

    def text(self) -> tuple[str, bool]:
        """The kept output and whether anything was cut."""
        self._add(self._decoder.decode(b"", final=True))
        head = "".join(self._head)
        cut = self._total - len(head) - len(self._tail)
        if cut <= 0:
            return head + self._tail, False
        return head + CUT_MARKER.format(n=cut) + self._tail, True


_TRACEBACK_START = "Traceback (most recent call last):"
_FRAME_RE = re.compile(r'^  File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>.+))?$')
_EXC_LINE_RE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?::\s?(?P<msg>.*))?$")


# A script that does not compile prints no "Traceback" header: only the file, line, code, caret and error.
_COMPILE_ERROR_RE = re.compile(
    r'^  File "(?P<file>[^"]+)", line (?P<line>\d+)\n(?P<code>(?:    .*\n)*?)'
    r"(?P<type>SyntaxError|IndentationError|TabError): (?P<msg>.*)$",
    re.MULTILINE,
)


def parse_traceback(output: str) -> tuple[str | None, str | None, list[StackFrame]]:
    """Exception type, message and frames of the last Python traceback in `output` (Nones if there is none).

    A script that fails to compile counts too: its error and the one frame it names.
    """
    start = output.rfind(_TRACEBACK_START)
    compile_errors = list(_COMPILE_ERROR_RE.finditer(output, max(start, 0)))
    if compile_errors and (start < 0 or not _traceback_frames(output[start:])):
        last = compile_errors[-1]
        code = (last["code"].splitlines() or [""])[0].strip()
        frame = StackFrame(file=last["file"], line=int(last["line"]), function="<module>", code=code)
        return last["type"], last["msg"].strip() or None, [frame]
    if start < 0:
        return None, None, []
    lines = output[start:].splitlines()[1:]
    frames: list[StackFrame] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        match = _FRAME_RE.match(line)
        if match:
            code = ""
            if i + 1 < len(lines) and lines[i + 1].startswith("    ") and not _FRAME_RE.match(lines[i + 1]):
                code = lines[i + 1].strip()
                i += 1
            frames.append(
                StackFrame(
                    file=match["file"], line=int(match["line"]), function=match["func"] or "", code=code
                )
            )
        elif line and not line[0].isspace():
            exc = _EXC_LINE_RE.match(line)
            if exc:
                return exc["type"], (exc["msg"] or "").strip() or None, frames
            return None, None, frames
        i += 1
    return None, None, frames


SHOWN_LINK_CHARS = 120  # of a symlink's target, named in a review's reason
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def non_file_kind(path: Path) -> str | None:
    """What `path` is when it exists but is not a regular file ("a symlink (to '/etc/passwd')", "a FIFO (named
    pipe)", ...), without following a symlink or opening it; None for a regular file or no file at all."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        try:
            target = os.readlink(path)
        except OSError:
            return "a symlink"
        shown = target if len(target) <= SHOWN_LINK_CHARS else target[:SHOWN_LINK_CHARS] + "..."
        return f"a symlink (to {shown!r})"
    return next((name for test, name in _KINDS if test(mode)), "an unknown kind of file")


def list_files(root: Path, subdirs: tuple[str, ...], limit: int = 1000) -> list[str]:
    """Regular files (not symlinks) under root/<subdir>, as sorted paths relative to root, at most `limit`.

    Walks with `iter_tree` (a solution's tree may be deeper than the recursion limit or than PATH_MAX).
    """
    found: list[str] = []
    for sub in subdirs:
        base = root / sub
        if not base.is_dir() or base.is_symlink():
            continue
        for entry in iter_tree(base):
            try:
                if entry.is_file(follow_symlinks=False):
                    found.append(Path(entry.path).relative_to(root).as_posix())
            except OSError:
                continue
            if len(found) >= limit:
                return sorted(found)
    return sorted(found)


def _traceback_frames(text: str) -> bool:
    """Whether a traceback's text (from its header) lists any frame."""
    return any(_FRAME_RE.match(line) for line in text.splitlines()[1:])
