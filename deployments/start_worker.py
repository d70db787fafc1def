"""Start a Prefect worker for this project's deployments, with API keys from Prefect Secret blocks.

    python deployments/start_worker.py                    # the `local` process pool
    python deployments/start_worker.py --pool docker      # the Docker pool (needs `pip install prefect-docker`)
    python deployments/start_worker.py --check            # which keys would come from where; start nothing

Flow runs of a process worker inherit its environment, and that is how API keys reach them: for each of
OPENAI_API_KEY and ANTHROPIC_API_KEY not already set in the environment, the Secret block named like it in
lower case with dashes (`openai-api-key`, `anthropic-api-key`) is read, if it exists, into the worker's
environment. Keys are never printed, never written to a file, and never part of a deployment or prefect.yaml.
Then this process becomes `prefect worker start` (exec), so stopping it stops the worker (Ctrl-C twice).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys

KEY_ENVS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")
DEFAULT_API_URL = "http://127.0.0.1:4200/api"


def block_name(env_name: str) -> str:
    """The Secret block a key is read from: OPENAI_API_KEY -> openai-api-key."""
    return env_name.lower().replace("_", "-")


def secret_env(names: tuple[str, ...] = KEY_ENVS) -> tuple[dict[str, str], dict[str, str]]:
    """(values to add to the environment, where each name comes from) for the key names not already set."""
    from prefect.blocks.system import Secret

    values: dict[str, str] = {}
    sources: dict[str, str] = {}
    for name in names:
        if os.environ.get(name):
            sources[name] = "environment"
            continue
        try:
            secret = Secret.load(block_name(name), _sync=True)
        except ValueError:  # no such block
            sources[name] = "not set"
            continue
        values[name] = str(secret.get())
        sources[name] = f"Secret block {block_name(name)!r}"
    return values, sources


def ensure_api_url() -> str:
    """PREFECT_API_URL from the environment or the active profile, else the loopback default.

    Without one, every Prefect command would start a temporary server of its own and the worker would poll it.
    """
    from prefect.settings import get_current_settings

    url = os.environ.get("PREFECT_API_URL") or get_current_settings().api.url or DEFAULT_API_URL
    os.environ["PREFECT_API_URL"] = url
    return url


def server_answers(api_url: str) -> bool:
    import httpx

    try:
        return httpx.get(api_url.rstrip("/") + "/health", timeout=10).status_code == 200
    except httpx.HTTPError:
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pool", default="local", help="the work pool to poll (default: local)")
    parser.add_argument("--name", help="the worker's name (default: Prefect's)")
    parser.add_argument("--limit", type=int, help="most flow runs at once")
    parser.add_argument(
        "--query-seconds", type=float, help="how often to poll for runs (PREFECT_WORKER_QUERY_SECONDS, 10)"
    )
    parser.add_argument("--no-secrets", action="store_true", help="read no Secret block")
    parser.add_argument("--check", action="store_true", help="print where each key comes from and exit")
    args = parser.parse_args(argv)

    url = ensure_api_url()
    if not server_answers(url):
        print(f"start_worker: no Prefect server answers at {url} (prefect server start)", file=sys.stderr)
        return 1
    values, sources = ({}, {}) if args.no_secrets else secret_env()
    for name, source in sources.items():
        print(f"start_worker: {name}: {source}", file=sys.stderr)
    if args.check:
        print(f"start_worker: Prefect API at {url}; pool {args.pool}", file=sys.stderr)
        return 0
    os.environ.update(values)
    if args.query_seconds is not None:
        os.environ["PREFECT_WORKER_QUERY_SECONDS"] = str(args.query_seconds)
    # A docker pool's worker needs prefect-docker, installed beforehand: never let the worker install it.
    cmd = ["prefect", "worker", "start", "--pool", args.pool, "--install-policy", "never"]
    if args.name:
        cmd += ["--name", args.name]
    if args.limit:
        cmd += ["--limit", str(args.limit)]
    prefect = shutil.which("prefect")
    if prefect is None:
        print("start_worker: the `prefect` command is not on PATH (pip install -e .)", file=sys.stderr)
        return 2
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(prefect, cmd)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
