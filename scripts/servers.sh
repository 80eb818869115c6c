#!/usr/bin/env bash
# scripts/servers.sh — the one launcher of the real servers Courier's tests talk to. The servers themselves are in
# scripts/servers/ (the SSE server, the upload sink, httpbin's pinned requirements), except the fault server,
# whose only copy is the one CourierTesting ships (Sources/CourierTesting/Resources/faultserver.py).
#
# Source it and call the functions (sourcing only defines functions; it sets no options, variables or traps):
#
#     set -euo pipefail
#     source scripts/servers.sh
#     trap courier_servers_stop EXIT      # stops every server this shell started, on every way out
#     trap 'exit 130' INT                 # Ctrl-C / kill: exit, which runs the EXIT trap
#     trap 'exit 143' TERM
#     courier_httpbin_install             # .venv with httpbin + gunicorn (pip, first run only)
#     courier_httpbin_start               # COURIER_HTTPBIN_URL
#     courier_faultserver_start           # COURIER_FAULT_URL, COURIER_FAULT_URL_OTHER_HOST, COURIER_FAULT_URL_OTHER_PORT
#     courier_sinkserver_start            # COURIER_SINK_URL (the upload sink: hashes bodies, keeps none)
#     courier_sseserver_start             # COURIER_SSE_URL (Server-Sent Events)
#     courier_tlsserver_start             # COURIER_TLS_DIR, COURIER_TLS_*_PORT (a private CA and its TLS origins)
#     courier_nginx_start                 # COURIER_NGINX_URL, COURIER_BIG_FILE_BYTES, COURIER_BIG_FILE_SHA256
#     courier_h2server_start              # COURIER_H2_URL, COURIER_H2_GOAWAY_URL, COURIER_H1_TLS_URL (nginx, h2)
#     courier_proxy_start                 # COURIER_PROXY_URL, _USER, _PASSWORD (squid, Basic auth)
#
# Or run it to keep servers up while you work (it prints the `export` lines; Ctrl-C stops them):
#
#     scripts/servers.sh serve [httpbin] [fault] [sink] [sse] [nginx]     (default: httpbin fault sink sse)
#
# Every server listens on loopback only, on a free port, in a session of its own (Ctrl-C in the terminal does
# not reach it; stopping kills its group), and gets SIGTERM when the shell that started it dies without running
# its traps. The exported URLs have no trailing slash. Logs: .build/<server>.log (nginx: .build/private/transfers/).
#
# What it installs and writes:
#   httpbin   a virtualenv .venv with the pins of scripts/servers/requirements-httpbin.txt (pip, once; later runs
#             only check them, with no network)
#   nginx     `apt-get install nginx` when there is none on PATH or in /usr/sbin (as root, or with sudo -n); it
#             says so first. Its large file, COURIER_BIG_DOWNLOAD_BYTES random bytes (default 1 GiB), is made once
#             per size in .build/private/transfers/www/big.bin.
# The other servers need Python's standard library only. COURIER_PYTHON picks the interpreter (default python3).
#
# Every function returns non-zero with a message on stderr when it fails, under `set -e` or without it.

_courier_root() {
    (cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
}

_courier_python() {
    echo "${COURIER_PYTHON:-python3}"
}

# _courier_spawn PIDVAR OUT LOG PROGRAM [ARGUMENTS...]
# Starts PROGRAM in the background, in a session of its own, with SIGTERM when this shell dies (Linux), standard
# output appended to OUT and standard error to LOG; sets PIDVAR (not exported: a child process must never stop a
# server of this shell).
_courier_spawn() {
    local pidvar="$1" out="$2" log="$3"
    shift 3
    "$(_courier_python)" -c 'import os, signal, sys
try:
    os.setsid()
except OSError:
    pass
try:
    import ctypes  # prctl(PR_SET_PDEATHSIG, SIGTERM); Linux only
    ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)
except Exception:
    pass
os.execvp(sys.argv[1], sys.argv[1:])' "$@" </dev/null >>"$out" 2>>"$log" &
    printf -v "$pidvar" '%s' "$!"
    export -n "${pidvar?}"
}

# _courier_wait_file PID FILE SECONDS: true once FILE is not empty; false if PID ends or SECONDS pass first.
_courier_wait_file() {
    local pid="$1" file="$2" deadline=$((SECONDS + $3))
    while kill -0 "$pid" 2>/dev/null && [[ ! -s "$file" ]] && ((SECONDS < deadline)); do
        sleep 0.1
    done
    [[ -s "$file" ]]
}

# _courier_wait_http PID URL SECONDS: true once GET URL (its first byte) gets an HTTP answer, whatever its status;
# false if PID ends or SECONDS pass first.
_courier_wait_http() {
    local pid="$1" url="$2" deadline=$((SECONDS + $3))
    until "$(_courier_python)" -c 'import sys, urllib.error, urllib.request
try:
    urllib.request.urlopen(urllib.request.Request(sys.argv[1], headers={"Range": "bytes=0-0"}), timeout=2).read()
except urllib.error.HTTPError:
    pass' "$url" 2>/dev/null; do
        if ! kill -0 "$pid" 2>/dev/null || ((SECONDS >= deadline)); then return 1; fi
        sleep 0.1
    done
}

