#!/usr/bin/env python3
"""tests/cli/fault_proxy.py: an HTTP/1.1 reverse proxy for the network tests (issue 20).

The kernel here has no netem, so latency, a bandwidth cap and faults on real sockets come from
this proxy in front of 127.0.0.1:UPSTREAM (nginx or SeaweedFS). Standard library only.

  fault_proxy.py --listen-port P --upstream-port U [--latency-ms MS] [--bw BYTES_PER_S]
                 [--max-seconds S]

Each client connection is served in order (keep-alive) over its own upstream connection. Every
request waits --latency-ms before it is forwarded; a response body is sent at most --bw bytes/s
per connection (0: no cap). The Host header passes unchanged, so S3 SigV4 signatures stay valid.

Control, on the same port (never forwarded, never delayed, never counted as requests):
  GET /__fault?mode=M&count=N  the next N forwarded requests (over all connections) fail as M;
                               replaces what was pending; mode=none clears. Answers JSON.
  GET /__stats                 {"requests", "forwarded", "faults": {mode: n}, "pending",
                                "bytes_to_clients", "connections"} as JSON; connections
                               counts those that carried a request.
Modes:
  503       503 Service Unavailable, a short text body, the connection kept.
  slowdown  503 with an S3 XML body <Error><Code>SlowDown</Code>...</Error>.
  reset     the real response's headers and half its body, then a TCP reset (SO_LINGER 0).
  stall     the real response's headers and half its body, then nothing until the client
            closes (or --max-seconds).
  short     the real response's headers (full Content-Length) and half its body, then a
            normal close.
503 and slowdown hit any request (HEAD too) and are not forwarded. reset, stall and short need
a body to cut: a response without one (HEAD, empty, a non-2xx) passes through untouched and does
not use up the count.

Invariants: it exits by itself after --max-seconds (default 600) whatever it is doing; a
request head is at most 64 KiB and a buffered body at most 1 GiB; it listens on 127.0.0.1 only.
"""
import argparse
import asyncio
import json
import os
import socket
import struct
import sys
import time
import urllib.parse

HEAD_MAX = 64 * 1024
BODY_MAX = 1 << 30
CHUNK = 64 * 1024
MODES = ("503", "slowdown", "reset", "stall", "short")
CUTTING = ("reset", "stall", "short")


class State:
    def __init__(self, args):
        self.args = args
        self.requests = 0
        self.forwarded = 0
        self.connections = 0
        self.bytes_to_clients = 0
        self.faults = {m: 0 for m in MODES}
        self.pending_mode = None
        self.pending_count = 0

    def take_fault(self, cutting_possible):
        """The fault for the next request, or None; a cutting fault only when a body exists."""
        if self.pending_count <= 0 or self.pending_mode is None:
            return None
        m = self.pending_mode
        if m in CUTTING and not cutting_possible:
            return None
        self.pending_count -= 1
        self.faults[m] += 1
        return m

    def stats(self):
        return {"requests": self.requests, "forwarded": self.forwarded, "faults": self.faults,
                "pending": {"mode": self.pending_mode, "count": self.pending_count},
                "bytes_to_clients": self.bytes_to_clients, "connections": self.connections}


class Closed(Exception):
    pass


async def read_head(reader):
    """Returns (start_line, [(name, value)]) or raises Closed at EOF before a head."""
    try:
        data = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as e:
        if not e.partial:
            raise Closed()
        raise
    except asyncio.LimitOverrunError:
        raise ValueError("head too large")
    lines = data[:-4].decode("latin-1").split("\r\n")
    headers = []
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.append((name.strip(), value.strip()))
    return lines[0], headers


def header(headers, name):
    name = name.lower()
    for k, v in headers:
        if k.lower() == name:
            return v
    return None


