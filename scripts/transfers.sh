#!/usr/bin/env bash
# scripts/transfers.sh — the servers of Courier's transfer tests: the Server-Sent
# Events server (scripts/sseserver.py, Python standard library) and an nginx
# instance serving one large generated file. Same shape as scripts/faultserver.sh.
#
#     source scripts/transfers.sh
#     courier_transfers_start      # scripts/test does this and stops them on exit
#     courier_transfers_stop
#
# or `scripts/transfers.sh serve` to keep them up while you work (prints the exports).
#
# Set while they run (exported):
#   COURIER_SSE_URL            http://127.0.0.1:P
#   COURIER_NGINX_URL          http://127.0.0.1:Q   (GET /big.bin is the large file; /slow-start/big.bin the
#                              same, slowed after 8 MiB unless the request has a Range header)
#   COURIER_BIG_FILE_BYTES     its size
#   COURIER_BIG_FILE_SHA256    its SHA-256, hex
#
# Inputs:
#   COURIER_BIG_DOWNLOAD_BYTES size of the large file (default 1 GiB; scripts/test
#                              --sanitize=thread makes it 64 MiB). The file is made
#                              from /dev/urandom once per size and kept, with its
#                              hash, in .build/transfers/.
#   COURIER_PYTHON             interpreter (default: python3)
#
# nginx: used from PATH or /usr/sbin; when missing it is installed with
# `apt-get update && apt-get install -y nginx` (as root, or with sudo when there is one).
# It runs as a private instance: its own prefix, config, pid and logs under
# .build/transfers/nginx, listening on 127.0.0.1 only, no daemon, no system files.

