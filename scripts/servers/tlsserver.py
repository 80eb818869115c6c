#!/usr/bin/env python3
"""A TLS test server for Courier's trust tests: a private certificate authority and its certificates, made with
openssl at start-up into a temporary folder (removed at exit), served on 127.0.0.1 by Python's `ssl`.

    python3 tlsserver.py --env-file F [--log F|-]

Origins (each on a free port of 127.0.0.1; its certificate names `localhost`, `127.0.0.1` and `proxied.courier.test`
(the test proxy's name for 127.0.0.1) unless said):
    main       a certificate of the test CA (ca.pem)
    mtls       the same, and it requires a client certificate of the test CA (TLS 1.2, so a missing one fails the
               handshake)
    other      a certificate of another CA (other-ca.pem): a second host with another certificate
    expired    a certificate of the test CA that expired yesterday
    wronghost  a certificate of the test CA for wrong.example only
    selfsigned a self-signed certificate (selfsigned.pem), no CA

Routes, on every origin:
    GET /count?path=P     how many requests for path P (any origin) reached a request line: `{"count": N}`
    GET /redirect?to=URL  302 to URL
    GET /ws...            a WebSocket echo (text and binary echoed, pings answered, close echoed)
    GET anything else     200 `hello` (on mtls: `hello <client certificate's CN>`)

Once every origin listens it writes, atomically, to --env-file:
    COURIER_TLS_DIR=<folder with ca.pem, other-ca.pem, client.pem, client.key, client.p12 (password: courier)>
    COURIER_TLS_MAIN_PORT=...  COURIER_TLS_MTLS_PORT=...  COURIER_TLS_OTHER_PORT=...
    COURIER_TLS_EXPIRED_PORT=...  COURIER_TLS_WRONGHOST_PORT=...  COURIER_TLS_SELFSIGNED_PORT=...
"""

import argparse
import atexit
import base64
import hashlib
import json
import os
import shutil
import signal
import socketserver
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COUNTS = {}
COUNTS_LOCK = threading.Lock()
LOG = sys.stderr


def openssl(folder, *arguments):
    subprocess.run(["openssl", *arguments], cwd=folder, check=True, capture_output=True)


def make_ca(folder, name, subject):
    openssl(folder, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", name + ".key", "-out", name + ".pem", "-subj", "/CN=" + subject, "-days", "2",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")


