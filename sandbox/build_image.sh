#!/usr/bin/env bash
# Build the sandbox image without a container registry: debootstrap rootfs + host pip wheels + docker import.
#
# Usage: sandbox/build_image.sh [--no-torch | --cuda] [--force] [--tag NAME:TAG] [--print-packages]
#   --no-torch        leave torch out (it is in by default: the local CPU wheel torch-<version>+cpu-cp311-*.whl)
#   --cuda            the CUDA flavour for GPU hosts (default tag swarm-ev2-sandbox:cuda): torch and torchvision
#                     as PyPI ships them for Linux (CUDA builds) and xgboost with CUDA, from pip's index
#   --force           rebuild even when an image with the same content hash exists
#   --print-packages  print what would be installed (one requirement or wheel a line) and exit
# Env: SWARM_SANDBOX_IMAGE (default tag), SWARM_SANDBOX_CACHE (default /var/cache/swarm-sandbox),
#      SWARM_TORCH_WHEEL_DIR (default /opt/wheels: where the CPU torch wheel lies).
# The packages come from sandbox/requirements.txt, the list sandbox/Dockerfile installs too.
# Idempotent: the image carries a label swarm.content_hash (script + package list + flags); when the tag already
# has that label the script exits at once. The debootstrap base is cached as a tarball between builds.
# The Debian mirror is read from this machine's apt sources at run time.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REQUIREMENTS="$HERE/requirements.txt"
TAG=""
CACHE=${SWARM_SANDBOX_CACHE:-/var/cache/swarm-sandbox}
WHEEL_DIR=${SWARM_TORCH_WHEEL_DIR:-/opt/wheels}
SUITE=bookworm
BASE_INCLUDE=python3,libgomp1,ca-certificates
SANDBOX_UID=10001
WITH_TORCH=1
CUDA=0
FORCE=0
PRINT=0

while [ $# -gt 0 ]; do
    case "$1" in
        --torch) WITH_TORCH=1 ;;  # the default; kept for old command lines
        --no-torch) WITH_TORCH=0 ;;
        --cuda) CUDA=1 ;;
        --force) FORCE=1 ;;
        --print-packages) PRINT=1 ;;
        --tag) TAG=${2:?--tag needs NAME:TAG}; shift ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) echo "[build_image] error: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

if [ -z "$TAG" ]; then
    if [ "$CUDA" = 1 ]; then TAG=${SWARM_SANDBOX_IMAGE:-swarm-ev2-sandbox:cuda}; else TAG=${SWARM_SANDBOX_IMAGE:-swarm-ev2-sandbox:latest}; fi
fi

log() { echo "[build_image] $(date +%T) $*"; }
die() { echo "[build_image] error: $*" >&2; exit 1; }
START=$SECONDS

# The package list: every requirement but torch goes to pip as written; torch is the local CPU wheel.
[ -r "$REQUIREMENTS" ] || die "missing $REQUIREMENTS"
mapfile -t PACKAGES < <(grep -Ev '^[[:space:]]*(#|$)' "$REQUIREMENTS" | grep -Ev '^torch==' | sed 's/[[:space:]]*$//')
TORCH_VERSION=$(sed -n 's/^torch==\([^[:space:]]*\).*/\1/p' "$REQUIREMENTS")
[ -n "$TORCH_VERSION" ] || die "$REQUIREMENTS has no torch==<version> line"
TORCH_WHEEL=""
if [ "$CUDA" = 1 ]; then
    [ "$WITH_TORCH" = 1 ] || die "--cuda and --no-torch exclude each other"
    PACKAGES=("${PACKAGES[@]/#xgboost-cpu==/xgboost==}" "torch==$TORCH_VERSION" torchvision)
