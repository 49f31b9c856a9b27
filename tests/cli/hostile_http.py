#!/usr/bin/env python3
"""tests/cli/hostile_http.py: a misbehaving HTTP/1.1 file server for tests/cli/http_hostile.sh
(issue 20): it serves ROOT's files on 127.0.0.1 only, each request's fault chosen by the URL's
first path component, /MODE/NAME[?query], so one server covers every case at once.

Modes (a "late" prefix, e.g. latenocr, answers the object's first request correctly and the
fault from its second on: the open's suffix GET passes and the ring's range reads meet it):
  ok             206 with a correct Content-Range (200 without a Range), a stable ETag
  chunked        206 in chunked transfer encoding
  nocr wrongcr   206 without a Content-Range; with one a byte off
  backcr         206 with a Content-Range that does not parse: its end before its start
  shortcr        206 with an honest Content-Range for half of the range asked
  overlong       206 with 10 bytes more than the range (Content-Length says so)
  cut            206 without a Content-Length, half the body, then close; cutonce: the
                 object's second request so, every other one as "ok"
  redir301 redir302 redir307  to /ok/NAME; redirhost: 307 to localhost (another host name)
  redirloop      302 to itself, forever
  grow           from the second request on, serves NAME.big (another size and ETag)
  same           from the second request on, serves NAME.alt (same size, another ETag)
  nosuffix       a suffix range ("bytes=-N") answered with the whole object (200), any other
                 range as "ok"; norange: every request answered with the whole object;
                 nosuffixcut: as nosuffix, the object's second request (the open's tail asked
                 again as an explicit range) as "cut"
  gzip           206 as "ok" with "Content-Encoding: gzip" (a proxy's, over bytes never asked
                 to be encoded)
  shrink         from the second request on, NAME is empty (every range: 416, "bytes */0")
  etagflip       the same bytes under another ETag at each request (a pool of servers)
  failN          the object's Nth request (N a number) as "404xml", every other one as "ok"
                 (a footer part failing for good after the others succeeded)
  lastcr         206 whose Content-Range starts where asked but ends 5 bytes past the range
                 (the body and Content-Length are the range's)
  listrepeat listcycle listnotoken  ListObjectsV2 pages (path-style, /MODE/BUCKET/?list-type=2...)
                 of one key each, all truncated: the next token always "tokA"; "tokA", "tokB",
                 then "tokA" again; none at all (after the first page, asked with no token)
  drip           206 whose body comes one byte every 0.3 s
  dripeerr       404 whose body comes one byte every 0.3 s
  404xml         404 with an S3 XML error body (<Code>NoSuchKey</Code>)
  403            403 with an HTML body, as a plain web server forbids a path
  hugeerr        404 with that XML, then 256 MiB more of body at 40 KB/s (an hour and a half)
  hugehdr        206 whose headers go on for 256 MiB (1000-byte lines, as fast as they are read)
  cont100        an interim "100 Continue" (and a "103 Early Hints" with a Content-Range of
                 its own) before an answer as "ok"
  hugetotal      as "ok", every Content-Range claiming the object is 2^63 + 2^20 bytes more
                 than it is (its tail at the end of that, the other ranges where they are):
                 an object past INT64_MAX, consistent in every answer
  garbage        no HTTP at all: a line of text, then close
  mute           reads the request and sends nothing (until the connection is dropped)
  driphdr        a 206 status line, then headers one byte every 0.3 s without end
Invariants: every connection ends within --max-seconds of the server's start (the server
exits then), a drip sends at most 100000 bytes, and each request is logged to --log as
"MODE RANGE AUTH" (AUTH: "auth" when it carried an Authorization header, else "-"; the test
counts tries from it)."""
import argparse
import asyncio
import hashlib
import os
import re
import time

AP = argparse.ArgumentParser()
AP.add_argument("--root", required=True)
AP.add_argument("--port", type=int, required=True)
AP.add_argument("--log", required=True)
AP.add_argument("--max-seconds", type=float, default=900)
ARGS = AP.parse_args()
HITS = {}
LOG = open(ARGS.log, "a", buffering=1)


def byte_range(value, size):
    m = re.fullmatch(r"bytes=(\d*)-(\d*)", value or "")
    if not m or (m.group(1) == "" and m.group(2) == ""):
        return None
    if m.group(1) == "":
        return max(0, size - int(m.group(2))), size - 1
    return int(m.group(1)), min(int(m.group(2)) if m.group(2) else size - 1, size - 1)