# _courier_http_status URL: the status of a GET for URL's first byte (Range: bytes=0-0), or 000 without an answer.
_courier_http_status() {
    "$(_courier_python)" -c 'import sys, urllib.error, urllib.request
try:
    with urllib.request.urlopen(urllib.request.Request(sys.argv[1], headers={"Range": "bytes=0-0"}), timeout=5) as r:
        r.read()
        print(r.status)
except urllib.error.HTTPError as e:
    print(e.code)
except Exception:
    print("000")' "$1"
}

# _courier_stop PID SECONDS: SIGTERM, up to SECONDS for it to end, then SIGKILL to its whole group; reaps it.
# Safe with an empty PID or one that already ended.
_courier_stop() {
    local pid="$1" i
    [[ -n "$pid" ]] || return 0
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for ((i = 0; i < $2 * 10; i++)); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
    fi
    kill -KILL -- "-$pid" 2>/dev/null || true # its group: it started a session
    wait "$pid" 2>/dev/null || true
    return 0
}

# _courier_fail WHO LOG MESSAGE: says MESSAGE and the last lines of LOG; returns 1.
_courier_fail() {
    echo "$1: error: $3; last lines of $2:" >&2
    tail -n 30 "$2" >&2 2>/dev/null || true
    return 1
}

_courier_free_port() {
    "$(_courier_python)" -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# --- httpbin (PyPI httpbin under gunicorn) --------------------------------------------------------------------

# _courier_venv_install WHO VENV REQUIREMENTS MODULES: creates the virtualenv VENV on first use and installs the pins
# of REQUIREMENTS; later runs only check that MODULES (`a, b`) import and that the pins did not change, so they are
# fast and need no network.
_courier_venv_install() {
    local who="$1" venv="$2" requirements="$3" modules="$4" python stamp output
    python="$venv/bin/python"
    stamp="$venv/.courier-$who-requirements.txt"
    if [[ ! -x "$python" ]]; then
        echo "$who: creating the virtualenv $venv" >&2
        mkdir -p "$(dirname "$venv")"
        if ! "$(_courier_python)" -m venv "$venv"; then
            rm -rf "$venv" # no half-made venv for the next run
            echo "$who: error: '$(_courier_python) -m venv' failed (on Debian: apt-get install python3-venv)" >&2
            return 1
        fi
    fi
    # Installed from these exact pins, and importable?
    if cmp -s "$requirements" "$stamp" && "$python" -c "import $modules" >/dev/null 2>&1; then
        return 0
    fi
    echo "$who: installing $modules into $venv (pip, pinned in $requirements)" >&2
    "$python" -m pip install -q --disable-pip-version-check -r "$requirements" ||
        { echo "$who: error: pip install -r $requirements failed" >&2; return 1; }
    # A module may warn on stderr when it imports (httpbin: the optional flasgger): show that only if it fails.
    if ! output="$("$python" -c "import $modules" 2>&1)"; then
        echo "$output" >&2
        echo "$who: error: $modules installed but do not import" >&2
        return 1
    fi
    cp "$requirements" "$stamp"
}

# courier_httpbin_install: .venv with the pins of scripts/servers/requirements-httpbin.txt (see _courier_venv_install).
courier_httpbin_install() {
    local root
    root="$(_courier_root)" || return 1
    _courier_venv_install httpbin "$root/.venv" "$root/scripts/servers/requirements-httpbin.txt" "httpbin, gunicorn"
}

# courier_httpbin_start: gunicorn serving httpbin:app on a free port; exports COURIER_HTTPBIN_URL once GET /get
# answers (at most 30 s). gunicorn: gthread, 2 workers x 32 threads (64 requests at once, e.g. parallel /delay/N);
# --keep-alive 30 (the default 2 s invites "connection lost" races in clients); --graceful-timeout 3;
# --no-control-socket (gunicorn >= 24 otherwise makes ~/.gunicorn/gunicorn.ctl, shared by every server of a user).
courier_httpbin_start() {
    local root python log port url attempt
    root="$(_courier_root)" || return 1
    python="$root/.venv/bin/python"
    log="$root/.build/httpbin.log"
    if [[ -n "${COURIER_HTTPBIN_PID:-}" ]] && kill -0 "$COURIER_HTTPBIN_PID" 2>/dev/null; then return 0; fi
    [[ -x "$python" ]] || { echo "httpbin: error: $root/.venv missing; call courier_httpbin_install first" >&2; return 1; }
    mkdir -p "$root/.build" && : >"$log" || return 1
    # The free port is picked before gunicorn binds it; if another process takes it in between, gunicorn exits
    # and a new port is tried.
    for attempt in 1 2 3; do
        port="$(_courier_free_port)" || return 1
        url="http://127.0.0.1:$port"
        echo "--- courier: starting gunicorn on $url (attempt $attempt)" >>"$log"
        _courier_spawn COURIER_HTTPBIN_PID "$log" "$log" "$python" -m gunicorn --bind "127.0.0.1:$port" \
            --worker-class gthread --workers 2 --threads 32 --keep-alive 30 --timeout 60 --graceful-timeout 3 \
            --no-control-socket --access-logfile - httpbin:app
        if _courier_wait_http "$COURIER_HTTPBIN_PID" "$url/get" 30; then
            export COURIER_HTTPBIN_URL="$url"
            return 0
        fi
        if kill -0 "$COURIER_HTTPBIN_PID" 2>/dev/null || ! grep -qiE 'in use|address already' "$log"; then
            break # running but not answering, or exited for another reason than the port: retrying will not help
        fi
        _courier_stop "$COURIER_HTTPBIN_PID" 0
    done
    courier_httpbin_stop
    _courier_fail httpbin "$log" "gunicorn on $url did not answer GET /get"
}

# courier_httpbin_stop: graceful (up to 10 s), then the whole group. Safe to call twice or with no server.
courier_httpbin_stop() {
    _courier_stop "${COURIER_HTTPBIN_PID:-}" 10
    unset COURIER_HTTPBIN_PID COURIER_HTTPBIN_URL
}

# --- the servers that write their URLs to a file --------------------------------------------------------------

# _courier_start_env NAME PIDVAR ENVFILE OUT PROGRAM [ARGUMENTS...]: starts PROGRAM, which writes NAME=url lines to
# ENVFILE once it listens (OUT is ENVFILE, or - for none), waits until every URL answers and exports them.
_courier_start_env() {
    local name="$1" pidvar="$2" envfile="$3" out="$4" root log pid key url
    shift 4
    root="$(_courier_root)" || return 1
    log="$root/.build/$name.log"
    if [[ -n "${!pidvar:-}" ]] && kill -0 "${!pidvar}" 2>/dev/null; then return 0; fi
    command -v "$(_courier_python)" >/dev/null || { echo "$name: error: $(_courier_python) not found (set COURIER_PYTHON)" >&2; return 1; }
    mkdir -p "$root/.build" "$(dirname "$envfile")" && : >"$log" || return 1
    rm -f "$envfile"
    [[ "$out" == "$envfile" ]] || out=/dev/null
    _courier_spawn "$pidvar" "$out" "$log" "$@"
    pid="${!pidvar}"
    _courier_wait_file "$pid" "$envfile" 30 || { _courier_stop "$pid" 5; _courier_fail "$name" "$log" "the server did not start"; return 1; }
    while IFS='=' read -r key url; do
        [[ "$key" == COURIER_*_URL* && -n "$url" ]] || continue
        _courier_wait_http "$pid" "$url" 30 || { _courier_stop "$pid" 5; _courier_fail "$name" "$log" "$url does not answer"; return 1; }
        export "$key=$url"
    done <"$envfile"
}

# courier_faultserver_start: the misbehaving fault server (routes: see the script's header) on three origins:
# COURIER_FAULT_URL (http://127.0.0.1:P), COURIER_FAULT_URL_OTHER_HOST (http://127.0.0.2:P, another host) and
# COURIER_FAULT_URL_OTHER_PORT (http://127.0.0.1:Q, another port). Writes .build/faultserver.env.
courier_faultserver_start() {
    local root
    root="$(_courier_root)" || return 1
    _courier_start_env faultserver COURIER_FAULT_PID "$root/.build/faultserver.env" - \
        "$(_courier_python)" "$root/Sources/CourierTesting/Resources/faultserver.py" \
        --env-file "$root/.build/faultserver.env" --log "$root/.build/faultserver.log" \
        --cache-dir "$root/.build/faultserver-cache" || return 1
    if [[ -z "${COURIER_FAULT_URL:-}" || -z "${COURIER_FAULT_URL_OTHER_HOST:-}" || -z "${COURIER_FAULT_URL_OTHER_PORT:-}" ]]; then
        courier_faultserver_stop
        echo "faultserver: error: $root/.build/faultserver.env lacks a URL" >&2
        return 1
    fi
}

courier_faultserver_stop() {
    _courier_stop "${COURIER_FAULT_PID:-}" 5
    unset COURIER_FAULT_PID COURIER_FAULT_URL COURIER_FAULT_URL_OTHER_HOST COURIER_FAULT_URL_OTHER_PORT
}

# courier_tlsserver_start: the TLS server (scripts/servers/tlsserver.py): a private CA and its certificates made with
# openssl into a temporary folder (COURIER_TLS_DIR, removed when the server stops) and an HTTPS origin per case on
# 127.0.0.1 (COURIER_TLS_MAIN_PORT, _MTLS_, _OTHER_, _EXPIRED_, _WRONGHOST_, _SELFSIGNED_PORT; see the script's
# header).
courier_tlsserver_start() {
    local root key value
    root="$(_courier_root)" || return 1
    command -v openssl >/dev/null || { echo "tlsserver: error: openssl not found" >&2; return 1; }
    _courier_start_env tlsserver COURIER_TLS_PID "$root/.build/tlsserver.env" - \
        "$(_courier_python)" "$root/scripts/servers/tlsserver.py" \
        --env-file "$root/.build/tlsserver.env" --log "$root/.build/tlsserver.log" || return 1
    while IFS='=' read -r key value; do
        [[ "$key" == COURIER_TLS_* && -n "$value" ]] && export "$key=$value"
    done <"$root/.build/tlsserver.env"
    if [[ -z "${COURIER_TLS_DIR:-}" || -z "${COURIER_TLS_MAIN_PORT:-}" ]]; then
        courier_tlsserver_stop
        echo "tlsserver: error: $root/.build/tlsserver.env lacks its values" >&2
        return 1
    fi
}

courier_tlsserver_stop() {
    _courier_stop "${COURIER_TLS_PID:-}" 5
    unset COURIER_TLS_PID COURIER_TLS_DIR COURIER_TLS_MAIN_PORT COURIER_TLS_MTLS_PORT COURIER_TLS_OTHER_PORT \
        COURIER_TLS_EXPIRED_PORT COURIER_TLS_WRONGHOST_PORT COURIER_TLS_SELFSIGNED_PORT
}

# courier_sinkserver_start: the upload sink (scripts/servers/sinkserver.py), COURIER_SINK_URL.
courier_sinkserver_start() {
    local root
    root="$(_courier_root)" || return 1
    _courier_start_env sinkserver COURIER_SINK_PID "$root/.build/sinkserver.env" "$root/.build/sinkserver.env" \
        "$(_courier_python)" "$root/scripts/servers/sinkserver.py"
}

courier_sinkserver_stop() {
    _courier_stop "${COURIER_SINK_PID:-}" 5
    unset COURIER_SINK_PID COURIER_SINK_URL
}

# courier_sseserver_start: the Server-Sent Events server (scripts/servers/sseserver.py), COURIER_SSE_URL.
courier_sseserver_start() {
    local root
    root="$(_courier_root)" || return 1
    _courier_start_env sseserver COURIER_SSE_PID "$root/.build/sseserver.env" - \
        "$(_courier_python)" "$root/scripts/servers/sseserver.py" --env-file "$root/.build/sseserver.env"
}

courier_sseserver_stop() {
    _courier_stop "${COURIER_SSE_PID:-}" 5
    unset COURIER_SSE_PID COURIER_SSE_URL
}

# --- nginx and its large file ----------------------------------------------------------------------------------

_courier_nginx_path() {
    command -v nginx 2>/dev/null && return 0
    [[ -x /usr/sbin/nginx ]] && echo /usr/sbin/nginx && return 0
    return 1
}

_courier_nginx_install() {
    _courier_nginx_path >/dev/null && return 0
    _courier_apt_install nginx nginx && _courier_nginx_path >/dev/null
}

# _courier_apt_install WHO PACKAGE: installs Debian's PACKAGE with apt-get (as root, or with sudo -n), saying so first.
_courier_apt_install() {
    local who="$1" package="$2" sudo=""
    command -v apt-get >/dev/null ||
        { echo "$who: error: $package is missing and there is no apt-get: install $package" >&2; return 1; }
    if [[ "$(id -u)" != 0 ]]; then
        command -v sudo >/dev/null ||
            { echo "$who: error: $package is missing; install it (apt-get needs root)" >&2; return 1; }
        sudo="sudo -n"
    fi
    echo "$who: not installed: installing it with \`${sudo:+$sudo }apt-get update && apt-get install -y $package\`" \
        "(Debian's package; it is run as a private instance, never as a system service)" >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq >/dev/null &&
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$package" >/dev/null ||
        { echo "$who: error: apt-get install $package failed" >&2; return 1; }
}

# _courier_nginx_preamble PREFIX CONNECTIONS: the top of a private nginx's config: in the foreground, one worker,
# its pid in PREFIX and its errors in PREFIX/logs/error.log. Started as root, nginx switches its worker to the `user`
# of the config (nobody when there is none): the invoking user's, so that it can read what that user wrote; started
# as anyone else, it cannot switch, and the directive would only add a warning.
_courier_nginx_preamble() {
    echo "daemon off;"
    if [[ "$(id -u)" == 0 ]]; then echo "user $(id -un) $(id -gn);"; fi
    echo "worker_processes 1;"
    echo "pid $1/nginx.pid;"
    echo "error_log $1/logs/error.log warn;"
    echo "events { worker_connections $2; }"
}

# _courier_nginx_temp_paths DIR: the `http` block's temporary paths, all in DIR (never the system's), on one line.
_courier_nginx_temp_paths() {
    local kind line=""
    for kind in client_body proxy fastcgi uwsgi scgi; do line+="${kind}_temp_path $1/${kind/client_body/body}; "; done
    echo "$line"
}

# courier_nginx_start: a private nginx (its own prefix, config, pid and logs under .build/private/transfers/nginx, on
# 127.0.0.1, no daemon, no system files) serving one large random file: COURIER_NGINX_URL (GET /big.bin; and
# /slow-start/big.bin, the same slowed to 2 MB/s after 8 MiB unless the request has a Range header, so a test can
# cancel a download midway however fast the machine), COURIER_BIG_FILE_BYTES and COURIER_BIG_FILE_SHA256.
# The size is COURIER_BIG_DOWNLOAD_BYTES (default 1 GiB); the file is made once per size and kept, with its hash.
#
# Where the checkout is must not matter: the files live in COURIER_TRANSFERS_DIR (default
# .build/private/transfers), and .build/private is made mode 700 on purpose, so every run serves the file from
# behind a directory other users cannot enter, as a clone under /root or in a `mktemp -d` folder does. nginx started
# as root would run its worker as an unprivileged user that cannot traverse such a directory (a row of 403s), so
# the config names the invoking user and group for the worker. Before it exports anything, the start fetches the
# first byte of both routes and fails with the cause if nginx cannot read the file.
courier_nginx_start() {
    local root dir size file hashfile nginx port status route
    root="$(_courier_root)" || return 1
    if [[ -n "${COURIER_TRANSFERS_DIR:-}" ]]; then
        dir="$COURIER_TRANSFERS_DIR"
    else
        mkdir -p "$root/.build/private" && chmod 700 "$root/.build/private" || return 1
        dir="$root/.build/private/transfers"
    fi
    if [[ -n "${COURIER_NGINX_PID:-}" ]] && kill -0 "$COURIER_NGINX_PID" 2>/dev/null; then return 0; fi
    size="${COURIER_BIG_DOWNLOAD_BYTES:-1073741824}"
    file="$dir/www/big.bin"
    hashfile="$dir/big-$size.sha256"
    mkdir -p "$dir/www" "$dir/nginx/logs" "$dir/nginx/tmp" || return 1
    if [[ ! -s "$hashfile" || "$(stat -c %s "$file" 2>/dev/null || echo 0)" != "$size" ]]; then
        echo "nginx: writing a $size-byte random file, $file (once per size)" >&2
        head -c "$size" /dev/urandom >"$file.tmp" && mv "$file.tmp" "$file" || return 1
        sha256sum "$file" | cut -d' ' -f1 >"$hashfile" || return 1
    fi
    _courier_nginx_install || return 1
    nginx="$(_courier_nginx_path)"
    port="$(_courier_free_port)" || return 1
    cat >"$dir/nginx/nginx.conf" <<CONF
$(_courier_nginx_preamble "$dir/nginx" 64)
http {
    $(_courier_nginx_temp_paths "$dir/nginx/tmp")
    access_log off;
    sendfile on;
    tcp_nopush on;
    default_type application/octet-stream;
    map \$http_range \$courier_rate {
        default 2m;
        "~bytes=" 0;
    }
    server {
        listen 127.0.0.1:$port;
        root $dir/www;
        location /slow-start/ {
            alias $dir/www/;
            limit_rate_after 8m;
            limit_rate \$courier_rate;
        }
    }
}
CONF
    _courier_spawn COURIER_NGINX_PID /dev/null "$dir/nginx/logs/error.log" \
        "$nginx" -p "$dir/nginx" -c "$dir/nginx/nginx.conf"
    if ! _courier_wait_http "$COURIER_NGINX_PID" "http://127.0.0.1:$port/big.bin" 20; then
        courier_nginx_stop
        _courier_fail nginx "$dir/nginx/logs/error.log" "nginx does not answer"
        return 1
    fi
    # The file itself, through both routes: a worker that cannot read it answers 403 (or 404), never the byte.
    for route in big.bin slow-start/big.bin; do
        status="$(_courier_http_status "http://127.0.0.1:$port/$route")"
        if [[ "$status" != 206 ]]; then
            courier_nginx_stop
            _courier_fail nginx "$dir/nginx/logs/error.log" "nginx answers $status, not 206, to the first byte of\
 /$route: its worker (user $(id -un)) cannot read $file; every directory above it must be enterable by that user"
            return 1
        fi
    done
    export COURIER_NGINX_URL="http://127.0.0.1:$port" COURIER_BIG_FILE_BYTES="$size"
    COURIER_BIG_FILE_SHA256="$(cat "$hashfile")"
    export COURIER_BIG_FILE_SHA256
}

courier_nginx_stop() {
    _courier_stop "${COURIER_NGINX_PID:-}" 5
    unset COURIER_NGINX_PID COURIER_NGINX_URL COURIER_BIG_FILE_BYTES COURIER_BIG_FILE_SHA256
}

# courier_h2server_start: a private nginx speaking HTTP/2 over TLS (ALPN `h2`, and HTTP/1.1 for a client that asks
# for it), in front of the fault server, with the TLS server's certificate (start both first). Three origins on
# 127.0.0.1, each with its own port:
#   COURIER_H2_URL        HTTP/2 and HTTP/1.1 (the client's choice by ALPN):
#                           GET /connection   200 "<nginx's connection number> <protocol>" (`42 HTTP/2.0`)
#                           GET /reset        the stream reset (RST_STREAM); the connection and its other streams go on
#                           anything else     the fault server's route (/count, /flaky, /status/…)
#   COURIER_H2_GOAWAY_URL the same, but each connection serves 4 requests, then sends GOAWAY: the streams after
#                         the 4th are not processed
#   COURIER_H1_TLS_URL    the same as COURIER_H2_URL with HTTP/1.1 only (a benchmark's baseline)
# Files and logs: .build/private/h2server.
courier_h2server_start() {
    local root dir nginx port goaway_port h1_port
    root="$(_courier_root)" || return 1
    if [[ -n "${COURIER_H2_PID:-}" ]] && kill -0 "$COURIER_H2_PID" 2>/dev/null; then return 0; fi
    if [[ -z "${COURIER_TLS_DIR:-}" || -z "${COURIER_FAULT_URL:-}" ]]; then
        echo "h2server: error: start the TLS server and the fault server first" >&2
        return 1
    fi
    mkdir -p "$root/.build/private" && chmod 700 "$root/.build/private" || return 1
    dir="$root/.build/private/h2server"
    rm -rf "$dir" && mkdir -p "$dir/logs" "$dir/tmp" || return 1
    # The certificate and key live in the TLS server's folder, which it removes when it stops: nginx keeps copies.
    cp "$COURIER_TLS_DIR/server.pem" "$COURIER_TLS_DIR/server.key" "$dir/" || return 1
    _courier_nginx_install || return 1
    nginx="$(_courier_nginx_path)"
    port="$(_courier_free_port)" && goaway_port="$(_courier_free_port)" && h1_port="$(_courier_free_port)" || return 1
    cat >"$dir/nginx.conf" <<CONF
$(_courier_nginx_preamble "$dir" 1024)
http {
    $(_courier_nginx_temp_paths "$dir/tmp")
    access_log off;
    default_type text/plain;
    ssl_certificate $dir/server.pem;
    ssl_certificate_key $dir/server.key;
    http2_max_concurrent_streams 128;
    keepalive_requests 1000000;
    keepalive_timeout 120s;
    proxy_http_version 1.1;
    proxy_buffering off;
    proxy_request_buffering off;
    server {
        listen 127.0.0.1:$port ssl http2;
        location = /connection { return 200 "\$connection \$server_protocol"; }
        location = /reset { return 444; }
        location / { proxy_pass $COURIER_FAULT_URL; }
    }
    server {
        listen 127.0.0.1:$goaway_port ssl http2;
        keepalive_requests 4;
        location = /connection { return 200 "\$connection \$server_protocol"; }
        location / { proxy_pass $COURIER_FAULT_URL; }
    }
    server {
        listen 127.0.0.1:$h1_port ssl;
        location = /connection { return 200 "\$connection \$server_protocol"; }
        location / { proxy_pass $COURIER_FAULT_URL; }
    }
}
CONF
    _courier_spawn COURIER_H2_PID /dev/null "$dir/logs/error.log" "$nginx" -p "$dir" -c "$dir/nginx.conf"
    if ! _courier_wait_h2 "$COURIER_H2_PID" "https://127.0.0.1:$port/connection" 20; then
        courier_h2server_stop
        _courier_fail h2server "$dir/logs/error.log" "nginx does not answer over HTTP/2"
        return 1
    fi
    export COURIER_H2_URL="https://127.0.0.1:$port" COURIER_H2_GOAWAY_URL="https://127.0.0.1:$goaway_port"
    export COURIER_H1_TLS_URL="https://127.0.0.1:$h1_port"
}

# _courier_wait_h2 PID URL SECONDS: true once URL answers `200` over TLS with the test CA; false if PID ends or
# SECONDS pass first.
_courier_wait_h2() {
    local pid="$1" url="$2" deadline=$((SECONDS + $3))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
        if "$(_courier_python)" - "$url" "$COURIER_TLS_DIR/ca.pem" 2>/dev/null <<'PY'; then return 0; fi
import ssl, sys, urllib.request
context = ssl.create_default_context(cafile=sys.argv[2])
sys.exit(0 if urllib.request.urlopen(sys.argv[1], context=context, timeout=2).status == 200 else 1)
PY
        sleep 0.1
    done
    return 1
}

courier_h2server_stop() {
    _courier_stop "${COURIER_H2_PID:-}" 5
    unset COURIER_H2_PID COURIER_H2_URL COURIER_H2_GOAWAY_URL COURIER_H1_TLS_URL
}

# courier_proxy_start: squid (Debian's package, installed with apt-get when missing), a private instance on
# 127.0.0.1 with Basic auth: user `courier`, a password made at start. It forwards `http` requests and tunnels
# (CONNECT) to the ports of COURIER_PROXY_TUNNEL_PORTS (space-separated, set before the start), and refuses a tunnel
# to any other port with 403. It resolves `proxied.courier.test` to 127.0.0.1 from a hosts file of its own, so a
# call to that name succeeds only through the proxy. Exports COURIER_PROXY_URL (`http://127.0.0.1:P`, no
# credentials), COURIER_PROXY_USER and COURIER_PROXY_PASSWORD. Files and logs: a temporary folder (squid started
# as root runs as the user `proxy`, which must be able to enter it), COURIER_PROXY_DIR, removed when it stops.
courier_proxy_start() {
    local dir port squid password owner tunnel
    if [[ -n "${COURIER_PROXY_PID:-}" ]] && kill -0 "$COURIER_PROXY_PID" 2>/dev/null; then return 0; fi
    squid="$(command -v squid || echo /usr/sbin/squid)"
    if [[ ! -x "$squid" ]]; then
        _courier_apt_install proxy squid || return 1
        squid="$(command -v squid || echo /usr/sbin/squid)"
    fi
    [[ -x /usr/lib/squid/basic_ncsa_auth ]] ||
        { echo "proxy: error: /usr/lib/squid/basic_ncsa_auth is missing (Debian's squid has it)" >&2; return 1; }
    dir="$(mktemp -d -t courier-proxy.XXXXXX)" && chmod 755 "$dir" || return 1
    port="$(_courier_free_port)" || return 1
    password="$("$(_courier_python)" -c 'import secrets; print("pw-" + secrets.token_hex(8))')" || return 1
    printf 'courier:%s\n' "$(openssl passwd -apr1 "$password")" >"$dir/passwd" || return 1
    printf '127.0.0.1 proxied.courier.test\n' >"$dir/hosts"
    tunnel="${COURIER_PROXY_TUNNEL_PORTS:-}"
    cat >"$dir/squid.conf" <<CONF
http_port 127.0.0.1:$port
pid_filename $dir/squid.pid
cache_log $dir/cache.log
access_log stdio:$dir/access.log
cache_store_log none
netdb_filename none
coredump_dir $dir
cache deny all
shutdown_lifetime 0 seconds
pinger_enable off
hosts_file $dir/hosts
dns_nameservers 127.0.0.1
auth_param basic program /usr/lib/squid/basic_ncsa_auth $dir/passwd
auth_param basic realm courier-test
acl authed proxy_auth REQUIRED
acl tunnel_ports port ${tunnel:-1}
http_access deny CONNECT !tunnel_ports
http_access allow authed
http_access deny all
CONF
    if [[ "$(id -u)" == 0 ]]; then
        owner="proxy"
        id proxy >/dev/null 2>&1 || owner="nobody"
        chown -R "$owner" "$dir" || return 1
        echo "cache_effective_user $owner" >>"$dir/squid.conf"
    fi
    export COURIER_PROXY_DIR="$dir"
    _courier_spawn COURIER_PROXY_PID /dev/null "$dir/squid.err" "$squid" -N -f "$dir/squid.conf"
    if ! _courier_wait_proxy "$COURIER_PROXY_PID" "$port" 20; then
        courier_proxy_stop
        _courier_fail proxy "$dir/squid.err" "squid does not answer"
        return 1
    fi
    export COURIER_PROXY_URL="http://127.0.0.1:$port" COURIER_PROXY_USER=courier COURIER_PROXY_PASSWORD="$password"
}

# _courier_wait_proxy PID PORT SECONDS: true once the proxy on PORT answers a request (its 407, with no
# credentials); false if PID ends or SECONDS pass first.
_courier_wait_proxy() {
    local pid="$1" deadline=$((SECONDS + $3)) status
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
        status="$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 -x "http://127.0.0.1:$2" http://127.0.0.1:1/ \
            2>/dev/null || true)"
        [[ "$status" == 407 ]] && return 0
        sleep 0.1
    done
    return 1
}

