#!/usr/bin/env python3
"""faultserver.py - a misbehaving HTTP/1.1 server for Courier's fault tests and executor conformance suite.

Shipped with CourierTesting (Sources/CourierTesting/Resources/faultserver.py, its one copy):
`ExecutorConformance.Servers.startingFaultServer(httpbin:)` runs it from any package;
scripts/servers.sh runs it for Courier's own tests.

Python standard library only. HTTP/1.1 is written by hand on raw sockets, so the
server can do what a correct server never does: stall, lie about lengths, send
gzip bombs, garbage status lines, endless bodies.

It listens on THREE origins, so redirect tests can change host and port:

    http://127.0.0.1:P     COURIER_FAULT_URL
    http://127.0.0.2:P     COURIER_FAULT_URL_OTHER_HOST  (same port, other host;
                           Linux routes all of 127/8 to lo. On macOS run
                           `sudo ifconfig lo0 alias 127.0.0.2` first, or the
                           server falls back to http://localhost:P)
    http://127.0.0.1:Q     COURIER_FAULT_URL_OTHER_PORT  (same host, other port)

Usage (scripts/servers.sh starts and stops it for scripts/test):

    python3 faultserver.py [--env-file F] [--log F|-] [--cache-dir D] [--port P] [--other-port Q]
                           [--no-warm] [--exit-with-stdin]

Once all sockets listen it prints the three `NAME=url` lines on stdout and, with
--env-file, writes them to that file (written last, atomically: its presence
means "ready"). Every request is logged to --log (default: stderr). With
--exit-with-stdin it exits when its standard input closes (the process that started
it ended).

Every response carries `Connection: close`; one request per connection.
Routes (any method; parameters in the query string):

  /headers                     200 JSON {"headers": {...}, "method", "path", "body"}:
                               the request headers exactly as received (names as
                               spelled by the client, repeated ones joined with ", ")
  /redirect?to=URL&status=302  that 3xx status with `Location: URL` (absolute or relative)
  /redirect-loop               302 to itself, forever
  /redirect-presigned          302 to /headers?X-Amz-Signature=r3direct-SECRET&part=2 (a secret only the server
                               names, for the conformance suite's secret scan)
  /slow-body?bytes=60&interval=1&stall=-1
                               Content-Length: bytes, then one byte every interval s; with
                               stall=K, nothing more after K bytes (until the client leaves)
  /ranged?bytes=N&cut=K&key=KEY
                               N bytes (byte i is i % 251) with `ETag: "ranged-N"` and
                               Accept-Ranges; answers If-None-Match with that ETag with a 304,
                               and `Range: bytes=a-` (If-Range, when sent, must match) with a
                               206. With cut and key, the first request counted under KEY
                               gets K bytes of its body, then a clean close (FIN, no reset);
                               /count-stats?key=ranged:KEY lists the Range header of each request
  /endless-chunked?interval=1  chunked, a small chunk every interval s, never ends
                               (stops when the client disconnects)
  /slow-headers?delay=10       sends nothing for delay s, then a small 200
  /gzip-bomb?mb=1024           Content-Encoding: gzip, correct Content-Length, body =
                               gzip of mb MiB of zeros (~1 MB on the wire for 1024;
                               built once per mb, cached in memory and in --cache-dir;
                               mb=1024 is built in the background at start-up)
  /gzip-json?kb=1024           Content-Encoding: gzip, Content-Length: a JSON array of
                               small, similar records, at least kb KiB decoded (~30:1, as
                               real JSON APIs compress); records' "id" run 0, 1, 2, ...
  /big?mb=N (or ?bytes=N)      N MiB (N bytes) of JSON-ish filler, Content-Length, streamed
  /big-chunked?mb=N            the same, Transfer-Encoding: chunked, no Content-Length
  /big-declared?mb=N&pause=0   Content-Length of N MiB in the headers, then (after pause s)
                               the body: a client may reject it on the header alone
  /bare-status                 exactly "HTTP/1.1 200 OK\\r\\n", then close.
                               !! FoundationNetworking TRAPS on this (swift-corelibs-foundation
                               #5285, still in Swift 6.3.1): never call it from tests that use
                               URLSessionExecutor; it is for the AsyncHTTPClient executor.
  /truncated                   Content-Length: 100, sends 10 bytes, closes
  /garbage-status              "HTXP/9 abc\\r\\n\\r\\n", then close
  /huge-headers?kb=1024        200 with ~kb KiB of response headers
  /no-content-with-body        204 followed by a body anyway
  /basic-challenge             401 with WWW-Authenticate: Basic realm="x"
  /status/<code>               that status, small JSON body
  /count?key=K&delay=0         counts the request under K, waits delay s (noticing a client
                               that leaves), then 200 JSON {"key", "hits"}; each response
                               carries a fresh "uuid". For the cache's de-duplication tests
  /flaky?key=K&fail=1&status=503&retry-after=0
                               the first `fail` requests counted under K get `status` with
                               `Retry-After: retry-after` (none when empty), later ones 200 JSON
                               {"key", "hits"}. For retry tests (the call timeline's)
  /count-stats?key=K           200 JSON {"key", "hits", "gone"}: requests counted under K,
                               and how many of them the client abandoned during the wait (and "closes",
                               the close codes a WebSocket client sent, where a route records them; "peak",
                               the most /count requests under K in progress at once)
  /auth/protected?key=K&gather=0&spread=0
                               200 JSON {"key", "hits"} with `Authorization: Bearer fresh-token`, else 401 (JSON,
                               WWW-Authenticate: Bearer); counted under /count-stats?key=auth-protected:K. With
                               gather=N the first N requests counted under K wait until all N have arrived (10 s
                               at most), then are answered spread s apart (the n-th (n-1) * spread s after the
                               N-th arrived); later requests are answered at once
  /auth/token?key=K&delay=0&status=200
                               counts the request under /count-stats?key=auth-token:K, waits delay s, then
                               answers `status`: 200 JSON {"access_token": "fresh-token", "hits"}, any other
                               status JSON {"error": "invalid_grant", "hits"}
  /ws/...                      WebSockets (an upgrade; a plain request gets 426). Every route picks the
                               first subprotocol offered; incoming messages up to 64 MiB; pings answered.
    /ws/echo?fragment=N        echoes each message with its type (in frames of N bytes), echoes the close
    /ws/headers                sends the handshake's {"headers", "path", "query"} as JSON text, then echoes
    /ws/close?code=C&reason=R&after=N&key=K
                               after N echoed messages sends close C (reason R), waits 10 s for the client's;
                               /count-stats?key=ws-close:K lists the codes of the client's closes ("closes",
                               1006 for none)
    /ws/drop?after=N           after N echoed messages closes the TCP connection: no close frame
    /ws/silent                 echoes, never answers a ping
    /ws/mute?seconds=S&key=K   answers nothing for S s (a peer that hangs: no pong, no answer to a close), then
                               closes the TCP connection; it reads on, and /count-stats?key=ws-mute:K reports the
                               client's close ("closes") and the ms from its close frame to its end of the
                               connection ("closeToEnd")
    /ws/flood?count=N&size=B&key=K
                               N binary messages of B bytes as fast as TCP takes them, then close 1000;
                               /count-stats?key=ws-flood:K counts the messages written so far
    /ws/big?bytes=N&fragment=F one binary message of N bytes (byte i is i % 251, frames of F), then echoes
    /ws/auth                   401 (JSON, WWW-Authenticate: Bearer) unless `Authorization: Bearer fresh-token`,
                               then echoes; handshakes counted under /count-stats?key=ws-auth
    /ws/reject?status=403      that status to the handshake, small JSON body
    /ws/flaky?key=K&fail=1     sends text "connection <n>" (n counts K's connections); the first `fail`
                               connections are then dropped, later ones echo
  anything else                404
"""

