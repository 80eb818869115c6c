#!/usr/bin/env python3
"""scripts/servers/wsechoserver.py - a WebSocket echo server on PyPI `websockets` (an implementation independent of
SwiftNIO's and of the fault server's), for CourierAsyncHTTPClient's WebSocket tests and benchmark.

Usage (scripts/servers/websockets.sh starts and stops it for scripts/test-ahc, in .venv with the pins of
scripts/servers/requirements-websockets.txt):

    .venv/bin/python scripts/servers/wsechoserver.py [--port P] [--env-file F]

Once it listens it prints `COURIER_WS_ECHO_URL=http://127.0.0.1:P` and, with --env-file, writes that line to the
file (atomically: its presence means "ready").

Every path but the ones below echoes each message with its type (text or binary), up to 64 MiB, answers pings (the
library does), and picks the first subprotocol the client offers in `Sec-WebSocket-Protocol`.

    /server-close?code=C&key=K
                            sends the text "closing", then a close frame with code C, and records the code of the
                            client's close frame under K (1006 when the client closed TCP without one)
    /close-codes?key=K      (plain HTTP) 200 JSON {"closes": [...]}: the codes recorded under K, in order
    /server-drop?abort=0    sends the text "last", then closes TCP without a close frame (abort=1: a reset)
"""

import argparse
import asyncio
import http
import json
import os
import urllib.parse

from websockets.asyncio.server import serve

# The close codes clients sent, by the key of the /close route.
CLOSES = {}


def route(connection):
    parsed = urllib.parse.urlsplit(connection.request.path)
    return parsed.path, urllib.parse.parse_qs(parsed.query)


async def echo(connection):
    path, query = route(connection)
    if path == "/server-close":
        await connection.send("closing")
        await connection.close(int((query.get("code") or ["1000"])[0]), "server closes")
        received = connection.protocol.close_rcvd
        CLOSES.setdefault((query.get("key") or [""])[0], []).append(received.code if received else 1006)
        return
    if path == "/server-drop":
        await connection.send("last")
        if (query.get("abort") or ["0"])[0] == "1":
            connection.transport.abort()
        else:
            connection.transport.close()
        return
    async for message in connection:
        await connection.send(message)


def answer_plain(connection, request):
    """The /close-codes route, a plain HTTP request: the recorded close codes."""
    path, query = route(connection)
    if path != "/close-codes":
        return None
    codes = CLOSES.get((query.get("key") or [""])[0], [])
    response = connection.respond(http.HTTPStatus.OK, json.dumps({"closes": codes}) + "\n")
    response.headers["Content-Type"] = "application/json"
    return response


def first_offered(connection, subprotocols):
    return subprotocols[0] if subprotocols else None


async def main(port, env_file):
    async with serve(
        echo,
        "127.0.0.1",
        port,
        max_size=64 << 20,
        select_subprotocol=first_offered,
        compression=None,
        process_request=answer_plain,
    ) as server:
        bound = server.sockets[0].getsockname()[1]
        line = f"COURIER_WS_ECHO_URL=http://127.0.0.1:{bound}"
        print(line, flush=True)
        if env_file:
            temporary = env_file + ".tmp"
            with open(temporary, "w") as file:
                file.write(line + "\n")
            os.replace(temporary, env_file)
        await asyncio.get_running_loop().create_future()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--env-file")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.port, arguments.env_file))
