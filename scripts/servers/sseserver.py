#!/usr/bin/env python3
"""scripts/servers/sseserver.py - a Server-Sent Events server for Courier's stream tests.

Python standard library only. Every response is `text/event-stream`, sent with
`Transfer-Encoding: chunked`, one chunk per write and a flush after each, so the
client sees the bytes arrive in pieces (lines and events are split across chunks
on purpose).

Usage (scripts/servers.sh starts and stops it for scripts/test):

    python3 scripts/servers/sseserver.py [--port P] [--env-file F]

Once it listens it prints `COURIER_SSE_URL=http://127.0.0.1:P` and, with
--env-file, writes that line to the file (atomically: its presence means "ready").

Routes:
  /events          the fixed stream of tests: a BOM, comments, `event`, multi-line
                   `data`, `id` (persisting), `retry`, CRLF and CR line endings,
                   an event with no data (not dispatched), fields split across
                   chunks, then an unfinished event that the client must drop.
  /count?n=5&interval_ms=50
                   n events `data: <i>` with `id: <i>`, one every interval
  /idle?after=1&sleep=30
                   `after` events at once, then nothing for `sleep` seconds
                   (the client's idle timeout fires), then the end
  /status/<code>   that status with a small text body
  /resume?key=K&n=6&per=3&retry_ms=50&drop=abrupt&then=events
                   a stream that drops and resumes (the reconnection tests). Each
                   request is one connection of stream K: it sends `retry: <retry_ms>`,
                   then the events after the request's Last-Event-ID (`id: <i>`,
                   `data: <i>`, i from 1 to n), at most `per` of them, then drops
                   the connection: `drop=abrupt` closes the socket without ending
                   the chunked body, `drop=clean` ends the body. A request whose
                   Last-Event-ID is n or more gets 204 (nothing more to send).
                   `then` says what a later connection of K gets instead of events:
                   `204`, a status code (`503`: that status with a text body) or
                   `text` (200 with Content-Type text/plain). `per=0` makes a stream
                   that always drops with no event.
  /connections?key=K
                   JSON {"count": c, "lastEventIDs": [...], "authorizations": [...]}:
                   how many requests stream K received, and the Last-Event-ID and
                   Authorization headers of each (null when absent), in order
"""

import argparse
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlparse

import serving

# The pieces of /events, each sent as its own chunk. What the client must see:
#   1. event "greeting", data "hello\nworld", id "1", retry 2500 ms
#   2. event "message", data "second", id "1" (persists), retry 2500
#   3. event "update", data "{\"a\":1}\n{\"b\":2}", id "3"
#   4. event "message", data "", id "4"  (a `data` field with no value)
#   5. event "message", data "last", id "" (an empty `id` resets it)
EVENTS = [
    "\ufeff: a comment line, ignored\n",
    "event: greeting\nda",
    "ta: hello\ndata: world\nid: 1\nretry: 2500\n\n",
    ": keep-alive\n\ndata: second\n\n",
    "event: ignored\nid: 2\n\n",  # no data: not dispatched (the id still changes)
    "event: update\r\ndata: {\"a\":1}\r\ndata: {\"b\":2}\r\nid: 3\r\nretry: x\r\n\r\n",
    "id: 4\rdata\r\r",
    "unknown: field\nid\ndata: last\n\n",
    "data: unfinished, must be dropped\n",
]


# The connections of each /resume stream: key -> the (Last-Event-ID, Authorization) headers of each request, in
# order (None when absent).
CONNECTIONS = {}
CONNECTIONS_LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # quiet
        pass

    def start_stream(self, status=200):
        self.send_response(status)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()

    def chunk(self, text):
        data = text.encode("utf-8")
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        self.close_connection = True

    def text(self, status, body, content_type="text/plain"):
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def resume(self, query):
        key = query.get("key", "")
        n = int(query.get("n", "6"))
        per = int(query.get("per", "3"))
        last_event_id = self.headers.get("Last-Event-ID")
        with CONNECTIONS_LOCK:
            seen = CONNECTIONS.setdefault(key, [])
            seen.append((last_event_id, self.headers.get("Authorization")))
            connection = len(seen)
        then = query.get("then", "events")
        if connection > 1 and then != "events":
            if then == "text":
                self.text(200, "not an event stream\n")
            elif then == "204":
                self.send_response(204)
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
            else:
                self.text(int(then), "status %s\n" % then)
            return
        start = int(last_event_id) + 1 if last_event_id and last_event_id.isdigit() else 1
        if start > n:
            self.send_response(204)
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            return
        self.start_stream()
        self.chunk("retry: %s\n\n" % query.get("retry_ms", "50"))
        for i in range(start, min(start + per, n + 1)):
            self.chunk("id: %d\ndata: %d\n\n" % (i, i))
        if query.get("drop", "abrupt") == "clean":
            self.end()
        else:
            # No terminating chunk: the client sees the connection lost in the middle of the body.
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)

    def do_GET(self):
        url = urlparse(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        try:
            if url.path == "/events":
                self.start_stream()
                for piece in EVENTS:
                    self.chunk(piece)
                    time.sleep(0.01)
                self.end()
            elif url.path == "/count":
                n = int(query.get("n", "5"))
                interval = int(query.get("interval_ms", "50")) / 1000
                self.start_stream()
                for i in range(n):
                    self.chunk("id: %d\ndata: %d\n\n" % (i, i))
                    time.sleep(interval)
                self.end()
            elif url.path == "/idle":
                after = int(query.get("after", "1"))
                self.start_stream()
                for i in range(after):
                    self.chunk("data: %d\n\n" % i)
                deadline = time.monotonic() + float(query.get("sleep", "30"))
                while time.monotonic() < deadline:
                    time.sleep(0.1)
                self.end()
            elif url.path == "/resume":
                self.resume(query)
            elif url.path == "/connections":
                with CONNECTIONS_LOCK:
                    seen = list(CONNECTIONS.get(query.get("key", ""), []))
                record = {
                    "count": len(seen),
                    "lastEventIDs": [event_id for event_id, _ in seen],
                    "authorizations": [authorization for _, authorization in seen],
                }
                self.text(200, json.dumps(record), "application/json")
            elif url.path.startswith("/status/"):
                code = int(url.path.rsplit("/", 1)[-1])
                body = ("status %d\n" % code).encode()
                self.send_response(code)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body)
                self.close_connection = True
            else:
                self.send_error(404)
        except OSError:  # BrokenPipeError, ConnectionResetError: the client left
            self.close_connection = True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--env-file")
    args = parser.parse_args()
    serving.serve(Handler, args.port, "COURIER_SSE_URL", args.env_file)

if __name__ == "__main__":
    main()