async def read_body(reader, headers, method, status=None):
    """The body framed by headers (Content-Length, chunked, or to EOF for a response)."""
    if method == "HEAD" or (status is not None and (status < 200 or status in (204, 304))):
        return b""
    te = header(headers, "transfer-encoding")
    if te and "chunked" in te.lower():
        out = bytearray()
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";")[0].strip(), 16)
            if size == 0:
                while (await reader.readuntil(b"\r\n")) != b"\r\n":
                    pass
                return bytes(out)
            if len(out) + size > BODY_MAX:
                raise ValueError("body too large")
            out += await reader.readexactly(size)
            await reader.readexactly(2)
    cl = header(headers, "content-length")
    if cl is not None:
        n = int(cl)
        if n > BODY_MAX:
            raise ValueError("body too large")
        return await reader.readexactly(n)
    if status is None:
        return b""  # a request without a length has no body
    out = bytearray()  # a response delimited by the close
    while len(out) <= BODY_MAX:
        piece = await reader.read(CHUNK)
        if not piece:
            return bytes(out)
        out += piece
    raise ValueError("body too large")


def build_head(start, headers):
    return (start + "\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n").encode("latin-1")


class Conn:
    """One client connection and its upstream connection."""

    def __init__(self, st, reader, writer):
        self.st = st
        self.reader = reader
        self.writer = writer
        self.up = None  # (reader, writer)
        self.counted = False

    async def send(self, data, paced):
        bw = self.st.args.bw
        if not paced or bw <= 0:
            self.writer.write(data)
            await self.writer.drain()
            self.st.bytes_to_clients += len(data)
            return
        t0 = time.monotonic()
        for i in range(0, len(data), CHUNK):
            piece = data[i:i + CHUNK]
            self.writer.write(piece)
            await self.writer.drain()
            self.st.bytes_to_clients += len(piece)
            due = t0 + (i + len(piece)) / bw
            delay = due - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)

    async def reply(self, status, reason, body, ctype="text/plain", keep=True):
        hs = [("Content-Type", ctype), ("Content-Length", str(len(body))),
              ("Connection", "keep-alive" if keep else "close")]
        await self.send(build_head(f"HTTP/1.1 {status} {reason}", hs) + body, False)

    async def control(self, target):
        u = urllib.parse.urlsplit(target)
        if u.path == "/__stats":
            return await self.reply(200, "OK", json.dumps(self.st.stats()).encode(), "application/json")
        q = urllib.parse.parse_qs(u.query)
        mode = q.get("mode", [""])[0]
        try:
            count = int(q.get("count", ["1"])[0])
        except ValueError:
            count = -1
        if (mode not in MODES and mode != "none") or count < 0:
            return await self.reply(400, "Bad Request", b"mode must be one of 503 slowdown reset stall short none; count >= 0\n")
        self.st.pending_mode = None if mode == "none" else mode
        self.st.pending_count = 0 if mode == "none" else count
        body = json.dumps({"mode": mode, "count": self.st.pending_count}).encode()
        await self.reply(200, "OK", body, "application/json")

    async def upstream(self, raw_request):
        """Sends the request upstream (reconnecting once if a kept connection went stale) and
        returns (status_line, headers, body, upstream_keeps_connection)."""
        for attempt in (0, 1):
            if self.up is None:
                self.up = await asyncio.open_connection("127.0.0.1", self.st.args.upstream_port, limit=HEAD_MAX)
            ur, uw = self.up
            try:
                uw.write(raw_request)
                await uw.drain()
                return await self.read_response(ur)
            except (Closed, ConnectionError, asyncio.IncompleteReadError):
                self.drop_upstream()
                if attempt == 1:
                    raise
        raise Closed()

    async def read_response(self, ur):
        start, hs = await read_head(ur)
        status = int(start.split(" ", 2)[1])
        body = await read_body(ur, hs, self.method, status)
        keep = (header(hs, "connection") or "").lower() != "close"
        if not keep:
            self.drop_upstream()
        return start, hs, body, keep

    def drop_upstream(self):
        if self.up is not None:
            self.up[1].close()
            self.up = None

    async def fault_reply(self, mode, target):
        if mode == "503":
            await self.reply(503, "Service Unavailable", b"fault_proxy: injected 503\n")
        else:
            path = urllib.parse.urlsplit(target).path
            xml = ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
                   '<Message>Please reduce your request rate.</Message>'
                   f'<Resource>{path}</Resource><RequestId>fault-proxy</RequestId></Error>')
            await self.reply(503, "Slow Down", xml.encode(), "application/xml")

    async def cut(self, mode, start, hs, body):
        """Sends the head and half the body, then resets, stalls or closes (mode)."""
        half = len(body) // 2
        hs = [(k, v) for k, v in hs if k.lower() not in ("transfer-encoding", "content-length", "connection")]
        hs += [("Content-Length", str(len(body))), ("Connection", "keep-alive")]
        await self.send(build_head(start, hs) + body[:half], True)
        if mode == "stall":
            try:
                while await self.reader.read(CHUNK):
                    pass
            except ConnectionError:
                pass
        elif mode == "reset":
            await asyncio.sleep(0.05)  # let the half body reach the client before the RST
            sock = self.writer.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.writer.transport.abort()
            raise Closed()
        raise Closed()  # short and stall: a normal close

    async def one(self):
        start, hs = await read_head(self.reader)
        parts = start.split(" ")
        if len(parts) != 3:
            await self.reply(400, "Bad Request", b"bad request line\n", keep=False)
            raise Closed()
        self.method, target, _ = parts
        body = await read_body(self.reader, hs, self.method)
        client_keep = (header(hs, "connection") or "").lower() != "close"
        if target.startswith("/__fault") or target.startswith("/__stats"):
            await self.control(target)
            if not client_keep:
                raise Closed()
            return
        st = self.st
        st.requests += 1
        if not self.counted:  # connections that carried a request (control ones are not)
            self.counted = True
            st.connections += 1
        if st.args.latency_ms > 0:
            await asyncio.sleep(st.args.latency_ms / 1000.0)
        if st.pending_mode in ("503", "slowdown"):
            mode = st.take_fault(False)
            if mode:
                await self.fault_reply(mode, target)
                if not client_keep:
                    raise Closed()
                return
        fwd = [(k, v) for k, v in hs if k.lower() not in ("connection", "keep-alive", "proxy-connection")]
        fwd.append(("Connection", "keep-alive"))
        raw = build_head(start, fwd) + body
        st.forwarded += 1
        rstart, rhs, rbody, _ = await self.upstream(raw)
        status = int(rstart.split(" ", 2)[1])
        mode = st.take_fault(len(rbody) >= 2 and 200 <= status < 300) if st.pending_mode in CUTTING else None
        if mode:
            await self.cut(mode, rstart, rhs, rbody)
        out = [(k, v) for k, v in rhs if k.lower() not in ("transfer-encoding", "content-length", "connection", "keep-alive")]
        if self.method != "HEAD" or header(rhs, "content-length") is None:
            out.append(("Content-Length", str(len(rbody))))
        else:
            out.append(("Content-Length", header(rhs, "content-length")))
        out.append(("Connection", "keep-alive" if client_keep else "close"))
        await self.send(build_head(rstart, out), False)
        if rbody:
            await self.send(rbody, True)
        if not client_keep:
            raise Closed()

    async def run(self):
        try:
            while True:
                await self.one()
        except (Closed, ConnectionError, asyncio.IncompleteReadError):
            pass
        except Exception as e:  # a bug or a bad peer: log it, drop this connection only
            print(f"fault_proxy: connection error: {e!r}", file=sys.stderr, flush=True)
        finally:
            self.drop_upstream()
            if not self.writer.is_closing():
                self.writer.close()


async def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--listen-port", type=int, required=True)
    ap.add_argument("--upstream-port", type=int, required=True)
    ap.add_argument("--latency-ms", type=float, default=0.0)
    ap.add_argument("--bw", type=float, default=0.0, help="bytes/s per connection, 0: no cap")
    ap.add_argument("--max-seconds", type=float, default=600.0)
    args = ap.parse_args()
    st = State(args)
    loop = asyncio.get_running_loop()
    loop.call_later(args.max_seconds, lambda: (print("fault_proxy: --max-seconds reached", file=sys.stderr, flush=True), os._exit(0)))
    server = await asyncio.start_server(lambda r, w: Conn(st, r, w).run(), "127.0.0.1", args.listen_port,
                                        limit=HEAD_MAX, reuse_address=True)
    print(f"fault_proxy: 127.0.0.1:{args.listen_port} -> 127.0.0.1:{args.upstream_port} "
          f"latency {args.latency_ms} ms, bw {args.bw or 'unlimited'} B/s", file=sys.stderr, flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
    except OSError as e:
        print(f"fault_proxy: {e}", file=sys.stderr, flush=True)
        sys.exit(1)
