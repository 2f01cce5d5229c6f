#!/usr/bin/env bash
# Start or stop the test Qdrant server (a plain process of the binary built for these machines).
#   tools/qdrant/qdrant.sh up     start it on loopback with an empty storage folder, wait for /readyz
#   tools/qdrant/qdrant.sh down   stop the server started by `up`
#   tools/qdrant/qdrant.sh env    print the variables the tests read, for `eval`
# The binary: QDRANT_BIN, else ../shared/tools/qdrant/qdrant beside the project. Exit 3 when there
# is none (its cases then skip, saying why). Ports: QDRANT_HTTP_PORT and QDRANT_GRPC_PORT, else
# two free ones, which `env` reports. The storage folder is emptied at each `up`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target="$here/target"
binary="${QDRANT_BIN:-$root/../shared/tools/qdrant/qdrant}"
pidfile="$target/qdrant.pid"
portfile="$target/ports"
log="$target/qdrant.log"

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

env_lines() {
    [[ -f "$portfile" ]] || { echo "qdrant.sh: not started (tools/qdrant/qdrant.sh up)" >&2; exit 1; }
    read -r http grpc <"$portfile"
    echo "export QDRANT_URL=http://127.0.0.1:$http QDRANT_GRPC_PORT=$grpc QDRANT_BIN=$binary"
}

# A pid file left by a Qdrant killed outside this script may name another process by now: the
# pid is Qdrant's only if its command line says so.
running() { [[ -f "$pidfile" ]] && ps -p "$(cat "$pidfile")" -o args= 2>/dev/null | grep -q qdrant; }

up() {
    [[ -x "$binary" ]] || { echo "qdrant.sh: no Qdrant server binary at $binary (set QDRANT_BIN)" >&2; exit 3; }
    if running; then echo "Qdrant is already running (pid $(cat "$pidfile"))"; return; fi
    rm -rf "$target/storage" "$target/snapshots"
    mkdir -p "$target/storage" "$target/snapshots"
    local http="${QDRANT_HTTP_PORT:-$(free_port)}" grpc="${QDRANT_GRPC_PORT:-$(free_port)}"
    echo "$http $grpc" >"$portfile"
    QDRANT__SERVICE__HTTP_PORT="$http" QDRANT__SERVICE__GRPC_PORT="$grpc" \
        QDRANT__STORAGE__STORAGE_PATH="$target/storage" QDRANT__STORAGE__SNAPSHOTS_PATH="$target/snapshots" \
        nohup "$binary" --config-path "$here/config.yaml" >"$log" 2>&1 &
    echo $! >"$pidfile"
    for _ in $(seq 1 120); do
        if curl -fsS "http://127.0.0.1:$http/readyz" >/dev/null 2>&1; then
            echo "Qdrant is up: http://127.0.0.1:$http"
            return
        fi
        running || { echo "qdrant.sh: Qdrant exited while starting; its log:" >&2; tail -50 "$log" >&2; exit 1; }
        sleep 0.5
    done
    echo "qdrant.sh: Qdrant did not answer within 60 s; its log: $log" >&2
    exit 1
}

down() {
    if ! running; then echo "Qdrant is not running"; rm -f "$pidfile" "$portfile"; return; fi
    local pid; pid="$(cat "$pidfile")"
    kill "$pid"
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    rm -f "$pidfile" "$portfile"
    echo "Qdrant stopped"
}

case "${1:-}" in
    up) up ;;
    down) down ;;
    env) env_lines ;;
    *) echo "usage: $0 up|down|env" >&2; exit 2 ;;
esac
