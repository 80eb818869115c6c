#!/usr/bin/env bash
# scripts/faultserver.sh — run the misbehaving fault server for Courier's fault
# tests. Same shape as scripts/httpbin.sh. The server is the copy CourierTesting
# ships (Sources/CourierTesting/Resources/faultserver.py, its only copy), which
# ExecutorConformance.Servers.startingFaultServer(httpbin:) runs from any package.
#
# Source it and call the functions (sourcing only defines functions, it sets
# no options, variables or traps):
#
#     source scripts/faultserver.sh
#     trap courier_faultserver_stop EXIT    # with httpbin: one EXIT trap that
#     courier_faultserver_start             #   calls both stop functions
#
# Or run it directly to keep a server up while you work:
#
#     scripts/faultserver.sh serve     # prints the URLs; Ctrl-C stops it
#
# or with nothing but Python (it prints the three NAME=url lines):
#
#     python3 Sources/CourierTesting/Resources/faultserver.py
#
# Set while a server runs (exported, no trailing /):
#   COURIER_FAULT_URL             http://127.0.0.1:P
#   COURIER_FAULT_URL_OTHER_HOST  http://127.0.0.2:P  (same port, another host)
#   COURIER_FAULT_URL_OTHER_PORT  http://127.0.0.1:Q  (same host, another port)
#   COURIER_FAULT_PID             not exported: the server's pid, also in
#                                 .build/faultserver.pid
# Request log: .build/faultserver.log. Routes: see the script's header.
# The server needs the Python standard library only (no virtualenv).
#
# Optional inputs:
#   COURIER_PYTHON   interpreter (default: python3)
#
# Every function returns non-zero with a message on stderr when it fails.

_courier_faultserver_root() {
    (cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
}

_courier_faultserver_say() {
    echo "faultserver: $*" >&2
}

# courier_faultserver_start
# Starts the fault server in the background, waits (at most 30 s) until
# it has written its URLs and all three origins answer GET /status/200, then
# exports the three COURIER_FAULT_URL* variables.
courier_faultserver_start() {
    local root python log pidfile envfile pid deadline url name line
    root="$(_courier_faultserver_root)" || return 1
    python="${COURIER_PYTHON:-python3}"
    log="$root/.build/faultserver.log"
    pidfile="$root/.build/faultserver.pid"
    envfile="$root/.build/faultserver.env"

    if [[ -n "${COURIER_FAULT_PID:-}" ]] && kill -0 "$COURIER_FAULT_PID" 2>/dev/null; then
        _courier_faultserver_say "already running at ${COURIER_FAULT_URL:-?} (pid $COURIER_FAULT_PID)"
        return 0
    fi
    if ! command -v "$python" >/dev/null; then
        _courier_faultserver_say "error: $python not found (set COURIER_PYTHON)"
        return 1
    fi
    mkdir -p "$root/.build" || return 1
    : >"$log" || return 1
    rm -f "$envfile"

    # Own session (Ctrl-C in the terminal does not reach it; stop kills the
    # group), SIGTERM when this shell dies without running its traps, then exec.
    "$python" -c 'import os, signal, sys
try:
    os.setsid()
except OSError:
    pass
try:
    import ctypes  # prctl(PR_SET_PDEATHSIG, SIGTERM); Linux only
    ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)
except Exception:
    pass
os.execv(sys.executable, [sys.executable] + sys.argv[1:])' \
        "$root/Sources/CourierTesting/Resources/faultserver.py" \
        --env-file "$envfile" --log "$log" --cache-dir "$root/.build/faultserver-cache" \
        </dev/null >/dev/null 2>>"$log" &
    pid=$!
    COURIER_FAULT_PID="$pid"
    export -n COURIER_FAULT_PID

    deadline=$((SECONDS + 30))
    while kill -0 "$pid" 2>/dev/null && [[ ! -s "$envfile" ]] && ((SECONDS < deadline)); do
        sleep 0.1
    done
    if [[ ! -s "$envfile" ]]; then
        _courier_faultserver_say "error: the server did not start (pid $pid); last lines of $log:"
        tail -n 40 "$log" >&2
        courier_faultserver_stop
        return 1
    fi

    while IFS='=' read -r name url; do
        case "$name" in
        COURIER_FAULT_URL | COURIER_FAULT_URL_OTHER_HOST | COURIER_FAULT_URL_OTHER_PORT) ;;
        *) continue ;;
        esac
        # Wait until this origin accepts connections and answers.
        until "$python" -c 'import sys, urllib.request
urllib.request.urlopen(sys.argv[1] + "/status/200", timeout=2).read()' "$url" 2>/dev/null; do
            if ! kill -0 "$pid" 2>/dev/null || ((SECONDS >= deadline)); then
                _courier_faultserver_say "error: $url does not answer GET /status/200; last lines of $log:"
                tail -n 40 "$log" >&2
                courier_faultserver_stop
                return 1
            fi
            sleep 0.1
        done
        export "$name=$url"
    done <"$envfile"
    if [[ -z "${COURIER_FAULT_URL:-}" || -z "${COURIER_FAULT_URL_OTHER_HOST:-}" ||
        -z "${COURIER_FAULT_URL_OTHER_PORT:-}" ]]; then
        _courier_faultserver_say "error: $envfile lacks a URL:"
        cat "$envfile" >&2
        courier_faultserver_stop
        return 1
    fi
    echo "$pid" >"$pidfile"
}

# courier_faultserver_stop
# Stops the server started by courier_faultserver_start in this shell.
# Safe to call twice or with no server.
courier_faultserver_stop() {
    local pid="${COURIER_FAULT_PID:-}" root i
    unset COURIER_FAULT_PID COURIER_FAULT_URL COURIER_FAULT_URL_OTHER_HOST COURIER_FAULT_URL_OTHER_PORT
    [[ -n "$pid" ]] || return 0
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for ((i = 0; i < 50; i++)); do           # up to 5 s
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
    fi
    kill -KILL -- "-$pid" 2>/dev/null || true    # its group (it started a session)
    wait "$pid" 2>/dev/null || true
    root="$(_courier_faultserver_root)" || return 0
    if [[ -f "$root/.build/faultserver.pid" && "$(cat "$root/.build/faultserver.pid" 2>/dev/null)" == "$pid" ]]; then
        rm -f "$root/.build/faultserver.pid"
    fi
    return 0
}

# Run directly (not sourced): `scripts/faultserver.sh serve` keeps a server up.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -euo pipefail
    case "${1:-serve}" in
    serve)
        trap courier_faultserver_stop EXIT
        trap 'exit 130' INT
        trap 'exit 143' TERM
        courier_faultserver_start
        echo "The fault server is serving; in another shell:"
        echo "    export COURIER_FAULT_URL=$COURIER_FAULT_URL"
        echo "    export COURIER_FAULT_URL_OTHER_HOST=$COURIER_FAULT_URL_OTHER_HOST"
        echo "    export COURIER_FAULT_URL_OTHER_PORT=$COURIER_FAULT_URL_OTHER_PORT"
        echo "Log: $(_courier_faultserver_root)/.build/faultserver.log. Ctrl-C stops it."
        wait "$COURIER_FAULT_PID" || true
        ;;
    *)
        echo "usage: $0 [serve]    (or source it: see the comments at its top)" >&2
        exit 2
        ;;
    esac
fi
