#!/usr/bin/env bash
# scripts/servers/websockets.sh — the PyPI `websockets` echo server (scripts/servers/wsechoserver.py) for
# CourierAsyncHTTPClient's WebSocket tests: an implementation independent of SwiftNIO's and of the fault server's.
# Source it after scripts/servers.sh (it uses its helpers):
#
#     source scripts/servers.sh
#     source scripts/servers/websockets.sh
#     trap 'courier_wsecho_stop; courier_servers_stop' EXIT
#     courier_wsecho_install              # `websockets` (pinned in requirements-websockets.txt) into .venv
#     courier_wsecho_start                # COURIER_WS_ECHO_URL (http://127.0.0.1:P; every path echoes)
#
# Log: .build/wsechoserver.log.

# courier_wsecho_install: .venv with the pins of scripts/servers/requirements-websockets.txt (pip, once).
courier_wsecho_install() {
    local root
    root="$(_courier_root)" || return 1
    _courier_venv_install websockets "$root/.venv" "$root/scripts/servers/requirements-websockets.txt" websockets
}

# courier_wsecho_start: the echo server on a free port; exports COURIER_WS_ECHO_URL once it listens (at most 30 s).
courier_wsecho_start() {
    local root python log envfile key url
    root="$(_courier_root)" || return 1
    python="$root/.venv/bin/python"
    log="$root/.build/wsechoserver.log"
    envfile="$root/.build/wsechoserver.env"
    if [[ -n "${COURIER_WS_ECHO_PID:-}" ]] && kill -0 "$COURIER_WS_ECHO_PID" 2>/dev/null; then return 0; fi
    [[ -x "$python" ]] || { echo "wsechoserver: error: $root/.venv missing; call courier_wsecho_install first" >&2; return 1; }
    mkdir -p "$root/.build" && : >"$log" && rm -f "$envfile" || return 1
    _courier_spawn COURIER_WS_ECHO_PID /dev/null "$log" "$python" "$root/scripts/servers/wsechoserver.py" \
        --env-file "$envfile"
    _courier_wait_file "$COURIER_WS_ECHO_PID" "$envfile" 30 ||
        { courier_wsecho_stop; _courier_fail wsechoserver "$log" "the server did not start"; return 1; }
    IFS='=' read -r key url <"$envfile"
    [[ "$key" == COURIER_WS_ECHO_URL && -n "$url" ]] ||
        { courier_wsecho_stop; echo "wsechoserver: error: $envfile lacks the URL" >&2; return 1; }
    export COURIER_WS_ECHO_URL="$url"
}

# courier_wsecho_stop: stops the server (up to 5 s, then its group). Safe to call twice or with no server.
courier_wsecho_stop() {
    _courier_stop "${COURIER_WS_ECHO_PID:-}" 5
    unset COURIER_WS_ECHO_PID COURIER_WS_ECHO_URL
}
