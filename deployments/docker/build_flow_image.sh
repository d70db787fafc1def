#!/usr/bin/env bash
# Build the Docker work pool's flow image (swarm-ev2-flow:latest) offline, on top of the sandbox image.
#
# Usage: deployments/docker/build_flow_image.sh [--force] [--check] [--tag NAME:TAG] [--base NAME:TAG]
#   --force   rebuild even when the image was built from the same checkout and base image
#   --check   build nothing: exit 0 when the image is up to date, 1 when it is missing or stale
#   --tag     the image to build (default $SWARM_DOCKER_IMAGE, else swarm-ev2-flow:latest)
#   --base    the image to start from (default $SWARM_SANDBOX_IMAGE, else swarm-ev2-sandbox:latest; build it
#             first with sandbox/setup_engine.sh && sandbox/build_image.sh)
# Env: SWARM_FLOW_CACHE (default /var/cache/swarm-flow: the wheelhouse, kept between builds).
#
# How: the wheels of this project's dependencies (pyproject.toml) are downloaded on the host (pip download,
# binary only, for CPython 3.11 on manylinux x86_64; the only step that reaches the package index) into a
# wheelhouse cached per requirement list. A container of the base image with no network, the wheelhouse
# mounted read-only, installs them with `pip --no-index` (what the base image already has and satisfies a
# requirement is kept), gets the checkout (git's tracked and untracked-but-not-ignored files; never .env) at
# /opt/swarm-ev2, installs it editable, and is committed as the image: one layer, no wheel left in it.
# The image runs as root (solutions inside it run under the local sandbox's slot uids), in /opt/swarm-ev2.
# Idempotent: the image carries a label swarm.content_hash (checkout files + base image id); when the tag
# already has it the script exits at once. Delete the wheelhouse to resolve the dependencies anew.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
TAG=${SWARM_DOCKER_IMAGE:-swarm-ev2-flow:latest}
BASE=${SWARM_SANDBOX_IMAGE:-swarm-ev2-sandbox:latest}
CACHE=${SWARM_FLOW_CACHE:-/var/cache/swarm-flow}
WORKDIR=/opt/swarm-ev2
FORCE=0
CHECK=0

while [ $# -gt 0 ]; do
    case "$1" in
        --force) FORCE=1 ;;
        --check) CHECK=1 ;;
        --tag) TAG=$2; shift ;;
        --base) BASE=$2; shift ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) echo "[build_flow_image] error: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

log() { echo "[build_flow_image] $(date +%T) $*"; }
die() { echo "[build_flow_image] error: $*" >&2; exit 1; }
START=$SECONDS

docker info >/dev/null 2>&1 || die "no Docker engine answers; run sandbox/setup_engine.sh first"
BASE_ID=$(docker image inspect --format '{{.Id}}' "$BASE" 2>/dev/null) \
    || die "base image $BASE is missing; run sandbox/build_image.sh first"

TMP=$(mktemp -d)
CID=""
cleanup() {
    if [ -n "$CID" ]; then docker rm -f "$CID" >/dev/null 2>&1 || true; fi
    rm -rf "$TMP"
}
trap cleanup EXIT

# The checkout: its file list (NUL-separated, sorted, existing files only, no .env) and a hash of names,
# modes and contents.
if git -C "$REPO" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$REPO" ls-files -z --cached --others --exclude-standard >"$TMP/files.raw"
else
    (cd "$REPO" && find . \( -name .git -o -name runs -o -name .cache -o -name .prefect -o -name workspaces \
        -o -name build -o -name dist -o -name .venv -o -name '*.egg-info' -o -name __pycache__ \
        -o -name .pytest_cache -o -name .ruff_cache -o -path ./tests/ops/artifacts \) -prune \
        -o -type f -printf '%P\0' >"$TMP/files.raw")
fi
CHECKOUT_HASH=$(python3 - "$REPO" "$TMP/files.raw" "$TMP/files" <<'PY'
import hashlib, os, sys
repo, raw, out = sys.argv[1:]
names = sorted({n for n in open(raw, "rb").read().decode().split("\0") if n})
keep = [n for n in names if os.path.basename(n) != ".env" and os.path.isfile(os.path.join(repo, n))
        and not os.path.islink(os.path.join(repo, n))]
total = hashlib.sha256()
for name in keep:
    path = os.path.join(repo, name)
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    total.update(f"{name}\0{os.stat(path).st_mode & 0o111:o}\0{digest}\n".encode())
open(out, "w").write("\0".join(keep) + "\0")
print(total.hexdigest())
PY
)
HASH=$(printf '%s\n' "$CHECKOUT_HASH" "$BASE_ID" | sha256sum | cut -c1-16)

