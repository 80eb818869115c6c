#!/usr/bin/env bash
# scripts/httpbin.sh — run a real, local httpbin server for Courier's tests.
#
# Source it and call the functions (sourcing only defines functions, it
# sets no options, variables or traps):
#
#     set -euo pipefail
#     source scripts/httpbin.sh
#     trap courier_httpbin_stop EXIT      # stop the server on every exit path
#     trap 'exit 130' INT                 # Ctrl-C / kill: exit, which runs
#     trap 'exit 143' TERM                #   the EXIT trap above
#     courier_httpbin_install             # .venv with httpbin + gunicorn
#     courier_httpbin_start               # exports COURIER_HTTPBIN_URL
#
# (`trap courier_httpbin_stop EXIT INT TERM` also stops the server, but a
# bash INT/TERM trap that does not exit lets the script carry on afterwards.)
#
# Or run it directly to keep a server up while you work:
#
#     scripts/httpbin.sh serve     # prints the URL; Ctrl-C stops the server
#
# Set while a server runs:
#   COURIER_HTTPBIN_URL  exported, e.g. http://127.0.0.1:41234 (no trailing /)
#   COURIER_HTTPBIN_PID  not exported: pid of the gunicorn master, which is
#                        also written to .build/httpbin.pid
#
# Optional inputs:
#   COURIER_PYTHON       interpreter used to create .venv (default: python3)
#
# Every function returns non-zero with a message on stderr when it fails, so
# it behaves under `set -e` and without it.

# Absolute path of the repository root (the parent of this file's folder).
# Inside a function, BASH_SOURCE[0] is the file that defined the function.
_courier_repo_root() {
    (cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
}

_courier_httpbin_say() {
    echo "httpbin: $*" >&2
}

# True when PID is a running process. Bash reaps its exited background
# children on its own, so an exited server does not linger as a zombie here.
_courier_httpbin_alive() {
    kill -0 "$1" 2>/dev/null
}

# courier_httpbin_install
# Creates <repo>/.venv on first use and installs the pinned packages from
# scripts/requirements-httpbin.txt. Later runs only check that httpbin and
# gunicorn import and that the pins have not changed since the last install,
# so they are fast and need no network.
courier_httpbin_install() {
    local root venv python requirements stamp output
    root="$(_courier_repo_root)" || return 1
    venv="$root/.venv"
    python="$venv/bin/python"
    requirements="$root/scripts/requirements-httpbin.txt"
    stamp="$venv/.courier-httpbin-requirements.txt"

    if [[ ! -x "$python" ]]; then
        _courier_httpbin_say "creating virtualenv $venv"
        if ! "${COURIER_PYTHON:-python3}" -m venv "$venv"; then
            rm -rf "$venv"   # do not leave a half-made venv for the next run
            _courier_httpbin_say "error: '${COURIER_PYTHON:-python3} -m venv' failed" \
                "(on Debian: apt-get install python3-venv)"
            return 1
        fi
    fi

    # Already installed, importable, and installed from these exact pins?
    # (Importing httpbin builds the Flask app, so this also proves it works.)
    if cmp -s "$requirements" "$stamp" &&
        "$python" -c 'import httpbin, gunicorn' >/dev/null 2>&1; then
        return 0
    fi

    _courier_httpbin_say "installing httpbin + gunicorn into $venv"
    if ! "$python" -m pip install -q --disable-pip-version-check \
        -r "$requirements"; then
        _courier_httpbin_say "error: pip install -r $requirements failed"
        return 1
    fi
    # (httpbin warns on stderr that the optional flasgger is missing: only
    # show that output if the import fails.)
    if ! output="$("$python" -c 'import httpbin, gunicorn' 2>&1)"; then
        echo "$output" >&2
        _courier_httpbin_say "error: httpbin/gunicorn installed but do not import"
        return 1
    fi
    cp "$requirements" "$stamp"
}

# courier_httpbin_start
# Starts gunicorn serving httpbin:app on 127.0.0.1:<free port> in the
# background, waits (at most 30 s) until GET /get answers, then exports
# COURIER_HTTPBIN_URL and sets COURIER_HTTPBIN_PID. Logs go to .build/httpbin.log.
courier_httpbin_start() {
    local root python log pidfile port url pid attempt deadline why
    root="$(_courier_repo_root)" || return 1
    python="$root/.venv/bin/python"
    log="$root/.build/httpbin.log"
    pidfile="$root/.build/httpbin.pid"

    if [[ -n "${COURIER_HTTPBIN_PID:-}" ]] && _courier_httpbin_alive "$COURIER_HTTPBIN_PID"; then
        _courier_httpbin_say "already running at ${COURIER_HTTPBIN_URL:-?} (pid $COURIER_HTTPBIN_PID)"
        return 0
    fi
    if [[ ! -x "$python" ]]; then
        _courier_httpbin_say "error: $root/.venv missing; call courier_httpbin_install first"
        return 1
    fi
    mkdir -p "$root/.build" || return 1
    : >"$log" || return 1

    # The free port is picked before gunicorn binds it, so another process
    # could grab it in between; gunicorn then exits and we try a new port.
    for attempt in 1 2 3; do
        # Ask the OS for a free port: bind port 0, read the port, release it.
        port="$("$python" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()')" || return 1
        url="http://127.0.0.1:$port"
        echo "--- courier: starting gunicorn on $url (attempt $attempt)" >>"$log"

        # The tiny Python wrapper puts gunicorn in a new session (so its own
        # process group, which Ctrl-C in the terminal does not reach and which
        # courier_httpbin_stop can kill as a whole), asks Linux to send it
        # SIGTERM if this shell dies without running its traps (kill -9),
        # then execs gunicorn in place, so $! is the gunicorn master's pid.
        #
        # gunicorn settings:
        #   gthread, 2 workers x 32 threads  64 requests at once, e.g. many
        #                                   parallel /delay/N calls
        #   --keep-alive 30                 idle keep-alive connections stay
        #                                   open 30 s (default 2 s invites
        #                                   "connection lost" races in clients)
        #   --timeout 60                    worker heartbeat timeout
        #   --graceful-timeout 3            shutdown waits <= 3 s for requests
        #   --no-control-socket             gunicorn >= 24 otherwise makes
        #                                   ~/.gunicorn/gunicorn.ctl, shared by
        #                                   every server of the same user
        #   --access-logfile -              access log into the log file
        "$python" -c 'import os, signal, sys
try:
    os.setsid()
except OSError:
    pass  # already a process-group leader (shell with job control)
try:
    import ctypes  # prctl(PR_SET_PDEATHSIG, SIGTERM); Linux only
    ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)
except Exception:
    pass
os.execv(sys.executable, [sys.executable, "-m", "gunicorn"] + sys.argv[1:])' \
            --bind "127.0.0.1:$port" \
            --worker-class gthread --workers 2 --threads 32 \
            --keep-alive 30 --timeout 60 --graceful-timeout 3 \
            --no-control-socket \
            --access-logfile - \
            httpbin:app \
            </dev/null >>"$log" 2>&1 &
        pid=$!
        # Deliberately not exported: a child process must never stop (or
        # reuse) a server that belongs to this shell.
        COURIER_HTTPBIN_PID="$pid"
        export -n COURIER_HTTPBIN_PID

        # Wait until it answers, it dies, or 30 s pass.
        deadline=$((SECONDS + 30))
        while _courier_httpbin_alive "$pid" && ((SECONDS < deadline)); do
            if "$python" -c 'import sys, urllib.request
urllib.request.urlopen(sys.argv[1] + "/get", timeout=2).read()' "$url" 2>/dev/null; then
                export COURIER_HTTPBIN_URL="$url"
                echo "$pid" >"$pidfile"
                return 0
            fi
            sleep 0.2
        done

        if _courier_httpbin_alive "$pid"; then
            why="is running but did not answer GET /get within 30 s"
            break   # retrying will not help
        fi
        # It exited: retry with a new port only if that port was taken.
        why="exited during startup"
        wait "$pid" 2>/dev/null || true
        unset COURIER_HTTPBIN_PID
        if ! grep -qiE 'in use|address already' "$log"; then
            break
        fi
    done

    _courier_httpbin_say "error: gunicorn on $url $why; last lines of $log:"
    tail -n 40 "$log" >&2
    courier_httpbin_stop
    return 1
}