_courier_transfers_root() {
    (cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
}

_courier_transfers_say() {
    echo "transfers: $*" >&2
}

_courier_transfers_nginx() {
    command -v nginx 2>/dev/null && return 0
    [[ -x /usr/sbin/nginx ]] && echo /usr/sbin/nginx && return 0
    return 1
}

_courier_transfers_install_nginx() {
    _courier_transfers_nginx >/dev/null && return 0
    command -v apt-get >/dev/null || { _courier_transfers_say "error: nginx is missing and there is no apt-get"; return 1; }
    local sudo=""
    if [[ "$(id -u)" != 0 ]]; then
        command -v sudo >/dev/null || { _courier_transfers_say "error: nginx is missing; install it (apt-get needs root)"; return 1; }
        sudo="sudo -n"
    fi
    _courier_transfers_say "installing nginx (apt-get)…"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq >/dev/null &&
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends nginx >/dev/null ||
        { _courier_transfers_say "error: apt-get install nginx failed"; return 1; }
    _courier_transfers_nginx >/dev/null
}

_courier_transfers_free_port() {
    "${COURIER_PYTHON:-python3}" -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# courier_transfers_start: starts both servers and exports the variables above.
courier_transfers_start() {
    local root python dir size file hashfile envfile deadline nginx port pid
    root="$(_courier_transfers_root)" || return 1
    python="${COURIER_PYTHON:-python3}"
    dir="$root/.build/transfers"
    mkdir -p "$dir" || return 1

    # The SSE server.
    envfile="$dir/sse.env"
    rm -f "$envfile"
    "$python" "$root/scripts/sseserver.py" --env-file "$envfile" </dev/null >/dev/null 2>>"$dir/sse.log" &
    COURIER_SSE_PID=$!
    deadline=$((SECONDS + 20))
    while kill -0 "$COURIER_SSE_PID" 2>/dev/null && [[ ! -s "$envfile" ]] && ((SECONDS < deadline)); do sleep 0.1; done
    [[ -s "$envfile" ]] || { _courier_transfers_say "error: the SSE server did not start (log: $dir/sse.log)"; return 1; }
    export "$(cat "$envfile")"

    # The large file, made once per size.
    size="${COURIER_BIG_DOWNLOAD_BYTES:-1073741824}"
    file="$dir/www/big.bin"
    hashfile="$dir/big-$size.sha256"
    mkdir -p "$dir/www"
    if [[ ! -s "$hashfile" || "$(stat -c %s "$file" 2>/dev/null || echo 0)" != "$size" ]]; then
        _courier_transfers_say "making a $size-byte file…"
        head -c "$size" /dev/urandom >"$file.tmp" && mv "$file.tmp" "$file" || return 1
        sha256sum "$file" | cut -d' ' -f1 >"$hashfile" || return 1
    fi
    export COURIER_BIG_FILE_BYTES="$size"
    COURIER_BIG_FILE_SHA256="$(cat "$hashfile")"
    export COURIER_BIG_FILE_SHA256

    # nginx, a private instance.
    _courier_transfers_install_nginx || return 1
    nginx="$(_courier_transfers_nginx)"
    port="$(_courier_transfers_free_port)" || return 1
    mkdir -p "$dir/nginx/logs" "$dir/nginx/tmp"
    cat >"$dir/nginx/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/logs/error.log warn;
events { worker_connections 64; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    default_type application/octet-stream;
    client_body_temp_path $dir/nginx/tmp/body;
    proxy_temp_path $dir/nginx/tmp/proxy;
    fastcgi_temp_path $dir/nginx/tmp/fastcgi;
    uwsgi_temp_path $dir/nginx/tmp/uwsgi;
    scgi_temp_path $dir/nginx/tmp/scgi;
    # /slow-start/big.bin: the same file, but a request without Range slows to 2 MB/s after its first 8 MiB, so a
    # test can cancel a download midway however fast the machine; a resumed one (with Range) runs at full speed.
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
    # As root, nginx's worker runs as nobody: the files must be readable by anyone.
    chmod -R a+rX "$dir/www" "$dir/nginx" 2>/dev/null || true
    chmod a+x "$root/.build" "$dir" 2>/dev/null || true
    "$nginx" -p "$dir/nginx" -c "$dir/nginx/nginx.conf" </dev/null >/dev/null 2>>"$dir/nginx/logs/error.log" &
    COURIER_NGINX_PID=$!
    deadline=$((SECONDS + 20))
    until curl -sf -o /dev/null -r 0-0 "http://127.0.0.1:$port/big.bin" 2>/dev/null ||
        "$python" -c 'import sys, urllib.request
urllib.request.urlopen(urllib.request.Request(sys.argv[1], headers={"Range": "bytes=0-0"}), timeout=2).read()' \
            "http://127.0.0.1:$port/big.bin" 2>/dev/null; do
        if ! kill -0 "$COURIER_NGINX_PID" 2>/dev/null || ((SECONDS >= deadline)); then
            _courier_transfers_say "error: nginx does not answer; log:"
            tail -n 20 "$dir/nginx/logs/error.log" >&2
            return 1
        fi
        sleep 0.1
    done
    export COURIER_NGINX_URL="http://127.0.0.1:$port"
}

# courier_transfers_stop: stops what courier_transfers_start started in this shell. Safe to call twice.
courier_transfers_stop() {
    local pid i
    for pid in "${COURIER_NGINX_PID:-}" "${COURIER_SSE_PID:-}"; do
        [[ -n "$pid" ]] || continue
        kill -TERM "$pid" 2>/dev/null || true
        for ((i = 0; i < 50; i++)); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    unset COURIER_NGINX_PID COURIER_SSE_PID COURIER_SSE_URL COURIER_NGINX_URL
    return 0
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -euo pipefail
    trap courier_transfers_stop EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    courier_transfers_start
    echo "Serving; in another shell:"
    echo "    export COURIER_SSE_URL=$COURIER_SSE_URL COURIER_NGINX_URL=$COURIER_NGINX_URL"
    echo "    export COURIER_BIG_FILE_BYTES=$COURIER_BIG_FILE_BYTES COURIER_BIG_FILE_SHA256=$COURIER_BIG_FILE_SHA256"
    echo "Ctrl-C stops them."
    wait
fi