courier_proxy_stop() {
    _courier_stop "${COURIER_PROXY_PID:-}" 5
    if [[ -n "${COURIER_PROXY_DIR:-}" && -d "${COURIER_PROXY_DIR:-}" ]]; then rm -rf "$COURIER_PROXY_DIR"; fi
    unset COURIER_PROXY_PID COURIER_PROXY_DIR COURIER_PROXY_URL COURIER_PROXY_USER COURIER_PROXY_PASSWORD
}

# courier_openapiserver_start DESCRIPTION_JSON: the OpenAPI mock server (scripts/servers/openapiserver.py) for
# one OpenAPI 3.x JSON description: it serves it at /openapi.json and answers every operation after checking the
# request against it. COURIER_OPENAPI_URL.
courier_openapiserver_start() {
    local root
    root="$(_courier_root)" || return 1
    _courier_start_env openapiserver COURIER_OPENAPI_PID "$root/.build/openapiserver.env" - \
        "$(_courier_python)" "$root/scripts/servers/openapiserver.py" --description "$1" \
        --env-file "$root/.build/openapiserver.env"
}

courier_openapiserver_stop() {
    _courier_stop "${COURIER_OPENAPI_PID:-}" 5
    unset COURIER_OPENAPI_PID COURIER_OPENAPI_URL
}