elif [ "$WITH_TORCH" = 1 ]; then
    TORCH_WHEEL=$(find "$WHEEL_DIR" -maxdepth 1 -name "torch-${TORCH_VERSION}+cpu-cp311-cp311-*.whl" 2>/dev/null \
        | sort | head -n 1)
    [ -n "$TORCH_WHEEL" ] || die "no CPU wheel torch-${TORCH_VERSION}+cpu-cp311-*.whl in $WHEEL_DIR \
(set SWARM_TORCH_WHEEL_DIR, or pass --no-torch)"
fi
if [ "$PRINT" = 1 ]; then
    printf '%s\n' "${PACKAGES[@]}" ${TORCH_WHEEL:+"$TORCH_WHEEL"}
    exit 0
fi

docker info >/dev/null 2>&1 || die "no Docker engine answers; run sandbox/setup_engine.sh first"

HASH=$( { cat "$0" "$REQUIREMENTS"; printf '%s\n' "$BASE_INCLUDE" "$SUITE" "torch=$(basename "${TORCH_WHEEL:-none}")" "cuda=$CUDA"; } \
    | sha256sum | cut -c1-16)

if [ "$FORCE" = 0 ]; then
    have=$(docker image inspect --format '{{ index .Config.Labels "swarm.content_hash" }}' "$TAG" 2>/dev/null || true)
    if [ "$have" = "$HASH" ]; then
        log "image $TAG is up to date (content hash $HASH)"
        exit 0
    fi
fi
log "building $TAG (content hash $HASH, torch=$WITH_TORCH, cuda=$CUDA)"

mirror_url() {
    # First Debian URI serving the suite, from deb822 (.sources) or one-line (.list) apt sources.
    python3 - "$SUITE" <<'PY'
import glob, sys
suite = sys.argv[1]
files = glob.glob("/etc/apt/sources.list.d/*.sources")
for path in files:
    for stanza in open(path, encoding="utf-8").read().split("\n\n"):
        fields = {}
        for line in stanza.splitlines():
            if ":" in line and not line.startswith(("#", " ")):
                key, _, value = line.partition(":")
                fields[key.strip().lower()] = value.split()
        if suite in fields.get("suites", []) and "deb" in fields.get("types", []):
            print(fields["uris"][0]); sys.exit(0)
for path in ["/etc/apt/sources.list", *glob.glob("/etc/apt/sources.list.d/*.list")]:
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError:
        continue
    for line in lines:
        words = [w for w in line.split() if not w.startswith("[")]
        if len(words) >= 3 and words[0] == "deb" and words[2] == suite:
            print(words[1]); sys.exit(0)
sys.exit(1)
PY
}