import argparse
import errno
import http
import json
import os
import select
import signal
import socket
import sys
import threading
import time
import urllib.parse
import zlib

MIB = 1 << 20
MAX_REQUEST_HEAD = 256 * 1024  # bytes of request line + headers we accept
READ_TIMEOUT = 30.0  # seconds to wait for a request head
MAX_MB = 16 * 1024  # refuse absurd sizes (a typo should not eat the disk or the CPU)


class ClientGone(Exception):
    """The client closed the connection (or it broke)."""


class BadRequest(Exception):
    pass


# ---------------------------------------------------------------------------
# Logging

_log_lock = threading.Lock()
_log_file = sys.stderr


def log(message):
    line = "%s %s\n" % (time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()), message)
    with _log_lock:
        try:
            _log_file.write(line)
            _log_file.flush()
        except (OSError, ValueError):
            pass


# ---------------------------------------------------------------------------
# Gzip bombs, built once per size

_bomb_lock = threading.Lock()
_bomb_events = {}  # mb -> threading.Event set when built
_bombs = {}  # mb -> bytes
_cache_dir = None


def _build_bomb(mb):
    path = os.path.join(_cache_dir, "gzip-bomb-%d.gz" % mb) if _cache_dir else None
    if path and os.path.isfile(path):
        with open(path, "rb") as f:
            data = f.read()
        if data[:2] == b"\x1f\x8b":
            return data
    started = time.monotonic()
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # wbits 31: gzip container
    zeros = bytes(16 * MIB)
    parts = []
    left = mb * MIB
    while left > 0:
        piece = zeros if left >= len(zeros) else zeros[:left]
        parts.append(compressor.compress(piece))
        left -= len(piece)
    parts.append(compressor.flush())
    data = b"".join(parts)
    log("gzip-bomb mb=%d built: %d bytes in %.1f s" % (mb, len(data), time.monotonic() - started))
    if path:
        try:
            os.makedirs(_cache_dir, exist_ok=True)
            temporary = "%s.%d.tmp" % (path, os.getpid())
            with open(temporary, "wb") as f:
                f.write(data)
            os.replace(temporary, path)
        except OSError as error:
            log("gzip-bomb cache not written: %s" % error)
    return data


_gzip_json = {}
_gzip_json_lock = threading.Lock()


def gzip_json(kb):
    """A gzipped JSON array of similar records, at least kb KiB decoded; built once per kb."""
    with _gzip_json_lock:
        if kb not in _gzip_json:
            records = []
            size = 1
            while size < kb * 1024:
                record = json.dumps(
                    {
                        "id": len(records),
                        "type": "event",
                        "source": "courier-faultserver",
                        "user": "user%d" % (len(records) % 997),
                        "message": "the same realistic log message repeated for every record",
                        "tags": ["alpha", "beta", "gamma"],
                        "ok": True,
                    },
                    separators=(",", ":"),
                )
                records.append(record)
                size += len(record) + 1
            _gzip_json[kb] = zlib_gzip(("[" + ",".join(records) + "]").encode())
        return _gzip_json[kb]


def zlib_gzip(data):
    compressor = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


def gzip_bomb(mb):
    with _bomb_lock:
        event = _bomb_events.get(mb)
        builder = event is None
        if builder:
            event = _bomb_events[mb] = threading.Event()
    if builder:
        try:
            _bombs[mb] = _build_bomb(mb)
        finally:
            event.set()
    event.wait()
    data = _bombs.get(mb)
    if data is None:
        raise RuntimeError("gzip bomb of %d MiB could not be built" % mb)
    return data