# courier_httpbin_stop
# Stops the server started by courier_httpbin_start in this shell: SIGTERM
# to the gunicorn master (graceful, <= 3 s), then SIGKILL to its whole process
# group if anything is left after 10 s. Safe to call twice or with no server.
courier_httpbin_stop() {
    local pid="${COURIER_HTTPBIN_PID:-}" root i
    unset COURIER_HTTPBIN_PID COURIER_HTTPBIN_URL
    [[ -n "$pid" ]] || return 0

    if _courier_httpbin_alive "$pid"; then
        kill -TERM "$pid" 2>/dev/null || true
        for ((i = 0; i < 100; i++)); do          # up to 10 s
            _courier_httpbin_alive "$pid" || break
            sleep 0.1
        done
    fi
    # Workers left behind (or a master that ignored TERM): kill the group.
    # The group id is the master's pid because the master started a session;
    # kill fails harmlessly when the group is already empty.
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true              # reap it if it is our child

    root="$(_courier_repo_root)" || return 0
    if [[ -f "$root/.build/httpbin.pid" && "$(cat "$root/.build/httpbin.pid" 2>/dev/null)" == "$pid" ]]; then
        rm -f "$root/.build/httpbin.pid"
    fi
    return 0
}

# Run directly (not sourced): `scripts/httpbin.sh serve` keeps a server up.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -euo pipefail
    case "${1:-serve}" in
    serve)
        trap courier_httpbin_stop EXIT
        trap 'exit 130' INT
        trap 'exit 143' TERM
        courier_httpbin_install
        courier_httpbin_start
        echo "httpbin is serving; in another shell:"
        echo "    export COURIER_HTTPBIN_URL=$COURIER_HTTPBIN_URL"
        echo "Log: $(_courier_repo_root)/.build/httpbin.log. Ctrl-C stops it."
        wait "$COURIER_HTTPBIN_PID" || true
        ;;
    *)
        echo "usage: $0 [serve]    (or source it: see the comments at its top)" >&2
        exit 2
        ;;
    esac
fi
