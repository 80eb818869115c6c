#!/usr/bin/env python3
"""A sink for Courier's upload tests: it reads request bodies of any size without keeping them, and answers
with what it received, as JSON. Python standard library only.

Routes (any method with a body; GET /status/200 answers 200 for readiness checks):
  /sink             {"bytes": N, "sha256": hex, "chunked": bool, "contentLength": N|null, "contentType": ...}
  /sink-multipart   the same for the whole body, plus "parts": [{"name", "filename", "contentType", "bytes",
                    "sha256"}] from its own streaming multipart/form-data parser (names and filenames unescaped
                    from quoted strings: \\" and \\\\), so a form of any size is checked part by part.

Usage: python3 scripts/servers/sinkserver.py   (prints COURIER_SINK_URL=http://127.0.0.1:PORT, then serves)
"""
import hashlib
import http.server
import json
import re
import sys

CHUNK = 1 << 20


class Body:
    """Reads a request body by Content-Length or chunked transfer coding, hashing every byte."""

    def __init__(self, handler):
        self.rfile = handler.rfile
        self.chunked = "chunked" in (handler.headers.get("Transfer-Encoding") or "").lower()
        length = handler.headers.get("Content-Length")
        self.left = int(length) if (length is not None and not self.chunked) else (0 if not self.chunked else None)
        self.chunk_left = 0
        self.done = False
        self.count = 0
        self.hash = hashlib.sha256()

    def read(self, size=CHUNK):
        """Up to `size` bytes; b"" at the end."""
        if self.done:
            return b""
        if not self.chunked:
            if self.left == 0:
                self.done = True
                return b""
            data = self.rfile.read(min(size, self.left))
            if not data:
                raise ValueError("body ended early")
            self.left -= len(data)
        else:
            if self.chunk_left == 0:
                line = self.rfile.readline()
                size_text = line.split(b";")[0].strip()
                chunk_size = int(size_text, 16)
                if chunk_size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    self.done = True
                    return b""
                self.chunk_left = chunk_size
            data = self.rfile.read(min(size, self.chunk_left))
            if not data:
                raise ValueError("body ended early")
            self.chunk_left -= len(data)
            if self.chunk_left == 0:
                self.rfile.readline()
        self.count += len(data)
        self.hash.update(data)
        return data


def unquote(value):
    return re.sub(r"\\(.)", r"\1", value)


def disposition(header_text):
    result = {}
    for line in header_text.split("\r\n"):
        name, _, value = line.partition(":")
        lower = name.strip().lower()
        if lower == "content-type":
            result["contentType"] = value.strip()
        elif lower == "content-disposition":
            for key, quoted in re.findall(r';\s*(name|filename)="((?:[^"\\]|\\.)*)"', value):
                result[key] = unquote(quoted)
    return result


def parse_multipart(body, boundary):
    """Streams the parts of a multipart body: only one read's worth of bytes is held at a time."""
    delimiter = b"--" + boundary
    separator = b"\r\n" + delimiter
    buffer = b""

    def more():
        nonlocal buffer
        data = body.read()
        if not data:
            raise ValueError("multipart body ended early")
        buffer += data

    while delimiter not in buffer:
        more()
    buffer = buffer[buffer.index(delimiter) + len(delimiter):]
    parts = []
    while True:
        while len(buffer) < 2:
            more()
        if buffer.startswith(b"--"):
            break
        if not buffer.startswith(b"\r\n"):
            raise ValueError("no CRLF after a boundary")
        while b"\r\n\r\n" not in buffer:
            more()
        end = buffer.index(b"\r\n\r\n")
        part = disposition(buffer[2:end].decode("utf-8", "replace"))
        buffer = buffer[end + 4:]
        digest = hashlib.sha256()
        count = 0
        while True:
            at = buffer.find(separator)
            if at >= 0:
                digest.update(buffer[:at])
                count += at
                buffer = buffer[at + len(separator):]
                break
            keep = len(separator) - 1
            if len(buffer) > keep:
                digest.update(buffer[:-keep])
                count += len(buffer) - keep
                buffer = buffer[-keep:]
            more()
        part["bytes"] = count
        part["sha256"] = digest.hexdigest()
        parts.append(part)
    while body.read():
        pass
    return parts


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        sys.stderr.write("%s %s\n" % (self.command, self.path))

    def answer(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.answer(200, {"ok": True})

    def receive(self):
        body = Body(self)
        report = {
            "chunked": body.chunked,
            "contentLength": self.headers.get("Content-Length"),
            "contentType": self.headers.get("Content-Type"),
        }
        try:
            if self.path.startswith("/sink-multipart"):
                match = re.search(r"boundary=([^;\s]+)", self.headers.get("Content-Type") or "")
                if not match:
                    return self.answer(400, {"error": "no boundary"})
                report["parts"] = parse_multipart(body, match.group(1).encode())
            else:
                while body.read():
                    pass
        except ValueError as error:
            self.close_connection = True
            return self.answer(400, {"error": str(error)})
        report["bytes"] = body.count
        report["sha256"] = body.hash.hexdigest()
        self.answer(200, report)

    do_POST = receive
    do_PUT = receive


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print("COURIER_SINK_URL=http://127.0.0.1:%d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
