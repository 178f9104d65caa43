#!/usr/bin/env python3
"""A certdesk webhook receiver with the Python standard library only (docs/webhooks.md).

    WEBHOOK_SECRET=whsec_... PORT=8787 python3 examples/webhook_receiver.py
"""
import base64
import hashlib
import hmac
import json
import os
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

TOLERANCE_SECONDS = 5 * 60


def verify(secret: str, headers, body: bytes) -> dict:
    """Standard Webhooks verification: HMAC-SHA256 over "id.timestamp.body" with the base64 key after whsec_."""
    msg_id = headers["webhook-id"]
    timestamp = headers["webhook-timestamp"]
    if abs(time.time() - int(timestamp)) > TOLERANCE_SECONDS:
        raise ValueError("timestamp too old or too new")
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{msg_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    for entry in headers["webhook-signature"].split(" "):
        version, _, signature = entry.partition(",")
        if version == "v1" and hmac.compare_digest(signature, expected):
            return json.loads(body)
    raise ValueError("no matching signature")


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(min(int(self.headers.get("content-length", "0")), 64 * 1024))
        try:
            event = verify(os.environ["WEBHOOK_SECRET"], self.headers, body)
        except (KeyError, ValueError):
            self.send_response(400)
            self.end_headers()
            return
        self.send_response(204)
        self.end_headers()
        print(self.headers["webhook-id"], event["type"], json.dumps(event["data"]), flush=True)


if __name__ == "__main__":
    HTTPServer(("", int(os.environ.get("PORT", "8787"))), Handler).serve_forever()