# ---------------------------------------------------------------------------
# Connection helpers


class Connection:
    def __init__(self, sock, peer, origin):
        self.sock = sock
        self.peer = peer
        self.origin = origin
        self.sent = 0

    def send(self, data):
        try:
            self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, socket.timeout) as error:
            raise ClientGone(str(error))
        except OSError as error:
            if error.errno in (errno.EPIPE, errno.ECONNRESET, errno.ENOTCONN, errno.ESHUTDOWN):
                raise ClientGone(str(error))
            raise
        self.sent += len(data)

    def client_closed(self):
        """True when the client has closed its side (EOF or error pending), without blocking."""
        try:
            readable, _, errored = select.select([self.sock], [], [self.sock], 0)
        except (OSError, ValueError):
            return True
        if errored:
            return True
        if not readable:
            return False
        try:
            peeked = self.sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except BlockingIOError:
            return False
        except OSError:
            return True
        return peeked == b""

    def wait(self, seconds):
        """Sleeps `seconds`, but raises ClientGone as soon as the client disconnects."""
        deadline = time.monotonic() + seconds
        while True:
            if self.client_closed():
                raise ClientGone("client closed while the server waited")
            left = deadline - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(left, 0.05))


def status_line(code):
    try:
        phrase = http.HTTPStatus(code).phrase
    except ValueError:
        phrase = "Unknown"
    return "HTTP/1.1 %d %s\r\n" % (code, phrase)


def head(code, headers):
    lines = [status_line(code)]
    names = {name.lower() for name, _ in headers}
    for name, value in headers:
        lines.append("%s: %s\r\n" % (name, value))
    if "connection" not in names:
        lines.append("Connection: close\r\n")
    if "date" not in names:
        lines.append("Date: %s\r\n" % time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime()))
    lines.append("Server: courier-faultserver\r\n\r\n")
    return "".join(lines).encode("latin-1")


def respond(conn, code, body=b"", content_type="application/json", extra=()):
    if isinstance(body, str):
        body = body.encode("utf-8")
    headers = [("Content-Type", content_type), ("Content-Length", str(len(body)))]
    headers.extend(extra)
    conn.send(head(code, headers) + body)


def json_body(value):
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


# ---------------------------------------------------------------------------
# Reading a request


def read_request(sock):
    """Returns (method, target, version, [(name, value)], body) or None when the client sent nothing."""
    sock.settimeout(READ_TIMEOUT)
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        if len(buffer) > MAX_REQUEST_HEAD:
            raise BadRequest("request head larger than %d bytes" % MAX_REQUEST_HEAD)
        chunk = sock.recv(65536)
        if not chunk:
            if buffer:
                raise BadRequest("connection closed inside the request head")
            return None
        buffer += chunk
    head_bytes, _, rest = buffer.partition(b"\r\n\r\n")
    lines = head_bytes.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        raise BadRequest("bad request line %r" % lines[0])
    method, target, version = parts
    headers = []
    for line in lines[1:]:
        if not line:
            continue
        if line[0] in " \t" and headers:  # obsolete line folding
            name, value = headers[-1]
            headers[-1] = (name, value + " " + line.strip())
            continue
        name, colon, value = line.partition(":")
        if not colon:
            raise BadRequest("bad header line %r" % line)
        headers.append((name.strip(), value.strip()))

    body = rest
    length = None
    chunked = False
    for name, value in headers:
        if name.lower() == "content-length":
            try:
                length = int(value)
            except ValueError:
                raise BadRequest("bad Content-Length %r" % value)
        elif name.lower() == "transfer-encoding" and "chunked" in value.lower():
            chunked = True
    if length is not None:
        while len(body) < length:
            chunk = sock.recv(min(65536, length - len(body)))
            if not chunk:
                raise BadRequest("connection closed inside the request body")
            body += chunk
        body = body[:length]
    elif chunked:
        body = read_chunked(sock, body)
    else:
        body = b""
    return method, target, version, headers, body


def read_chunked(sock, buffer):
    body = b""

    def fill(predicate):
        nonlocal buffer
        while not predicate():
            chunk = sock.recv(65536)
            if not chunk:
                raise BadRequest("connection closed inside a chunked request body")
            buffer += chunk

    while True:
        fill(lambda: b"\r\n" in buffer)
        size_line, _, buffer = buffer.partition(b"\r\n")
        try:
            size = int(size_line.split(b";")[0].strip(), 16)
        except ValueError:
            raise BadRequest("bad chunk size %r" % size_line)
        if size == 0:
            fill(lambda: buffer.startswith(b"\r\n") or b"\r\n\r\n" in buffer)
            return body
        fill(lambda: len(buffer) >= size + 2)
        body += buffer[:size]
        buffer = buffer[size + 2 :]


# ---------------------------------------------------------------------------
# Routes


def number(query, name, default, kind=int, minimum=0, maximum=None):
    values = query.get(name)
    if not values:
        return default
    try:
        value = kind(values[0])
    except ValueError:
        raise BadRequest("parameter %s=%r is not a %s" % (name, values[0], kind.__name__))
    if value < minimum or (maximum is not None and value > maximum):
        raise BadRequest("parameter %s=%r is out of range" % (name, values[0]))
    return value


def size_in_bytes(query, default_mb=1):
    if query.get("bytes"):
        return number(query, "bytes", 0, maximum=MAX_MB * MIB)
    return number(query, "mb", default_mb, maximum=MAX_MB) * MIB


FILLER_LINE = b'{"filler": "' + b"courier fault server " * 4 + b'"},\n'