have=$(docker image inspect --format '{{ index .Config.Labels "swarm.content_hash" }}' "$TAG" 2>/dev/null || true)
if [ "$CHECK" = 1 ]; then
    if [ "$have" = "$HASH" ]; then
        log "image $TAG is up to date (content hash $HASH)"
        exit 0
    fi
    if [ -n "$have" ]; then
        log "image $TAG is stale (content hash $have; this checkout and base image: $HASH)"
    else
        log "image $TAG is missing or has no content hash"
    fi
    exit 1
fi
if [ "$FORCE" = 0 ] && [ "$have" = "$HASH" ]; then
    log "image $TAG is up to date (content hash $HASH)"
    exit 0
fi
log "building $TAG from $BASE (content hash $HASH)"

# The requirements: the project's dependencies and build requirements, and pip itself.
python3 - "$REPO/pyproject.toml" >"$TMP/requirements.txt" <<'PY'
import sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))
print("\n".join(["pip", *project["build-system"]["requires"], *project["project"]["dependencies"]]))
PY
PLATFORMS=()
for p in manylinux2014 manylinux_2_17 manylinux_2_24 manylinux_2_27 manylinux_2_28 manylinux_2_31 manylinux_2_34 \
    manylinux_2_35 manylinux_2_36; do  # bookworm's glibc is 2.36; pip does not infer the older tags itself
    PLATFORMS+=(--platform "${p}_x86_64")