def head(w, status, headers):
    lines = [f"HTTP/1.1 {status} X"] + [f"{k}: {v}" for k, v in headers]
    w.write(("\r\n".join(lines) + "\r\n\r\n").encode())


async def drip(w, status, headers, body):
    head(w, status, headers)
    for i in range(min(len(body), 100000)):
        w.write(body[i:i + 1])
        await w.drain()
        await asyncio.sleep(0.3)
    return False


def list_page(mode, target, hit):
    """A ListObjectsV2 page for the list* modes (one key, truncated)."""
    asked = re.search(r"continuation-token=([^&]*)", target)
    nxt = {"listrepeat": "tokA", "listcycle": "tokB" if asked and asked.group(1) == "tokA" else "tokA",
           "listnotoken": None if asked else "tokA"}[mode]
    tok = f"<NextContinuationToken>{nxt}</NextContinuationToken>" if nxt else ""
    return ("<?xml version='1.0'?><ListBucketResult><IsTruncated>true</IsTruncated>"
            f"<Contents><Key>ds/k{hit}.parquet</Key></Contents>{tok}</ListBucketResult>").encode()


async def answer(w, mode, name, target, rng, hit):
    """Writes one answer; returns whether the connection stays open."""
    if mode.startswith("list"):
        body = list_page(mode, target, hit)
        head(w, 200, [("Content-Length", len(body)), ("Content-Type", "application/xml")])
        w.write(body)
        return True
    if mode.startswith("late"):
        mode = mode[4:] if hit > 1 else "ok"
    if re.fullmatch(r"fail\d+", mode):
        mode = "404xml" if hit == int(mode[4:]) else "ok"
    if mode == "cutonce":
        mode = "cut" if hit == 2 else "ok"
    if mode == "nosuffixcut":
        mode = "cut" if hit == 2 else "nosuffix"
    if mode.startswith("redir"):
        where = {"redirhost": f"http://localhost:{ARGS.port}/ok/{name}",
                 "redirloop": target}.get(mode, f"/ok/{name}")
        code = {"redirloop": 302, "redirhost": 307}.get(mode) or int(mode[5:])
        head(w, code, [("Location", where), ("Content-Length", 5)])
        w.write(b"moved")
        return True
    if mode == "hugeerr":
        body = b"<?xml version='1.0'?><Error><Code>NoSuchKey</Code></Error>"
        head(w, 404, [("Content-Length", len(body) + (256 << 20)), ("Content-Type", "application/xml")])
        w.write(body)
        for _ in range(65536):
            w.write(b" " * 4096)
            await w.drain()
            await asyncio.sleep(0.1)
        return False
    if mode == "garbage":
        w.write(b"SSH-2.0-OpenSSH_9.2 not http\r\n\r\n")
        return False
    if mode == "mute":
        await asyncio.sleep(3600)
        return False
    if mode == "driphdr":
        w.write(b"HTTP/1.1 206 X\r\n")
        for _ in range(100000):
            w.write(b"X")
            await w.drain()
            await asyncio.sleep(0.3)
        return False
    if mode == "cont100":
        w.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        w.write(b"HTTP/1.1 103 Early Hints\r\nContent-Range: bytes 0-0/1\r\nLink: </x>\r\n\r\n")
    if mode == "hugehdr":
        w.write(b"HTTP/1.1 206 X\r\nContent-Range: bytes 0-0/1\r\n")
        line = b"X-Pad: " + b"a" * 991 + b"\r\n"
        for _ in range(256 << 10):
            w.write(line)
            await w.drain()
        return False
    if mode == "403":
        body = b"<html><body>403 Forbidden</body></html>"
        head(w, 403, [("Content-Length", len(body)), ("Content-Type", "text/html")])
        w.write(body)
        return True
    if mode in ("404xml", "dripeerr"):
        body = b"<?xml version='1.0'?><Error><Code>NoSuchKey</Code></Error>" + b" " * 4000
        hs = [("Content-Length", len(body)), ("Content-Type", "application/xml")]
        if mode == "dripeerr":
            return await drip(w, 404, hs, body)
        head(w, 404, hs)
        w.write(body)
        return True
    path = os.path.join(ARGS.root, name)
    if (mode == "grow" or mode == "same") and hit > 1:
        path += ".big" if mode == "grow" else ".alt"
    try:
        data = open(path, "rb").read()
    except OSError:
        head(w, 404, [("Content-Length", 0)])
        return True
    if mode == "shrink" and hit > 1:
        data = b""
    size = len(data)
    etag = '"%s"' % hashlib.md5(data).hexdigest()[:16]
    if mode == "etagflip":
        etag = '"%s-%d"' % (etag[1:-1], hit)
    extra = (1 << 63) + (1 << 20) if mode == "hugetotal" else 0
    if extra and rng and rng.startswith("bytes=-"): # the tail of the claimed object: the real tail
        n = min(int(rng[7:]), size)
        head(w, 206, [("ETag", etag), ("Content-Range", f"bytes {size + extra - n}-{size + extra - 1}/{size + extra}"),
                      ("Content-Length", n)])
        w.write(data[size - n:])
        return True
    if extra and rng: # an explicit range: the tail's bytes where the claim puts them
        m = re.fullmatch(r"bytes=(\d+)-(\d+)", rng)
        s, e = int(m.group(1)), int(m.group(2))
        at = s - extra if s >= extra else s
        body = data[at:at + e - s + 1]
        head(w, 206, [("ETag", etag), ("Content-Range", f"bytes {s}-{s + len(body) - 1}/{size + extra}"),
                      ("Content-Length", len(body))])
        w.write(body)
        return True
    r = byte_range(rng, size)
    if r is None or mode == "norange" or (mode == "nosuffix" and rng.startswith("bytes=-")):
        head(w, 200, [("Content-Length", size), ("ETag", etag)])
        w.write(data)
        return True
    s, e = r
    if s >= size:
        head(w, 416, [("Content-Range", f"bytes */{size}"), ("Content-Length", 0)])
        return True
    body = data[s:e + 1]
    cr = ("Content-Range", f"bytes {s}-{e}/{size}")
    hs = [("ETag", etag), ("Accept-Ranges", "bytes")]
    if mode == "nocr":
        head(w, 206, hs + [("Content-Length", len(body))])
    elif mode == "wrongcr":
        head(w, 206, hs + [("Content-Range", f"bytes {s + 1}-{e}/{size}"), ("Content-Length", len(body))])
    elif mode == "backcr":
        head(w, 206, hs + [("Content-Range", f"bytes {e}-{s}/{size}"), ("Content-Length", len(body))])
    elif mode == "lastcr":
        head(w, 206, hs + [("Content-Range", f"bytes {s}-{e + 5}/{size}"), ("Content-Length", len(body))])
    elif mode == "shortcr":
        body = body[:max(1, len(body) // 2)]
        head(w, 206, hs + [("Content-Range", f"bytes {s}-{s + len(body) - 1}/{size}"), ("Content-Length", len(body))])
    elif mode == "gzip":
        head(w, 206, hs + [cr, ("Content-Length", len(body)), ("Content-Encoding", "gzip")])
    elif mode == "overlong":
        body += b"0123456789"
        head(w, 206, hs + [cr, ("Content-Length", len(body))])
    elif mode == "cut":
        head(w, 206, hs + [cr, ("Connection", "close")])
        w.write(body[:len(body) // 2])
        return False
    elif mode == "chunked":
        head(w, 206, hs + [cr, ("Transfer-Encoding", "chunked")])
        for i in range(0, len(body), 7000):
            c = body[i:i + 7000]
            w.write(b"%x\r\n" % len(c) + c + b"\r\n")
        w.write(b"0\r\n\r\n")
        return True
    elif mode == "drip":
        return await drip(w, 206, hs + [cr, ("Content-Length", len(body))], body)
    else:
        head(w, 206, hs + [cr, ("Content-Length", len(body))])
    w.write(body)
    return True


async def serve(r, w):
    try:
        while True:
            raw = await asyncio.wait_for(r.readuntil(b"\r\n\r\n"), 60)
            lines = raw.decode("latin1").split("\r\n")
            target = lines[0].split(" ")[1]
            hs = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:] if ":" in l)}
            parts = target.split("?")[0].split("/", 2)
            mode, name = parts[1], parts[2] if len(parts) > 2 else ""
            HITS[(mode, name)] = HITS.get((mode, name), 0) + 1
            LOG.write(f"{mode} {hs.get('range')} {'auth' if 'authorization' in hs else '-'}\n")
            keep = await answer(w, mode, name, target, hs.get("range"), HITS[(mode, name)])
            await w.drain()
            if not keep:
                break
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, asyncio.TimeoutError, IndexError, ValueError):
        pass
    finally:
        w.close()


async def main():
    srv = await asyncio.start_server(serve, "127.0.0.1", ARGS.port)
    async with srv:
        await asyncio.wait_for(srv.serve_forever(), ARGS.max_seconds)


try:
    asyncio.run(main())
except asyncio.TimeoutError:
    pass
