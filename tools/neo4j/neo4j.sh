#!/usr/bin/env bash
# Start or stop the test Neo4j (5.26 LTS Community, from Maven Central) on loopback.
#   tools/neo4j/neo4j.sh up     resolve the jars (first time: ~165 MB of jars into ~/.m2), start, wait for Bolt
#   tools/neo4j/neo4j.sh down   stop the server started by `up` (by its pid file)
#   tools/neo4j/neo4j.sh env    print the variables the tests read, for `eval`
# Ports: NEO4J_BOLT_PORT (7687), NEO4J_HTTP_PORT (7474). Data and logs: tools/neo4j/target/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="$here/target"
bolt="${NEO4J_BOLT_PORT:-7687}"
http="${NEO4J_HTTP_PORT:-7474}"
pidfile="$target/neo4j.pid"
log="$target/neo4j.log"

env_lines() {
    echo "export NEO4J_URI=bolt://127.0.0.1:$bolt NEO4J_USER=neo4j NEO4J_PASSWORD= NEO4J_DATABASE=neo4j"
    echo "export NEO4J_BROWSER_URL=http://127.0.0.1:$http/browser/"
}

# A pid file left by a server killed outside this script may name another process by now: the
# pid is Neo4j's only if its command line says so.
running() { [[ -f "$pidfile" ]] && ps -p "$(cat "$pidfile")" -o args= 2>/dev/null | grep -q Neo4jServer; }

up() {
    command -v java >/dev/null && command -v mvn >/dev/null || {
        echo "neo4j.sh: Java 17 and Maven are needed to run Neo4j from Maven Central" >&2; exit 3; }
    if running; then echo "Neo4j is already running (pid $(cat "$pidfile"))"; return; fi
    mkdir -p "$target"
    echo "Resolving Neo4j from Maven Central (cached in ~/.m2 after the first time)..."
    (cd "$here" && mvn -B -q dependency:build-classpath -Dmdep.outputFile="$target/classpath.txt")
    rm -rf "$target/data"
    # A small heap: the test database holds a few thousand nodes at most.
    nohup java -Xms256m -Xmx1g -XX:+UseSerialGC -cp "$(cat "$target/classpath.txt")" \
        "$here/Neo4jServer.java" "$target/data" "$bolt" "$http" >"$log" 2>&1 &
    echo $! >"$pidfile"
    for _ in $(seq 1 180); do
        if [[ -f "$target/data/ready" ]]; then
            echo "Neo4j is up: bolt://127.0.0.1:$bolt, Browser at http://127.0.0.1:$http/browser/"
            return
        fi
        running || { echo "neo4j.sh: Neo4j exited while starting; its log:" >&2; tail -50 "$log" >&2; exit 1; }
        sleep 1
    done
    echo "neo4j.sh: Neo4j did not answer within 180 s; its log: $log" >&2
    exit 1
}

down() {
    if ! running; then echo "Neo4j is not running"; rm -f "$pidfile"; return; fi
    local pid; pid="$(cat "$pidfile")"
    kill "$pid"
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    rm -f "$pidfile"
    echo "Neo4j stopped"
}

case "${1:-}" in
    up) up ;;
    down) down ;;
    env) env_lines ;;
    *) echo "usage: $0 up|down|env" >&2; exit 2 ;;
esac
