"""Fill this project's defaults into Prefect's base job template for a Docker work pool.

    prefect work-pool get-default-base-job-template --type docker \\
        | python deployments/docker/job_template.py --image swarm-ev2-flow:latest --host-dir "$PWD" > t.json
    prefect work-pool create docker --type docker --base-job-template t.json --overwrite

Only the defaults of the template's variables change (a deployment's job_variables still override them):
a local image that is never pulled (there is no registry here: build it offline), the host network (the
container reaches the Prefect API on loopback), the host's runs/ and .cache/ mounted under the image's
checkout (/opt/swarm-ev2: paths saved in such a run dir are container paths), the host's sandbox uid-slot
locks shared (so solutions in containers and on the host never run as the same uid at once: the sandbox
kills every process of a uid when a run ends), and the in-container sandbox set to `local` (the container is
the isolation; a nested Docker engine is not available inside it). No secret goes in here: see deployments/README.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

WORKDIR = "/opt/swarm-ev2"  # where the image holds the checkout (deployments/docker/prefect.yaml pulls there)
SLOT_LOCKS = "/run/swarm-sandbox"  # sandbox/slots.py keeps its uid locks below it


def patch_template(template: dict[str, Any], image: str, host_dir: Path) -> dict[str, Any]:
    """The template with this project's variable defaults; raises KeyError when Prefect's layout changed."""
    props = template["variables"]["properties"]
    defaults = {
        "image": image,
        "image_pull_policy": "Never",
        "network_mode": "host",
        "auto_remove": True,
        "stream_output": True,
        "volumes": [
            f"{host_dir / 'runs'}:{WORKDIR}/runs",
            f"{host_dir / '.cache'}:{WORKDIR}/.cache",
            f"{SLOT_LOCKS}:{SLOT_LOCKS}",
        ],
        "env": {
            "SWARM_EXECUTION__SANDBOX": "local",
            "SWARM_CACHE_DIR": f"{WORKDIR}/.cache",
            "PREFECT_LOGGING_LEVEL": "INFO",
        },
    }
    for name, value in defaults.items():
        props[name]["default"] = value
    return template


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--image", default="swarm-ev2-flow:latest", help="the flow image (built offline)")
    parser.add_argument("--host-dir", type=Path, default=Path.cwd(), help="holds runs/ and .cache/ to mount")
    args = parser.parse_args(argv)
    template = json.load(sys.stdin)
    json.dump(patch_template(template, args.image, args.host_dir.resolve()), sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