# --- Kinto (PyPI kinto, memory backend), for CourierOpenAPI's live-server test ------------------------------------

# courier_kinto_install: .build/kinto-venv with the pins of scripts/servers/requirements-kinto.txt (see
# _courier_venv_install).
courier_kinto_install() {
    local root
    root="$(_courier_root)" || return 1
    _courier_venv_install kinto "$root/.build/kinto-venv" "$root/scripts/servers/requirements-kinto.txt" kinto
}

# courier_kinto_start: Kinto on a free port with the memory backends and HTTP basic auth (any user and password
# is an account; an authenticated user may create buckets); exports COURIER_KINTO_URL (…/v1) once
# GET /v1/__heartbeat__ answers (at most 60 s).
courier_kinto_start() {
    local root log ini port url
    root="$(_courier_root)" || return 1
    log="$root/.build/kinto.log"
    ini="$root/.build/kinto.ini"
    if [[ -n "${COURIER_KINTO_PID:-}" ]] && kill -0 "$COURIER_KINTO_PID" 2>/dev/null; then return 0; fi
    [[ -x "$root/.build/kinto-venv/bin/kinto" ]] ||
        { echo "kinto: error: .build/kinto-venv missing; call courier_kinto_install first" >&2; return 1; }
    : >"$log" || return 1
    port="$(_courier_free_port)" || return 1
    url="http://127.0.0.1:$port/v1"
    cat >"$ini" <<EOF_INI
[app:main]
use = egg:kinto
kinto.storage_backend = kinto.core.storage.memory
kinto.cache_backend = kinto.core.cache.memory
kinto.permission_backend = kinto.core.permission.memory
kinto.userid_hmac_secret = courier-test-only
multiauth.policies = basicauth
kinto.bucket_create_principals = system.Authenticated

[server:main]
use = egg:waitress#main
host = 127.0.0.1
port = $port
EOF_INI
    _courier_spawn COURIER_KINTO_PID "$log" "$log" "$root/.build/kinto-venv/bin/kinto" start --ini "$ini"
    if _courier_wait_http "$COURIER_KINTO_PID" "$url/__heartbeat__" 60; then
        export COURIER_KINTO_URL="$url"
        return 0
    fi
    courier_kinto_stop
    _courier_fail kinto "$log" "Kinto on $url did not answer GET /v1/__heartbeat__"
}

