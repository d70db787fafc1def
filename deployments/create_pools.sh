#!/usr/bin/env bash
# Create the work pools the deployments use (idempotent: an existing pool is updated in place).
#
# Usage: deployments/create_pools.sh [--docker] [--docker-only]
#   (default)      the `local` process pool: flow runs are subprocesses of the worker, in this checkout
#   --docker       also the `docker` pool: each flow run is a container (needs `pip install prefect-docker`
#                  where its worker runs, and an image built offline: see deployments/README.md)
#   --docker-only  only the `docker` pool
# Env: PREFECT_API_URL (default: the active profile's, else http://127.0.0.1:4200/api; never a temporary
#      server), SWARM_DOCKER_IMAGE (default swarm-ev2-flow:latest), SWARM_DOCKER_HOST_DIR (default: this
#      checkout; its runs/ and .cache/ are mounted into the containers).
set -euo pipefail
cd "$(dirname "$0")/.."

LOCAL=1
DOCKER=0
for arg in "$@"; do
    case "$arg" in
        --docker) DOCKER=1 ;;
        --docker-only) DOCKER=1; LOCAL=0 ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) echo "create_pools: unknown argument $arg (see --help)" >&2; exit 2 ;;
    esac
done

# Without an API URL every prefect command would start (and forget) a temporary server of its own.
if [ -z "${PREFECT_API_URL:-}" ]; then
    PREFECT_API_URL=$(python -c 'from prefect.settings import get_current_settings as s; print(s().api.url or "")')
    export PREFECT_API_URL=${PREFECT_API_URL:-http://127.0.0.1:4200/api}
fi
if ! python -c 'import sys, httpx; httpx.get(sys.argv[1] + "/health", timeout=10).raise_for_status()' \
    "${PREFECT_API_URL%/}" 2>/dev/null; then
    echo "create_pools: no Prefect server answers at $PREFECT_API_URL" \
        "(start one: prefect server start --host 127.0.0.1 --port 4200)" >&2
    exit 1
fi
echo "create_pools: Prefect API at $PREFECT_API_URL"

if [ "$LOCAL" = 1 ]; then
    prefect --no-prompt work-pool create local --type process --overwrite >/dev/null
    echo "create_pools: process pool 'local' ready (start its worker: python deployments/start_worker.py)"
fi

if [ "$DOCKER" = 1 ]; then
    template=$(mktemp --suffix=.json)
    trap 'rm -f "$template"' EXIT
    # Prefect's own default template for the type, with this project's defaults filled in.
    prefect work-pool get-default-base-job-template --type docker \
        | python deployments/docker/job_template.py \
            --image "${SWARM_DOCKER_IMAGE:-swarm-ev2-flow:latest}" \
            --host-dir "${SWARM_DOCKER_HOST_DIR:-$PWD}" >"$template"
    prefect --no-prompt work-pool create docker --type docker --base-job-template "$template" --overwrite >/dev/null
    echo "create_pools: docker pool 'docker' ready (its worker: pip install prefect-docker;" \
        "python deployments/start_worker.py --pool docker)"
fi
