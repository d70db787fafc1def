#!/usr/bin/env bash
# Install (if missing) and start (if not answering) a local Docker engine. Idempotent; run as root.
#
# The daemon runs without a bridge, iptables rules or IP forwarding, so the host network stays untouched;
# sandbox containers use network_mode="none" anyway.
# Env: SWARM_DOCKERD_LOG (default /var/log/swarm-dockerd.log), SWARM_DOCKERD_WAIT_S (default 30).
set -euo pipefail

LOG=${SWARM_DOCKERD_LOG:-/var/log/swarm-dockerd.log}
WAIT_S=${SWARM_DOCKERD_WAIT_S:-30}

log() { echo "[setup_engine] $*"; }

if [ "$(id -u)" -ne 0 ]; then
    echo "[setup_engine] error: must run as root (installs packages and starts dockerd)" >&2
    exit 2
fi

missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
if [ ${#missing[@]} -gt 0 ]; then
    log "installing: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
    log "docker.io and debootstrap already installed"
fi

if docker info >/dev/null 2>&1; then
    log "engine already answers"
    exit 0
fi

# A SIGKILLed dockerd leaves pid files behind that make the next start fail.
for pidfile in /var/run/docker.pid /var/run/docker/containerd/containerd.pid; do
    if [ -f "$pidfile" ]; then
        pid=$(cat "$pidfile" 2>/dev/null || true)
        if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
            log "removing stale $pidfile"
            rm -f "$pidfile"
        fi
    fi
done

if ! pgrep -x dockerd >/dev/null 2>&1; then
    log "starting dockerd (log: $LOG)"
    mkdir -p "$(dirname "$LOG")"
    nohup setsid dockerd \
        --bridge=none --iptables=false --ip6tables=false --ip-forward=false \
        --ip-masq=false --userland-proxy=false >>"$LOG" 2>&1 </dev/null &
fi

for _ in $(seq 1 $((WAIT_S * 4))); do
    if docker info >/dev/null 2>&1; then
        log "engine ready: $(docker version --format '{{.Server.Version}}' 2>/dev/null)"
        exit 0
    fi
    sleep 0.25
done
echo "[setup_engine] error: dockerd did not answer within ${WAIT_S}s; last log lines:" >&2
tail -n 20 "$LOG" >&2 || true
exit 1
