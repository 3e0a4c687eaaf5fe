"""A platform's webhook endpoint for tests: a real local HTTP server that verifies each delivery's
signature as docs/api.md shows, and answers 500 to its first `fail_first` deliveries."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET = "whsec-test"


class Receiver:
    """A platform's endpoint: verifies each delivery as docs/api.md shows, answers 500 `fail_first` times."""

    def __init__(self, fail_first: int) -> None:
        self.received: list[dict] = []
        self.remaining_failures = fail_first
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers["content-length"]))
                parts = dict(item.split("=", 1) for item in self.headers["Beliefstream-Signature"].split(","))
                expected = hmac.new(SECRET.encode(), parts["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
                valid = hmac.compare_digest(parts["v1"], expected) and abs(time.time() - int(parts["t"])) < 300
                receiver.received.append(
                    {"valid": valid, "delivery": self.headers["Beliefstream-Delivery"], "event": json.loads(body)}
                )
                failing = receiver.remaining_failures > 0
                receiver.remaining_failures -= 1
                self.send_response(500 if failing or not valid else 204)
                self.end_headers()

            def log_message(self, *_args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/memory"

    def __enter__(self) -> Receiver:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_exc) -> None:
        self.server.shutdown()
        self.server.server_close()