courier_kinto_stop() {
    _courier_stop "${COURIER_KINTO_PID:-}" 5
    unset COURIER_KINTO_PID COURIER_KINTO_URL
}

# courier_servers_stop: stops every server this shell started. Safe to call twice.
courier_servers_stop() {
    courier_proxy_stop
    courier_h2server_stop
    courier_tlsserver_stop
    courier_kinto_stop
    courier_openapiserver_stop
    courier_nginx_stop
    courier_sseserver_stop
    courier_sinkserver_stop
    courier_faultserver_stop
    courier_httpbin_stop
}

# Run directly (not sourced): `scripts/servers.sh serve [SERVER...]` keeps servers up.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -euo pipefail
    if [[ "${1:-serve}" != serve ]]; then
        echo "usage: $0 serve [httpbin] [fault] [sink] [sse] [nginx]    (or source it: see the comments at its top)" >&2
        exit 2
    fi
    shift || true
    servers=("$@")
    ((${#servers[@]} > 0)) || servers=(httpbin fault sink sse)
    trap courier_servers_stop EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    for server in "${servers[@]}"; do
        case "$server" in
        httpbin) courier_httpbin_install && courier_httpbin_start ;;
        fault) courier_faultserver_start ;;
        sink) courier_sinkserver_start ;;
        sse) courier_sseserver_start ;;
        nginx) courier_nginx_start ;;
        *)
            echo "$0: unknown server $server (httpbin, fault, sink, sse, nginx)" >&2
            exit 2
            ;;
        esac
    done
    echo "Serving; in another shell:"
    env | grep -E '^COURIER_(HTTPBIN_URL|FAULT_URL|SINK_URL|SSE_URL|NGINX_URL|BIG_FILE)' | sort | sed 's/^/    export /'
    echo "Logs: $(_courier_root)/.build/*.log. Ctrl-C stops them."
    wait
fi