def make_leaf(folder, name, ca, subject, extensions, days="2"):
    with open(os.path.join(folder, name + ".ext"), "w") as file:
        file.write(extensions + "\n")
    openssl(folder, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", name + ".key", "-out", name + ".csr", "-subj", "/CN=" + subject)
    openssl(folder, "x509", "-req", "-in", name + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key",
            "-CAcreateserial", "-days", days, "-extfile", name + ".ext", "-out", name + ".pem")


def make_certificates(folder):
    # proxied.courier.test: a name only the test proxy resolves (scripts/servers.sh, courier_proxy_start).
    server = "subjectAltName=DNS:localhost,IP:127.0.0.1,DNS:proxied.courier.test\nextendedKeyUsage=serverAuth"
    make_ca(folder, "ca", "Courier Test CA")
    make_ca(folder, "other-ca", "Courier Other CA")
    make_leaf(folder, "server", "ca", "localhost", server)
    make_leaf(folder, "other", "other-ca", "localhost", server)
    make_leaf(folder, "expired", "ca", "localhost", server, days="-1")
    make_leaf(folder, "wronghost", "ca", "wrong.example",
              "subjectAltName=DNS:wrong.example\nextendedKeyUsage=serverAuth")
    openssl(folder, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "selfsigned.key", "-out", "selfsigned.pem", "-subj", "/CN=localhost", "-days", "2",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-addext", "extendedKeyUsage=serverAuth")
    make_leaf(folder, "client", "ca", "courier-client", "extendedKeyUsage=clientAuth")
    openssl(folder, "pkcs12", "-export", "-inkey", "client.key", "-in", "client.pem", "-out", "client.p12",
            "-passout", "pass:courier")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        # The handshake runs here, in the connection's thread, so that a client that stalls blocks no one else.
        self.request.do_handshake()
        super().setup()

    def log_message(self, format, *arguments):
        LOG.write("%s %s\n" % (self.server.name, format % arguments))
        LOG.flush()

    def reply(self, status, body, headers=()):
        data = body.encode()
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        with COUNTS_LOCK:
            COUNTS[url.path] = COUNTS.get(url.path, 0) + 1
        if url.path == "/count":
            with COUNTS_LOCK:
                count = COUNTS.get(query.get("path", ""), 0)
            return self.reply(200, json.dumps({"count": count}), [("Content-Type", "application/json")])
        if url.path == "/redirect":
            return self.reply(302, "", [("Location", query.get("to", "/"))])
        if url.path.startswith("/ws") and self.headers.get("Upgrade", "").lower() == "websocket":
            return self.websocket()
        text = "hello"
        peer = self.request.getpeercert()
        if peer:
            names = dict(pair[0] for pair in peer.get("subject", ()))
            text += " " + names.get("commonName", "")
        self.reply(200, text, [("Content-Type", "text/plain")])

    def websocket(self):
        key = self.headers.get("Sec-WebSocket-Key", "")
        accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
        self.send_response(101)
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept.decode())
        self.end_headers()
        self.wfile.flush()
        while True:
            head = self.rfile.read(2)
            if len(head) < 2:
                return
            opcode, length = head[0] & 0x0F, head[1] & 0x7F
            if length == 126:
                length = struct.unpack("!H", self.rfile.read(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", self.rfile.read(8))[0]
            mask = self.rfile.read(4) if head[1] & 0x80 else b"\0\0\0\0"
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(self.rfile.read(length)))
            if opcode == 0x9:
                self.frame(0xA, payload)
            elif opcode == 0x8:
                self.frame(0x8, payload[:2])
                return
            elif opcode in (0x1, 0x2):
                self.frame(opcode, payload)

    def frame(self, opcode, payload):
        length = len(payload)
        if length < 126:
            head = struct.pack("!BB", 0x80 | opcode, length)
        elif length < 65536:
            head = struct.pack("!BBH", 0x80 | opcode, 126, length)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 127, length)
        self.wfile.write(head + payload)
        self.wfile.flush()


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, name, context):
        self.name = name
        self.context = context
        super().__init__(("127.0.0.1", 0), Handler)

    def get_request(self):
        connection, address = self.socket.accept()
        return self.context.wrap_socket(connection, server_side=True, do_handshake_on_connect=False), address

    def handle_error(self, request, client_address):
        LOG.write("%s: connection from %s failed: %s\n" % (self.name, client_address, sys.exc_info()[1]))
        LOG.flush()


def context(folder, certificate, client_ca=None):
    result = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    result.load_cert_chain(os.path.join(folder, certificate + ".pem"), os.path.join(folder, certificate + ".key"))
    if client_ca:
        result.verify_mode = ssl.CERT_REQUIRED
        result.load_verify_locations(os.path.join(folder, client_ca + ".pem"))
        # TLS 1.2: a missing client certificate fails the handshake itself, not the first read after it.
        result.maximum_version = ssl.TLSVersion.TLSv1_2
    return result


def main():
    global LOG
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env-file", required=True, help="write NAME=value lines here once listening (atomically)")
    parser.add_argument("--log", default="-", help="log file, - for standard error")
    arguments = parser.parse_args()
    if arguments.log != "-":
        LOG = open(arguments.log, "a", buffering=1)
    folder = tempfile.mkdtemp(prefix="courier-tls-")
    atexit.register(shutil.rmtree, folder, True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    make_certificates(folder)
    servers = {
        "MAIN": Server("main", context(folder, "server")),
        "MTLS": Server("mtls", context(folder, "server", client_ca="ca")),
        "OTHER": Server("other", context(folder, "other")),
        "EXPIRED": Server("expired", context(folder, "expired")),
        "WRONGHOST": Server("wronghost", context(folder, "wronghost")),
        "SELFSIGNED": Server("selfsigned", context(folder, "selfsigned")),
    }
    for server in servers.values():
        threading.Thread(target=server.serve_forever, daemon=True).start()
    lines = ["COURIER_TLS_DIR=%s" % folder]
    lines += ["COURIER_TLS_%s_PORT=%d" % (name, server.server_address[1]) for name, server in servers.items()]
    temporary = "%s.%d.tmp" % (arguments.env_file, os.getpid())
    with open(temporary, "w") as file:
        file.write("\n".join(lines) + "\n")
    os.replace(temporary, arguments.env_file)
    threading.Event().wait()


if __name__ == "__main__":
    main()
