"""A logging TCP proxy in front of a Redis-protocol server: prints each connection's commands
and the type of each reply, so that record.sh sees everything a client sends (redis-server's
MONITOR hides admin commands such as CONFIG, SLOWLOG, CLIENT LIST and commands it refuses).

    python resp_proxy.py LISTEN_PORT|LISTEN_SOCKET UPSTREAM_PORT|UPSTREAM_SOCKET LOGFILE
    python resp_proxy.py --summary LOGFILE

Log lines: `c<N> > ARGS...` (a command; `u<N>` on a Unix socket) and `c<N> < TYPE` (a reply: `+OK`, `-ERR...`, `$`, `*3`,
`%7` map, `>3` push, `_` null, ...).
"""
import asyncio
import re
import sys

TYPES = {"+", "-", ":", "$", "*", "%", "~", ">", "_", ",", "#", "(", "=", "!", "|"}


def parse(buf, i):
    """One RESP value from buf[i:] as (summary, args, next index), or None when incomplete."""
    if chr(buf[i]) not in TYPES:  # an inline command: one line, "\n" or "\r\n"
        end = buf.find(b"\n", i)
        if end < 0:
            return None
        return "inline", buf[i:end].decode("latin-1").rstrip("\r").split(), end + 1
    end = buf.find(b"\r\n", i)
    if end < 0:
        return None
    t, line = chr(buf[i]), buf[i + 1:end].decode("latin-1")
    nxt = end + 2
    if t in "$=!":
        n = int(line)
        if n < 0:
            return "$nil", [None], nxt
        if len(buf) < nxt + n + 2:
            return None
        return "$", [buf[nxt:nxt + n].decode("latin-1")], nxt + n + 2
    if t in "*%~>|":
        n = int(line)
        count = n * 2 if t in "%|" else n
        args = []
        for _ in range(max(count, 0)):
            r = parse(buf, nxt)
            if r is None:
                return None
            args += r[1] if r[0] == "$" else [r[0]]
            nxt = r[2]
        if t == "|":  # an attribute precedes the real reply
            r = parse(buf, nxt)
            return (None if r is None else ("|" + r[0], r[1], r[2]))
        return t + line, args, nxt
    return (t + line if t in "+-" else t), [line], nxt


async def pump(reader, writer, log, tag, arrow):
    buf = b""
    while data := await reader.read(65536):
        writer.write(data)
        buf += data
        while buf and (r := parse(buf, 0)) is not None:
            summary, args, buf = r[0], r[1], buf[r[2]:]
            text = " ".join(repr(a)[1:-1] if isinstance(a, str) else str(a) for a in args)
            if arrow == "<" and summary[0] in "*%~>":
                summary += " [" + text[:70] + "]"
            log.write(f"{tag} {arrow} {text if arrow == '>' else summary}\n")
        await writer.drain()
    writer.close()


async def main(listen, upstream, path):
    log = open(path, "a", buffering=1)
    count = 0

    async def serve(cr, cw):
        nonlocal count
        count += 1
        tag = f"{'c' if str(listen).isdigit() else 'u'}{count}"  # u: the Unix socket's clients
        if upstream.isdigit():
            ur, uw = await asyncio.open_connection("127.0.0.1", int(upstream))
        else:
            ur, uw = await asyncio.open_unix_connection(upstream)
        await asyncio.gather(pump(cr, uw, log, tag, ">"), pump(ur, cw, log, tag, "<"),
                             return_exceptions=True)

    if str(listen).isdigit():
        server = await asyncio.start_server(serve, "127.0.0.1", int(listen))
    else:
        server = await asyncio.start_unix_server(serve, listen)
    async with server:
        await server.serve_forever()


def summary(path):
    """Pairs each command with its reply(ies): `cN COMMAND -> REPLY`; pushes on their own."""
    pending, out = {}, []
    for line in open(path, encoding="latin-1"):
        tag, arrow, rest = (line.rstrip("\n").split(" ", 2) + [""])[:3]
        q = pending.setdefault(tag, [])
        if arrow == ">" and not rest:  # an empty inline line: Redis does not answer it
            out.append(f"{tag}   (empty inline line: no reply)")
        elif arrow == ">":
            words = rest.split()
            n = 1
            if words and words[0].upper() in ("SUBSCRIBE", "PSUBSCRIBE", "UNSUBSCRIBE",
                                              "PUNSUBSCRIBE"):
                n = max(len(words) - 1, 1)
            q.append([rest, n, []])
        elif not q or re.match(r"[*>][34] \[p?message ", rest):
            out.append(f"{tag}   (push) {rest}")
        else:
            q[0][2].append(rest)
            q[0][1] -= 1
            if q[0][1] == 0:
                cmd, _, replies = q.pop(0)
                out.append(f"{tag} {cmd} -> {' | '.join(replies)}")
    for tag, q in pending.items():
        out += [f"{tag} {cmd} -> (no reply)" for cmd, _, _ in q]
    print("\n".join(out))


if sys.argv[1] == "--summary":
    summary(sys.argv[2])
else:
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
