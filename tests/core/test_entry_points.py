"""The entry points (issue 31, point 5): `swarm run ...` is `python flows/run_competition.py ...` and `swarm
benchmark ...` is `python flows/benchmark.py ...` (one parser, one main each), the `swarm` console script keeps the
core's commands, and no script edits the import path: the installed packages, `python -m` from the repo root
and pytest's rootdir make every such edit unnecessary."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from flows import cli

REPO = Path(__file__).resolve().parents[2]
COLUMNS = "100"  # argparse wraps help to the terminal's width: the same width on both sides
# The installed project's packages (`pip install -e .`); here pinned to this checkout, wherever pip points.
ENV = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": COLUMNS}

# An edit of the import path in a script: the line that adds a dir to sys.path, in any of its spellings.
PATH_EDIT = re.compile(r"sys\.path\.(insert|append|extend)\(|sys\.path(\[[^\]]*\])?\s*\+?=(?!=)")
SCANNED = ("flows", "benchmarks", "deployments", "swarm", "sandbox", "tasks", "tests")
# file -> why its path edit stays
ALLOWED = {
    "tests/competitions/data/make_box_map_cases.py": "a by-hand tool: MLE-bench's graders are loose files in a "
    "dir named on its command line (not a package) that import mlebench.grade_helpers from there",
}


def script(name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """`python flows/<name>.py ARGS` from `cwd`, as a user runs it."""
    return subprocess.run(
        [sys.executable, str(REPO / "flows" / f"{name}.py"), *args],
        cwd=cwd,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
    )


def swarm(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """`swarm ARGV` through the console script's main, in this process: (exit code, stdout, stderr)."""
    try:
        code = cli.main(list(argv))
    except SystemExit as exc:  # argparse: --help, a wrong option
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def split_usage(help_text: str, prog: str) -> str:
    """What follows the usage block (the description and every option), after checking that it names `prog`."""
    usage, rest = help_text.split("\n\n", 1)
    assert usage.startswith(f"usage: {prog} "), usage
    return rest


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("run", "run_competition"),
        pytest.param("benchmark", "benchmark", marks=pytest.mark.slow),
    ],  # Prefect: 8 s
)
def test_swarm_command_help_is_the_scripts_help(command, name, capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("COLUMNS", COLUMNS)
    code, out, err = swarm(capsys, command, "--help")
    assert code == 0 and err == ""
    done = script(name, "--help", cwd=tmp_path)  # from another working dir: no path edit needed
    assert done.returncode == 0, done.stderr
    assert split_usage(out, f"swarm {command}") == split_usage(done.stdout, f"{name}.py")
    assert "--competition" in out if command == "run" else "--steps" in out


@pytest.mark.slow  # two runs of the script, 10 s
def test_swarm_run_refuses_wrong_inputs_as_the_script_does(capsys, tmp_path) -> None:
    missing = str(tmp_path / "no-such-dir")
    for args in (
        ["--data-dir", missing, "--no-live"],  # the run's own check: one sentence, exit 2
        ["--competition", "titanic", "--resume", missing],  # argparse's: its usage, then the error, exit 2
    ):
        code, out, err = swarm(capsys, "run", *args)
        done = script("run_competition", *args, cwd=tmp_path)
        assert (code, out) == (done.returncode, done.stdout) == (2, "")
        said = done.stderr.splitlines()[-1].replace("run_competition.py: ", "swarm run: ")
        assert err.splitlines()[-1] == said and "error: " in said, (err, done.stderr)


def test_the_console_script_serves_the_cores_commands_and_lists_the_scripts(capsys, tmp_path) -> None:
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["swarm"] == "flows.cli:main"
    code, out, _ = swarm(capsys, "--help")
    assert code == 0 and all(f"    {name}" in out for name in ("competitions", "run", "benchmark"))
    code, out, _ = swarm(capsys, "competitions", "list", "--json", "--cache-dir", str(tmp_path))
    assert code == 0 and "titanic" in {row["id"] for row in json.loads(out)}
    code, _, err = swarm(
        capsys, "competitions", "prepare", "no-such-competition", "--cache-dir", str(tmp_path)
    )
    assert code == 2 and err.startswith("swarm: error: ")


def test_the_cores_commands_start_without_prefect(tmp_path) -> None:
    """`swarm competitions ...` imports a script's module (and Prefect) only for that script's command."""
    code = (
        "import sys; from flows import cli; "
        f"assert cli.main(['competitions', 'list', '--json', '--cache-dir', {str(tmp_path)!r}]) == 0; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'prefect' or m.startswith('flows.')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=ENV, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "['flows.cli']"


def test_no_script_edits_the_import_path() -> None:
    found = []
    for top in SCANNED:
        for path in sorted((REPO / top).rglob("*.py")):
            relative = path.relative_to(REPO).as_posix()
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if PATH_EDIT.search(line) and relative not in ALLOWED:
                    found.append(f"{relative}:{number}: {line.strip()}")
    assert not found, (
        "run scripts as installed packages or `python -m` from the repo root instead:\n" + "\n".join(found)
    )
    for relative in ALLOWED:  # an allowed edit that went should leave the list too
        assert PATH_EDIT.search((REPO / relative).read_text(encoding="utf-8")), relative