done
PIP_ARGS=(--only-binary=:all: --python-version 3.11 --implementation cp --abi cp311 "${PLATFORMS[@]}")
# pip evaluates dependency markers (e.g. `python_full_version < "3.11.3"`) for the host's Python, not for the
# image's: the image's marker environment is read off the base image, and what its Python needs on top is
# downloaded too.
TARGET_ENV=$(docker run --rm --network none --entrypoint python3 "$BASE" -c '
import json, os, platform, sys
i = sys.implementation.version
print(json.dumps({"implementation_name": sys.implementation.name,
    "implementation_version": f"{i.major}.{i.minor}.{i.micro}", "os_name": os.name,
    "platform_machine": platform.machine(), "platform_python_implementation": platform.python_implementation(),
    "platform_release": platform.release(), "platform_system": platform.system(),
    "platform_version": platform.version(), "python_full_version": platform.python_version(),
    "python_version": ".".join(platform.python_version_tuple()[:2]), "sys_platform": sys.platform}))') \
    || die "cannot run python3 in $BASE"
TARGET_PY=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["python_full_version"])' "$TARGET_ENV")
WHEEL_KEY=$( { cat "$TMP/requirements.txt"; printf '%s\n' "${PIP_ARGS[@]}" "$TARGET_PY"; } | sha256sum | cut -c1-16)
WHEELS="$CACHE/wheels-$WHEEL_KEY"
mkdir -p "$CACHE"
if [ ! -f "$WHEELS/.complete" ]; then
    rm -rf "$WHEELS" "$WHEELS.tmp"
    mkdir -p "$WHEELS.tmp"
    REQS=(-r "$TMP/requirements.txt")
    MISSING=""
    for round in 1 2 3 4 5; do
        log "pip download (round $round): ${REQS[*]}"
        python3 -m pip download --quiet --disable-pip-version-check "${PIP_ARGS[@]}" --dest "$WHEELS.tmp" \
            "${REQS[@]}" >"$CACHE/pip-download.log" 2>&1 \
            || { grep -v "is ignored: it is neither" "$CACHE/pip-download.log" | tail -n 20 >&2
                 die "pip download failed (log: $CACHE/pip-download.log)"; }
        # The requirements the image's Python needs, by the markers of every wheel, that no wheel provides.
        MISSING=$(python3 - "$TARGET_ENV" "$WHEELS.tmp" "$TMP/requirements.txt" <<'PY'
import email.parser, json, os, sys, zipfile
try:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
except ImportError:  # pip's own copy
    from pip._vendor.packaging.requirements import Requirement
    from pip._vendor.packaging.utils import canonicalize_name
env, wheels, reqfile = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
requires = {}
for name in os.listdir(wheels):
    if name.endswith(".whl"):
        with zipfile.ZipFile(os.path.join(wheels, name)) as whl:
            [meta] = [n for n in whl.namelist() if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
            msg = email.parser.Parser().parsestr(whl.read(meta).decode("utf-8", "replace"))
        requires[canonicalize_name(name.split("-")[0])] = msg.get_all("Requires-Dist") or []
todo = [Requirement(line) for line in open(reqfile).read().splitlines() if line.strip()]
extras, missing = {}, {}
while todo:
    req = todo.pop()
    name = canonicalize_name(req.name)
    if name in extras and set(req.extras) <= extras[name]:
        continue
    extras.setdefault(name, set()).update(req.extras)
    if name not in requires:
        missing[name] = f"{req.name}{'[' + ','.join(sorted(req.extras)) + ']' if req.extras else ''}{req.specifier}"
        continue
    for line in requires[name]:
        dep = Requirement(line)
        if dep.marker is None or any(dep.marker.evaluate({**env, "extra": e}) for e in {"", *extras[name]}):
            todo.append(dep)
print("\n".join(sorted(missing.values())))
PY
        )
        [ -n "$MISSING" ] || break
        mapfile -t REQS <<<"$MISSING"
    done
    [ -z "$MISSING" ] || die "the wheelhouse still lacks: $MISSING"
    cp "$TMP/requirements.txt" "$WHEELS.tmp/requirements.txt"
    touch "$WHEELS.tmp/.complete"
    mv "$WHEELS.tmp" "$WHEELS"
    for old in "$CACHE"/wheels-*; do  # wheelhouses of earlier requirement lists
        if [ "$old" != "$WHEELS" ]; then rm -rf "$old"; fi
    done
else
    log "reusing wheelhouse $WHEELS"
fi
log "wheelhouse: $(find "$WHEELS" -name '*.whl' | wc -l) wheels, $(du -sh "$WHEELS" | cut -f1)"

# Runs inside the container, with no network: pip from its own wheel, the dependencies, the checkout.
INSTALL=$(cat <<EOF
set -euo pipefail
PIP_OPTS=(--no-index --find-links /wheels --no-cache-dir --break-system-packages --root-user-action=ignore
    --disable-pip-version-check --no-warn-script-location --quiet)
pip_wheel=\$(ls /wheels/pip-*.whl | head -n 1)
python3 "\$pip_wheel/pip" install "\${PIP_OPTS[@]}" pip
python3 -m pip install "\${PIP_OPTS[@]}" -r /wheels/requirements.txt
python3 -m pip install "\${PIP_OPTS[@]}" --no-deps --no-build-isolation --editable $WORKDIR >/tmp/editable.log 2>&1 \\
    || { cat /tmp/editable.log; exit 1; }
rm -f /tmp/editable.log
python3 -m pip check
rm -rf $WORKDIR/build
mkdir -p $WORKDIR/runs $WORKDIR/.cache
python3 -m compileall -q -j 0 $WORKDIR/swarm $WORKDIR/sandbox $WORKDIR/tasks $WORKDIR/flows >/dev/null
EOF
)
CID=$(docker create --network none --user 0:0 --volume "$WHEELS:/wheels:ro" "$BASE" /bin/bash -c "$INSTALL")
log "copying the checkout ($(tr -cd '\0' <"$TMP/files" | wc -c) files) to $WORKDIR"
tar -C "$REPO" --null --files-from "$TMP/files" --owner=0 --group=0 --numeric-owner \
    --transform "s,^,${WORKDIR#/opt/}/," -cf - | docker cp - "$CID:/opt/"
log "installing (no network)"
docker start --attach "$CID" || true
rc=$(docker inspect --format '{{.State.ExitCode}}' "$CID")
[ "$rc" = 0 ] || die "the install in the container exited $rc"

NEW_ID=$(docker commit \
    --change "USER root" \
    --change "WORKDIR $WORKDIR" \
    --change 'CMD ["python"]' \
    --change "LABEL swarm.content_hash=$HASH swarm.checkout_hash=$CHECKOUT_HASH swarm.base_image=$BASE_ID" \
    "$CID")
docker rm "$CID" >/dev/null
CID=""

log "checking the image"
if ! docker run --rm --network none "$NEW_ID" python -c "import swarm, prefect, flows, tasks, sandbox; \
print('image ok: prefect', prefect.__version__, 'at', swarm.__file__)" \
    || ! docker run --rm --network none "$NEW_ID" prefect version >/dev/null; then
    docker rmi "$NEW_ID" >/dev/null 2>&1 || true
    die "the new image fails its check; $TAG is left as it was"
fi
OLD_ID=$(docker image inspect --format '{{.Id}}' "$TAG" 2>/dev/null || true)
docker tag "$NEW_ID" "$TAG"
if [ -n "$OLD_ID" ] && [ "$OLD_ID" != "$NEW_ID" ]; then
    docker rmi "$OLD_ID" >/dev/null 2>&1 || true  # the image this build replaced, unless still in use
fi
size=$(docker image inspect --format '{{.Size}}' "$TAG")
base_size=$(docker image inspect --format '{{.Size}}' "$BASE")
log "built $TAG in $((SECONDS - START)) s: $(awk -v s="$size" -v b="$base_size" \
    'BEGIN {printf "%.0f MB (%.0f MB on top of the base image)", s/1e6, (s-b)/1e6}')"
