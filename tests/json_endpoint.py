"""A model behind autocheck's HTTP protocol on 127.0.0.1, for the tests that need a real server: each POST
is answered by ``reply(body) -> (status, JSON reply)``; ``requests`` counts them, ``connections`` the TCP
connections they came on (HTTP/1.1: a client may keep one open for many requests)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class JsonEndpoint:
    def __init__(self, reply: Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]):
        self.requests = self.connections = 0
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real servers answer

            def setup(self):
                super().setup()
                endpoint.connections += 1

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                endpoint.requests += 1
                status, answer = reply(body)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/predict"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)
