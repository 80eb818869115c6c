#!/usr/bin/env python3
"""scripts/servers/wsechoserver.py - a WebSocket echo server on PyPI `websockets` (an implementation independent of
SwiftNIO's and of the fault server's), for CourierAsyncHTTPClient's WebSocket tests and benchmark.

Usage (scripts/servers/websockets.sh starts and stops it for scripts/test-ahc, in .venv with the pins of
scripts/servers/requirements-websockets.txt):

    .venv/bin/python scripts/servers/wsechoserver.py [--port P] [--env-file F]

Once it listens it prints `COURIER_WS_ECHO_URL=http://127.0.0.1:P` and, with --env-file, writes that line to the
file (atomically: its presence means "ready").

Every path echoes each message with its type (text or binary), up to 64 MiB, answers pings (the library does), and
picks the first subprotocol the client offers in `Sec-WebSocket-Protocol`.
"""

import argparse
import asyncio
import os

from websockets.asyncio.server import serve


async def echo(connection):
    async for message in connection:
        await connection.send(message)


def first_offered(connection, subprotocols):
    return subprotocols[0] if subprotocols else None


async def main(port, env_file):
    async with serve(
        echo, "127.0.0.1", port, max_size=64 << 20, select_subprotocol=first_offered, compression=None
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
