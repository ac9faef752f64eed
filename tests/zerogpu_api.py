"""A stand-in for ZeroGPU's device API on loopback, for running the app with the real `spaces` package on a machine
with no GPU: `/startup-report` answers 200 and `/schedule` refuses every call, as a busy or exhausted ZeroGPU does
(503: "No GPU was available"; 429 with the visitor's quota: "… quota exceeded"). `spaces` then raises its own
`gr.Error` in the app's process before any worker is forked, which is what the tests check reaches the student.

Run alone: `python tests/zerogpu_api.py PORT [busy|quota]`; it prints the address and serves until killed.
`POST /mode/busy` or `POST /mode/quota` changes what /schedule answers from then on. Every request is logged on stdout
as `METHOD PATH?QUERY`, so a test can count the GPU calls and read the durations they asked for."""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REFUSALS = {
    # ZeroGPU has no free GPU: spaces says "No GPU was available"
    "busy": (503, {}, b""),
    # the visitor's daily quota is spent: spaces says "You have exceeded your ... quota (..s requested vs. ..s left).
    # Try again in ..." for a signed-in visitor, "Space app has reached its GPU limit" for an anonymous one
    "quota": (429, {"X-Authenticated": "regular"}, json.dumps({"left": 7, "wait": "PT3H12M"}).encode()),
}


def handler(mode: str):
    current = [mode]

    class DeviceAPI(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            print(f"POST {self.path}", flush=True)
            if self.path.startswith("/mode/") and self.path[6:] in REFUSALS:
                current[0] = self.path[6:]
            elif self.path.startswith("/schedule"):
                status, headers, body = REFUSALS[current[0]]
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            self.send_response(200)  # /startup-report, /release
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args) -> None:  # the request line is printed above, once
            pass

    return DeviceAPI


def main(port: int, mode: str = "busy") -> None:
    server = ThreadingHTTPServer(("127.0.0.1", port), handler(mode))
    print(f"device API on http://127.0.0.1:{server.server_address[1]} ({mode})", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(int(sys.argv[1]), *sys.argv[2:3])