def filler(total):
    """Yields `total` bytes of JSON-ish filler in pieces of about 64 KiB."""
    block = FILLER_LINE * (65536 // len(FILLER_LINE) + 1)
    block = block[:65536]
    left = total
    while left > 0:
        piece = block if left >= len(block) else block[:left]
        yield piece
        left -= len(piece)


def route_headers(conn, method, path, headers, body):
    echoed = {}
    spelling = {}
    for name, value in headers:
        key = name.lower()
        if key in spelling:
            echoed[spelling[key]] += ", " + value
        else:
            spelling[key] = name
            echoed[name] = value
    respond(
        conn,
        200,
        json_body(
            {
                "headers": echoed,
                "method": method,
                "path": path,
                "origin": conn.origin,
                "body": body.decode("utf-8", "replace"),
            }
        ),
    )


COUNTS = {}  # key -> {"hits": n, "gone": n}, for /count
COUNTS_LOCK = threading.Lock()


def route_count(conn, query):
    key = (query.get("key") or [""])[0]
    delay = number(query, "delay", 0.0, kind=float, maximum=60)
    with COUNTS_LOCK:
        counts = COUNTS.setdefault(key, {"hits": 0, "gone": 0})
        counts["hits"] += 1
        hits = counts["hits"]
        counts["inFlight"] = counts.get("inFlight", 0) + 1
        counts["peak"] = max(counts.get("peak", 0), counts["inFlight"])
    try:
        conn.wait(delay)
    except ClientGone:
        with COUNTS_LOCK:
            COUNTS[key]["gone"] += 1
        raise
    finally:
        with COUNTS_LOCK:
            COUNTS[key]["inFlight"] -= 1
    respond(conn, 200, json_body({"key": key, "hits": hits, "uuid": os.urandom(16).hex()}))


GATHER_LIMIT = 10.0  # seconds a gathered /auth/protected request waits for the others at most
GATHERED = threading.Condition(COUNTS_LOCK)  # told each time a request counted under a gathering key arrives


def route_auth_protected(conn, query, headers):
    key = "auth-protected:" + (query.get("key") or [""])[0]
    gather = number(query, "gather", 0, maximum=1000)
    spread = number(query, "spread", 0.0, kind=float, maximum=10)
    with GATHERED:
        counts = COUNTS.setdefault(key, {"hits": 0, "gone": 0})
        counts["hits"] += 1
        hits = counts["hits"]
        GATHERED.notify_all()
        deadline = time.monotonic() + GATHER_LIMIT
        while hits <= gather and counts["hits"] < gather:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            GATHERED.wait(left)
    try:
        if hits <= gather:
            conn.wait((hits - 1) * spread)
    except ClientGone:
        with COUNTS_LOCK:
            COUNTS[key]["gone"] += 1
        raise
    fields = {name.lower(): value for name, value in headers}
    if fields.get("authorization") == "Bearer fresh-token":
        return respond(conn, 200, json_body({"key": key, "hits": hits}))
    return respond(conn, 401, json_body({"error": "unauthorized"}), extra=[("WWW-Authenticate", "Bearer")])


def route_auth_token(conn, query):
    key = "auth-token:" + (query.get("key") or [""])[0]
    delay = number(query, "delay", 0.0, kind=float, maximum=60)
    code = number(query, "status", 200, minimum=200, maximum=599)
    with COUNTS_LOCK:
        counts = COUNTS.setdefault(key, {"hits": 0, "gone": 0})
        counts["hits"] += 1
        hits = counts["hits"]
    conn.wait(delay)
    if code == 200:
        return respond(conn, 200, json_body({"access_token": "fresh-token", "hits": hits}))
    return respond(conn, code, json_body({"error": "invalid_grant", "hits": hits}))


def ranged_bytes(start, end):
    """Bytes start..<end of /ranged's body, where byte i is i % 251, in pieces of about 64 KiB."""
    pattern = bytes(range(251)) * (65536 // 251 + 2)
    position = start
    while position < end:
        offset = position % 251
        piece = pattern[offset : offset + min(65536, end - position)]
        yield piece
        position += len(piece)


def route_ranged(conn, query, headers):
    total = number(query, "bytes", 1024, maximum=MAX_MB * MIB)
    cut = number(query, "cut", -1, minimum=-1)
    key = (query.get("key") or [""])[0]
    # norange=1 answers every Range with the whole body (200); changing=1 gives each request under a key a new ETag.
    ignores_range = number(query, "norange", 0) == 1
    changing = number(query, "changing", 0) == 1
    etag = '"ranged-%d"' % total
    fields = {name.lower(): value for name, value in headers}
    hits = 0
    if key:
        with COUNTS_LOCK:
            counts = COUNTS.setdefault("ranged:" + key, {"hits": 0, "gone": 0, "ranges": []})
            counts["hits"] += 1
            counts["ranges"].append(fields.get("range", ""))
            hits = counts["hits"]
    if changing:
        etag = '"ranged-%d-%d"' % (total, hits)
    common = [("ETag", etag), ("Accept-Ranges", "bytes")]
    if fields.get("if-none-match") == etag:
        conn.send(head(304, common))
        return
    start = 0
    requested = "" if ignores_range else fields.get("range", "")
    if requested.startswith("bytes=") and requested.endswith("-") and fields.get("if-range", etag) == etag:
        try:
            start = int(requested[len("bytes=") : -1])
        except ValueError:
            start = 0
        if start >= total:
            return respond(conn, 416, json_body({"error": "range"}), extra=[("Content-Range", "bytes */%d" % total)])
    if start > 0:
        status = 206
        fields_out = common + [("Content-Range", "bytes %d-%d/%d" % (start, total - 1, total))]
    else:
        status = 200
        fields_out = list(common)
    fields_out += [("Content-Type", "application/octet-stream"), ("Content-Length", str(total - start))]
    conn.send(head(status, fields_out))
    limit = total if not (key and cut >= 0 and hits == 1) else min(total, start + cut)
    for piece in ranged_bytes(start, limit):
        conn.send(piece)
    # A cut body ends here: the caller's finally shuts the socket down cleanly (FIN).


# ---------------------------------------------------------------------------
# WebSockets (RFC 6455), by hand: the routes under /ws/ upgrade the connection.

WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
WS_MAX_MESSAGE = 64 * MIB  # the most bytes of one incoming message
WS_OPCODES = {"continuation": 0x0, "text": 0x1, "binary": 0x2, "close": 0x8, "ping": 0x9, "pong": 0xA}


class WebSocketClosed(Exception):
    """The client sent a close frame (its payload is the argument)."""


def ws_frame(opcode, payload, fin=True):
    """A server frame (unmasked)."""
    first = (0x80 if fin else 0) | opcode
    length = len(payload)
    if length < 126:
        header = bytes([first, length])
    elif length < 1 << 16:
        header = bytes([first, 126]) + length.to_bytes(2, "big")
    else:
        header = bytes([first, 127]) + length.to_bytes(8, "big")
    return header + payload


def ws_close_payload(code, reason=""):
    return code.to_bytes(2, "big") + reason.encode("utf-8")[:123]


class WebSocket:
    """One upgraded connection: reads the client's frames, writes the server's."""

    def __init__(self, conn):
        self.conn = conn
        self.buffer = bytearray()
        self.answer_pings = True

    def read_exactly(self, count):
        while len(self.buffer) < count:
            try:
                chunk = self.conn.sock.recv(min(max(65536, count - len(self.buffer)), MIB))
            except (ConnectionResetError, ConnectionAbortedError, BrokenPipeError) as error:
                raise ClientGone(str(error))
            if not chunk:
                raise ClientGone("client closed the TCP connection")
            self.buffer.extend(chunk)
        data = bytes(self.buffer[:count])
        del self.buffer[:count]
        return data

    def read_frame(self):
        first, second = self.read_exactly(2)
        fin, opcode, masked, length = bool(first & 0x80), first & 0x0F, bool(second & 0x80), second & 0x7F
        if length == 126:
            length = int.from_bytes(self.read_exactly(2), "big")
        elif length == 127:
            length = int.from_bytes(self.read_exactly(8), "big")
        if not masked:
            raise BadRequest("an unmasked client frame")
        if length > WS_MAX_MESSAGE:
            raise BadRequest("a frame of %d bytes" % length)
        mask = self.read_exactly(4)
        payload = self.read_exactly(length)
        if length:  # unmasked as one big integer: a byte loop takes seconds for a 16 MiB message
            keys = (mask * (length // 4 + 1))[:length]
            payload = (int.from_bytes(payload, "big") ^ int.from_bytes(keys, "big")).to_bytes(length, "big")
        return fin, opcode, payload

    def receive(self):
        """The next data message as (opcode, payload); answers pings on the way. Raises WebSocketClosed."""
        opcode, parts, size = None, [], 0
        while True:
            fin, frame_opcode, payload = self.read_frame()
            if frame_opcode == WS_OPCODES["close"]:
                raise WebSocketClosed(payload)
            if frame_opcode == WS_OPCODES["ping"]:
                if self.answer_pings:
                    self.conn.send(ws_frame(WS_OPCODES["pong"], payload))
                continue
            if frame_opcode == WS_OPCODES["pong"]:
                continue
            if frame_opcode != WS_OPCODES["continuation"]:
                opcode = frame_opcode
            size += len(payload)
            if size > WS_MAX_MESSAGE:
                self.close(1009, "message too big")
                raise ClientGone("message over %d bytes" % WS_MAX_MESSAGE)
            parts.append(payload)
            if fin:
                return opcode, b"".join(parts)

    def send(self, opcode, payload, fragment=0):
        if fragment <= 0 or len(payload) <= fragment:
            self.conn.send(ws_frame(opcode, payload))
            return
        pieces = [payload[start : start + fragment] for start in range(0, len(payload), fragment)]
        for index, piece in enumerate(pieces):
            self.conn.send(
                ws_frame(opcode if index == 0 else WS_OPCODES["continuation"], piece, fin=index == len(pieces) - 1)
            )

    def close(self, code, reason="", wait=2.0):
        """Sends a close frame, then waits up to `wait` s for the client's; returns its code (1005 for a close
        frame without one, 1006 for none)."""
        self.conn.send(ws_frame(WS_OPCODES["close"], ws_close_payload(code, reason)))
        self.conn.sock.settimeout(wait)
        try:
            while True:
                _, opcode, payload = self.read_frame()
                if opcode == WS_OPCODES["close"]:
                    return int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
        except (ClientGone, BadRequest, socket.timeout, OSError):
            return 1006

    def echo(self, fragment=0, limit=None):
        """Echoes messages until the client closes (its close frame echoed) or `limit` messages."""
        count = 0
        while limit is None or count < limit:
            try:
                opcode, payload = self.receive()
            except WebSocketClosed as closed:
                self.conn.send(ws_frame(WS_OPCODES["close"], closed.args[0]))
                return count
            self.send(opcode, payload, fragment)
            count += 1
        return count


def ws_count(key):
    with COUNTS_LOCK:
        counts = COUNTS.setdefault(key, {"hits": 0, "gone": 0})
        counts["hits"] += 1
        return counts["hits"]


def route_websocket(conn, path, query, headers):
    fields = {}
    for name, value in headers:
        fields.setdefault(name.lower(), value)
    if path == "/ws/auth":
        ws_count("ws-auth")
        if fields.get("authorization") != "Bearer fresh-token":
            return respond(
                conn, 401, json_body({"error": "unauthorized"}), extra=[("WWW-Authenticate", "Bearer")]
            )
    if path == "/ws/reject":
        code = number(query, "status", 403, minimum=200, maximum=599)
        return respond(conn, code, json_body({"error": "rejected", "status": code}))
    key = fields.get("sec-websocket-key")
    if "websocket" not in fields.get("upgrade", "").lower() or not key:
        return respond(conn, 426, json_body({"error": "upgrade required"}), extra=[("Upgrade", "websocket")])
    import base64
    import hashlib

    accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode("ascii")).digest()).decode("ascii")
    extra = [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept)]
    offered = [item.strip() for item in fields.get("sec-websocket-protocol", "").split(",") if item.strip()]
    if offered:
        extra.append(("Sec-WebSocket-Protocol", offered[0]))
    conn.send(head(101, extra))
    socket_ = WebSocket(conn)

    if path == "/ws/echo":
        socket_.echo(fragment=number(query, "fragment", 0, maximum=WS_MAX_MESSAGE))
        return
    if path == "/ws/headers":
        named = {name: value for name, value in headers}
        socket_.send(WS_OPCODES["text"], json.dumps({"headers": named, "path": path, "query": query_text(query)}).encode())
        socket_.echo()
        return
    if path == "/ws/close":
        code = number(query, "code", 1000, minimum=1000, maximum=4999)
        reason = (query.get("reason") or [""])[0]
        socket_.echo(limit=number(query, "after", 0, maximum=1000))
        # 10 s: the client reads the close only when its reader asks for the next message, and a test's reader
        # may wait its turn on a loaded machine.
        answer = socket_.close(code, reason, wait=10.0)
        key = (query.get("key") or [None])[0]
        if key is not None:
            with COUNTS_LOCK:
                COUNTS.setdefault("ws-close:" + key, {"hits": 0, "gone": 0}).setdefault("closes", []).append(answer)
        return
    if path == "/ws/drop":
        socket_.echo(limit=number(query, "after", 0, maximum=1000))
        return  # handle() shuts the TCP connection down: no close frame
    if path == "/ws/mute":
        deadline = time.monotonic() + number(query, "seconds", 10.0, kind=float, maximum=60)
        key = (query.get("key") or [None])[0]
        closed_at, code = None, 1006
        try:
            while time.monotonic() < deadline:
                socket_.conn.sock.settimeout(max(0.01, deadline - time.monotonic()))
                _, opcode, payload = socket_.read_frame()
                if opcode == WS_OPCODES["close"] and closed_at is None:
                    closed_at = time.monotonic()
                    code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
        except (ClientGone, BadRequest, socket.timeout, OSError):
            pass
        if key is not None:
            ended = time.monotonic()
            with COUNTS_LOCK:
                counts = COUNTS.setdefault("ws-mute:" + key, {"hits": 0, "gone": 0})
                counts["closes"] = [code]
                counts["closeToEnd"] = None if closed_at is None else int((ended - closed_at) * 1000)
        return  # handle() shuts the TCP connection down
    if path == "/ws/silent":
        socket_.answer_pings = False
        socket_.echo()
        return
    if path == "/ws/flood":
        count = number(query, "count", 1000, maximum=10**7)
        size = number(query, "size", 65536, maximum=WS_MAX_MESSAGE)
        counter = "ws-flood:" + (query.get("key") or [""])[0]
        payload = ws_pattern(size)
        with COUNTS_LOCK:
            COUNTS[counter] = {"hits": 0, "gone": 0}
        for _ in range(count):
            socket_.send(WS_OPCODES["binary"], payload)
            with COUNTS_LOCK:
                COUNTS[counter]["hits"] += 1
        socket_.close(1000, "flood done")
        return
    if path == "/ws/big":
        size = number(query, "bytes", MIB, maximum=WS_MAX_MESSAGE)
        payload = ws_pattern(size)
        socket_.send(WS_OPCODES["binary"], payload, fragment=number(query, "fragment", 0, maximum=WS_MAX_MESSAGE))
        socket_.echo()
        return
    if path == "/ws/auth":
        socket_.echo()
        return
    if path == "/ws/flaky":
        hits = ws_count("ws-flaky:" + (query.get("key") or [""])[0])
        socket_.send(WS_OPCODES["text"], ("connection %d" % hits).encode())
        if hits <= number(query, "fail", 1, maximum=100):
            time.sleep(0.05)
            return  # dropped: no close frame
        socket_.echo()
        return
    socket_.close(1008, "no route %s" % path)


def ws_pattern(size):
    """`size` bytes where byte i is i % 251."""
    return (bytes(range(251)) * (size // 251 + 1))[:size]


def query_text(query):
    return urllib.parse.urlencode([(name, value) for name, values in query.items() for value in values])


def route(conn, method, target, headers, body):
    parsed = urllib.parse.urlsplit(target)
    path = parsed.path
    query = urllib.parse.parse_qs(parsed.query, keep_blank_values=True)

    if path == "/headers":
        return route_headers(conn, method, path, headers, body)

    if path.startswith("/ws/"):
        return route_websocket(conn, path, query, headers)

    if path == "/count":
        return route_count(conn, query)

    if path == "/auth/protected":
        return route_auth_protected(conn, query, headers)

    if path == "/auth/token":
        return route_auth_token(conn, query)

    if path == "/flaky":
        key = "flaky:" + (query.get("key") or [""])[0]
        fail = number(query, "fail", 1, maximum=1000000)
        code = number(query, "status", 503, minimum=200, maximum=599)
        retry_after = (query.get("retry-after") or ["0"])[0]
        with COUNTS_LOCK:
            counts = COUNTS.setdefault(key, {"hits": 0, "gone": 0})
            counts["hits"] += 1
            hits = counts["hits"]
        if hits <= fail:
            extra = [("Retry-After", retry_after)] if retry_after else []
            return respond(conn, code, json_body({"key": key, "hits": hits}), extra=extra)
        return respond(conn, 200, json_body({"key": key, "hits": hits}))

    if path == "/count-stats":
        key = (query.get("key") or [""])[0]
        with COUNTS_LOCK:
            counts = dict(COUNTS.get(key, {"hits": 0, "gone": 0}))
        answer = {"key": key, "hits": counts["hits"], "gone": counts["gone"]}
        if "ranges" in counts:
            answer["ranges"] = list(counts["ranges"])
        if "closes" in counts:
            answer["closes"] = list(counts["closes"])
        if "closeToEnd" in counts:
            answer["closeToEnd"] = counts["closeToEnd"]
        if "peak" in counts:
            answer["peak"] = counts["peak"]
        return respond(conn, 200, json_body(answer))

    if path == "/redirect":
        to = (query.get("to") or [""])[0]
        if not to:
            raise BadRequest("/redirect needs ?to=URL")
        code = number(query, "status", 302, minimum=300, maximum=399)
        return respond(conn, code, json_body({"redirect": to}), extra=[("Location", to)])

    if path == "/redirect-presigned":
        # A redirect to a pre-signed URL: its secret comes from the server, not from the request.
        to = "/headers?X-Amz-Signature=r3direct-SECRET&part=2"
        return respond(conn, 302, json_body({}), extra=[("Location", to)])

    if path == "/redirect-loop":
        return respond(conn, 302, json_body({"redirect": "/redirect-loop"}), extra=[("Location", "/redirect-loop")])

    if path == "/slow-body":
        total = number(query, "bytes", 60, maximum=10 * MIB)
        interval = number(query, "interval", 1.0, kind=float, maximum=3600)
        stall = number(query, "stall", -1, minimum=-1)
        conn.send(head(200, [("Content-Type", "text/plain"), ("Content-Length", str(total))]))
        for index in range(total):
            if index == stall:
                conn.wait(3600)
            conn.wait(interval)
            conn.send(b".")
        return

    if path == "/ranged":
        return route_ranged(conn, query, headers)

    if path == "/endless-chunked":
        interval = number(query, "interval", 1.0, kind=float, maximum=3600)
        conn.send(head(200, [("Content-Type", "text/plain"), ("Transfer-Encoding", "chunked")]))
        count = 0
        while True:
            payload = b"chunk %d\n" % count
            conn.send(b"%x\r\n%s\r\n" % (len(payload), payload))
            count += 1
            conn.wait(interval)

    if path == "/slow-headers":
        delay = number(query, "delay", 10.0, kind=float, maximum=3600)
        conn.wait(delay)
        return respond(conn, 200, json_body({"slept": delay}))

    if path == "/gzip-bomb":
        mb = number(query, "mb", 1024, minimum=1, maximum=MAX_MB)
        data = gzip_bomb(mb)
        conn.send(
            head(
                200,
                [
                    ("Content-Type", "application/octet-stream"),
                    ("Content-Encoding", "gzip"),
                    ("Content-Length", str(len(data))),
                ],
            )
        )
        view = memoryview(data)
        for start in range(0, len(data), 65536):
            conn.send(view[start : start + 65536])
        return

    if path == "/gzip-json":
        data = gzip_json(number(query, "kb", 1024, minimum=1, maximum=64 * 1024))
        return respond(conn, 200, data, extra=[("Content-Encoding", "gzip")])

    if path in ("/big", "/big-declared"):
        total = size_in_bytes(query)
        conn.send(head(200, [("Content-Type", "application/json"), ("Content-Length", str(total))]))
        if path == "/big-declared":
            conn.wait(number(query, "pause", 0.0, kind=float, maximum=3600))
        for piece in filler(total):
            conn.send(piece)
        return

    if path == "/big-chunked":
        total = size_in_bytes(query)
        conn.send(head(200, [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")]))
        for piece in filler(total):
            conn.send(b"%x\r\n" % len(piece) + piece + b"\r\n")
        conn.send(b"0\r\n\r\n")
        return

    if path == "/bare-status":
        # FoundationNetworking traps on this (swift-corelibs-foundation #5285). Not for URLSession tests.
        conn.send(b"HTTP/1.1 200 OK\r\n")
        return

    if path == "/truncated":
        conn.send(head(200, [("Content-Type", "text/plain"), ("Content-Length", "100")]) + b"0123456789")
        return

    if path == "/garbage-status":
        conn.send(b"HTXP/9 abc\r\n\r\n")
        return

    if path == "/huge-headers":
        kb = number(query, "kb", 1024, maximum=64 * 1024)
        value = "h" * 1000
        extra = [("X-Filler-%d" % i, value) for i in range(max(1, kb * 1024 // (len(value) + 16)))]
        return respond(conn, 200, json_body({"headerKiB": kb}), extra=extra)

    if path == "/no-content-with-body":
        body = b"this body should not be here on a 204\n"
        conn.send(head(204, [("Content-Type", "text/plain")]) + body)
        return

    if path == "/basic-challenge":
        return respond(
            conn,
            401,
            json_body({"authenticated": False}),
            extra=[("WWW-Authenticate", 'Basic realm="x"')],
        )

    if path.startswith("/status/"):
        try:
            code = int(path[len("/status/") :])
        except ValueError:
            raise BadRequest("bad status %r" % path)
        if not 100 <= code <= 999:
            raise BadRequest("bad status %r" % path)
        if code in (204, 304) or code < 200:
            conn.send(head(code, []))
            return
        return respond(conn, code, json_body({"status": code}))

    return respond(conn, 404, json_body({"error": "no route %s" % path}))


# ---------------------------------------------------------------------------
# Serving


def handle(sock, peer, origin):
    conn = Connection(sock, peer, origin)
    request_line = "-"
    started = time.monotonic()
    outcome = "ok"
    try:
        request = read_request(sock)
        if request is None:
            outcome = "no request"
            return
        method, target, version, headers, body = request
        request_line = "%s %s %s" % (method, target, version)
        sock.settimeout(None)
        try:
            route(conn, method, target, headers, body)
        except BadRequest as error:
            outcome = "bad request: %s" % error
            respond(conn, 400, json_body({"error": str(error)}))
    except ClientGone as error:
        outcome = "client gone (%s)" % error
    except BadRequest as error:
        outcome = "bad request: %s" % error
        try:
            respond(conn, 400, json_body({"error": str(error)}))
        except (ClientGone, OSError):
            pass
    except socket.timeout:
        outcome = "timed out reading the request"
    except Exception as error:  # keep serving whatever happens to one connection
        outcome = "server error: %r" % error
    finally:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()
        log(
            "%s <- %s:%d %s -> %s (%d bytes sent, %.2f s)"
            % (origin, peer[0], peer[1], request_line, outcome, conn.sent, time.monotonic() - started)
        )


def serve(listener, origin):
    while True:
        try:
            sock, peer = listener.accept()
        except OSError as error:
            if error.errno in (errno.EINTR, errno.ECONNABORTED, errno.EMFILE, errno.ENFILE):
                time.sleep(0.05)
                continue
            log("listener %s stopped: %s" % (origin, error))
            return
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=handle, args=(sock, peer, origin), daemon=True).start()


def listen(host, port):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def open_listeners(port=0, other_port=0, attempts=50):
    """Binds 127.0.0.1:P, 127.0.0.2:P (or falls back to localhost) and 127.0.0.1:Q."""
    last_error = None
    for _ in range(attempts if port == 0 else 1):
        main = listen("127.0.0.1", port)
        p = main.getsockname()[1]
        try:
            other_host = listen("127.0.0.2", p)
            other_host_url = "http://127.0.0.2:%d" % p
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                main.close()
                last_error = error
                continue
            # 127.0.0.2 is not configured (macOS without `ifconfig lo0 alias 127.0.0.2`): another host
            # name for the same socket is still another origin.
            log("cannot bind 127.0.0.2 (%s); other host falls back to localhost" % error)
            other_host = None
            other_host_url = "http://localhost:%d" % p
        other_port = listen("127.0.0.1", other_port)
        q = other_port.getsockname()[1]
        return [
            (main, "http://127.0.0.1:%d" % p),
            (other_host, other_host_url),
            (other_port, "http://127.0.0.1:%d" % q),
        ]
    raise SystemExit("faultserver: no port P free on both 127.0.0.1 and 127.0.0.2: %s" % last_error)


def exit_when_stdin_closes():
    """Exits once standard input reaches its end: the process that started the server, holding the other end of
    the pipe, has ended (however it ended)."""
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except (OSError, ValueError):
        pass
    os._exit(0)


def main():
    global _log_file, _cache_dir
    parser = argparse.ArgumentParser(description="Misbehaving HTTP/1.1 server for Courier's fault tests.")
    parser.add_argument("--port", type=int, default=0, help="port P (default: a free one)")
    parser.add_argument("--other-port", type=int, default=0, help="port Q (default: a free one)")
    parser.add_argument("--env-file", help="write NAME=url lines here once listening (atomically)")
    parser.add_argument("--log", default="-", help="append the request log here, '-' for stderr (the default)")
    parser.add_argument("--cache-dir", help="keep built gzip bombs here across runs")
    parser.add_argument("--no-warm", action="store_true", help="do not build /gzip-bomb?mb=1024 at start-up")
    parser.add_argument("--exit-with-stdin", action="store_true", help="exit when standard input closes")
    arguments = parser.parse_args()

    if arguments.log != "-":
        os.makedirs(os.path.dirname(os.path.abspath(arguments.log)), exist_ok=True)
        _log_file = open(arguments.log, "a", buffering=1)
    _cache_dir = arguments.cache_dir
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    signal.signal(signal.SIGINT, lambda *_: os._exit(0))

    listeners = open_listeners(arguments.port, arguments.other_port)
    names = ["COURIER_FAULT_URL", "COURIER_FAULT_URL_OTHER_HOST", "COURIER_FAULT_URL_OTHER_PORT"]
    for sock, origin in listeners:
        if sock is not None:
            threading.Thread(target=serve, args=(sock, origin), daemon=True).start()
    lines = "".join("%s=%s\n" % (name, origin) for name, (_, origin) in zip(names, listeners))
    log("listening: " + ", ".join(origin for _, origin in listeners))
    if arguments.exit_with_stdin:
        threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    if not arguments.no_warm:
        threading.Thread(target=gzip_bomb, args=(1024,), daemon=True).start()
    if arguments.env_file:
        temporary = "%s.%d.tmp" % (arguments.env_file, os.getpid())
        with open(temporary, "w") as f:
            f.write(lines)
        os.replace(temporary, arguments.env_file)
    sys.stdout.write(lines)
    sys.stdout.flush()
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
