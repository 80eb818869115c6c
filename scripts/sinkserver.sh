#!/usr/bin/env bash
# scripts/sinkserver.sh — run the upload sink (scripts/sinkserver.py) for
# Courier's upload tests: it hashes what it receives (SHA-256 + byte count) and
# never keeps a body. Same shape as scripts/faultserver.sh.
#
#     source scripts/sinkserver.sh
#     courier_sinkserver_start      # exports COURIER_SINK_URL=http://127.0.0.1:P
#     courier_sinkserver_stop       # safe to call twice
#
# Or `scripts/sinkserver.sh serve` to keep one up while you work. Log:
# .build/sinkserver.log. Python standard library only. COURIER_PYTHON picks
# the interpreter (default python3).

_courier_sinkserver_root() {
    (cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
}

courier_sinkserver_start() {
    local root python log envfile pid deadline line
    root="$(_courier_sinkserver_root)" || return 1
    python="${COURIER_PYTHON:-python3}"
    log="$root/.build/sinkserver.log"
    envfile="$root/.build/sinkserver.env"
    if [[ -n "${COURIER_SINK_PID:-}" ]] && kill -0 "$COURIER_SINK_PID" 2>/dev/null; then
        return 0
    fi
    mkdir -p "$root/.build" || return 1
    : >"$log" || return 1
    rm -f "$envfile"
    # Own session (stop kills the group), SIGTERM when this shell dies, then exec.
    "$python" -c 'import os, signal, sys
try:
    os.setsid()
except OSError:
    pass
try:
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)
except Exception:
    pass
os.execv(sys.executable, [sys.executable] + sys.argv[1:])' \
        "$root/scripts/sinkserver.py" </dev/null >"$envfile" 2>>"$log" &
    pid=$!
    COURIER_SINK_PID="$pid"
    export -n COURIER_SINK_PID
    deadline=$((SECONDS + 30))
    while kill -0 "$pid" 2>/dev/null && [[ ! -s "$envfile" ]] && ((SECONDS < deadline)); do
        sleep 0.1
    done
    line="$(head -n 1 "$envfile" 2>/dev/null)"
    if [[ "$line" != COURIER_SINK_URL=* ]]; then
        echo "sinkserver: error: the server did not start (pid $pid); last lines of $log:" >&2
        tail -n 20 "$log" >&2
        courier_sinkserver_stop
        return 1
    fi
    until "$python" -c 'import sys, urllib.request
urllib.request.urlopen(sys.argv[1] + "/status/200", timeout=2).read()' "${line#COURIER_SINK_URL=}" 2>/dev/null; do
        if ! kill -0 "$pid" 2>/dev/null || ((SECONDS >= deadline)); then
            echo "sinkserver: error: ${line#COURIER_SINK_URL=} does not answer" >&2
            courier_sinkserver_stop
            return 1
        fi
        sleep 0.1
    done
    export COURIER_SINK_URL="${line#COURIER_SINK_URL=}"
}

courier_sinkserver_stop() {
    local pid="${COURIER_SINK_PID:-}" i
    unset COURIER_SINK_PID COURIER_SINK_URL
    [[ -n "$pid" ]] || return 0
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for ((i = 0; i < 50; i++)); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
    fi
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    return 0
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -euo pipefail
    trap courier_sinkserver_stop EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    courier_sinkserver_start
    echo "The sink is serving; in another shell: export COURIER_SINK_URL=$COURIER_SINK_URL (Ctrl-C stops it)"
    wait "$COURIER_SINK_PID" || true
fi