mkdir -p "$CACHE"
BASE_TAR="$CACHE/base-$SUITE-$(echo "$BASE_INCLUDE" | sha256sum | cut -c1-8).tar"
if [ ! -s "$BASE_TAR" ]; then
    command -v debootstrap >/dev/null 2>&1 || die "debootstrap is missing; run sandbox/setup_engine.sh first"
    MIRROR=$(mirror_url) || die "no apt source for $SUITE found under /etc/apt"
    BASE_DIR=$(mktemp -d "$CACHE/base.XXXXXX")
    log "debootstrap $SUITE (minbase + $BASE_INCLUDE)"
    debootstrap --variant=minbase --include="$BASE_INCLUDE" "$SUITE" "$BASE_DIR" "$MIRROR" \
        >"$CACHE/debootstrap.log" 2>&1 || { tail -n 20 "$CACHE/debootstrap.log" >&2; die "debootstrap failed"; }
    rm -rf "$BASE_DIR"/var/cache/apt/archives/*.deb "$BASE_DIR"/var/lib/apt/lists/* \
        "$BASE_DIR"/usr/share/doc/* "$BASE_DIR"/usr/share/man/* "$BASE_DIR"/usr/share/locale/*
    tar -C "$BASE_DIR" -cf "$BASE_TAR.tmp" .
    mv "$BASE_TAR.tmp" "$BASE_TAR"
    rm -rf "$BASE_DIR"
else
    log "reusing cached base $BASE_TAR"
fi

ROOT=$(mktemp -d "$CACHE/rootfs.XXXXXX")
trap 'rm -rf "$ROOT"' EXIT
tar -C "$ROOT" -xf "$BASE_TAR"

SITE="$ROOT/usr/local/lib/python3.11/dist-packages"
mkdir -p "$SITE"
PIP_ARGS=(--quiet --only-binary=:all: --python-version 3.11 --implementation cp --abi cp311
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64
    --target "$SITE")
# One pip run for everything, so the requirements and torch's dependencies are resolved together.
log "pip install ${PACKAGES[*]} ${TORCH_WHEEL:+$(basename "$TORCH_WHEEL")}"
python3 -m pip install "${PIP_ARGS[@]}" "${PACKAGES[@]}" ${TORCH_WHEEL:+"$TORCH_WHEEL"} >"$CACHE/pip.log" 2>&1 \
    || { grep -v "is ignored: it is neither" "$CACHE/pip.log" | tail -n 20 >&2
         [ "$CUDA" = 1 ] && die "pip install failed: the CUDA flavour needs torch==$TORCH_VERSION and torchvision \
(CUDA builds, several GB) from PyPI or a mirror pip is configured with (PIP_INDEX_URL, PIP_FIND_LINKS); \
this host's index does not have them"
         die "pip install failed"; }
if [ "$CUDA" = 1 ] && compgen -G "$SITE/torch-*+cpu.dist-info" >/dev/null; then
    die "the CUDA flavour got a CPU build of torch ($(basename "$SITE"/torch-*+cpu.dist-info)): pip's index here \
has no CUDA build of torch==$TORCH_VERSION; point PIP_INDEX_URL at PyPI or a mirror that has one"
fi
rm -rf "$SITE"/bin
# The root filesystem is read-only at run time: ship bytecode so imports need not recompile every time.
python3 -m compileall -q -j 0 "$SITE" >/dev/null 2>&1 || true

# The container user, a `python` command, and the mount points the sandbox uses.
echo "sandbox:x:$SANDBOX_UID:$SANDBOX_UID:sandbox:/tmp:/usr/sbin/nologin" >>"$ROOT/etc/passwd"
echo "sandbox:x:$SANDBOX_UID:" >>"$ROOT/etc/group"
ln -sf /usr/bin/python3 "$ROOT/usr/local/bin/python"
mkdir -p "$ROOT/sandbox"
chmod 0755 "$ROOT/sandbox"

OLD_ID=$(docker image inspect --format '{{.Id}}' "$TAG" 2>/dev/null || true)
log "docker import"
tar -C "$ROOT" -c . | docker import \
    --change "USER $SANDBOX_UID:$SANDBOX_UID" \
    --change "WORKDIR /sandbox" \
    --change "ENV HOME=/tmp PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 MPLCONFIGDIR=/tmp LANG=C.UTF-8" \
    --change "LABEL swarm.content_hash=$HASH swarm.torch=$WITH_TORCH swarm.cuda=$CUDA" \
    --change 'CMD ["python"]' \
    - "$TAG" >/dev/null
CHECK="import numpy, pandas, sklearn, lightgbm, xgboost; print('image ok: numpy', numpy.__version__, 'pandas', \
pandas.__version__, 'sklearn', sklearn.__version__)"
if [ "$WITH_TORCH" = 1 ]; then
    CHECK="$CHECK; import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.ones(2).sum().item())"
fi
docker run --rm --network none "$TAG" python -c "$CHECK"
if [ -n "$OLD_ID" ] && [ "$OLD_ID" != "$(docker image inspect --format '{{.Id}}' "$TAG")" ]; then
    docker rmi "$OLD_ID" >/dev/null 2>&1 || true  # the image this build replaced, unless still in use
fi
log "built $TAG in $((SECONDS - START)) s: $(docker image inspect --format '{{.Size}}' "$TAG" \
    | awk '{printf "%.0f MB", $1/1e6}')"
