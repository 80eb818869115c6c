"""scripts/servers/serving.py - what Courier's Python test servers share: serve a handler on 127.0.0.1 and tell the
test script where, as a `NAME=http://127.0.0.1:PORT` line on stdout and, atomically, in an env file."""

import os
import sys
from http.server import ThreadingHTTPServer


def serve(handler, port, variable, env_file=None):
    """Serves `handler` on 127.0.0.1:`port` (0: any free port) until interrupted, after announcing
    `variable`=its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    line = "%s=http://127.0.0.1:%d\n" % (variable, server.server_address[1])
    sys.stdout.write(line)
    sys.stdout.flush()
    if env_file:
        temporary = env_file + ".tmp"
        with open(temporary, "w") as f:
            f.write(line)
        os.replace(temporary, env_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
