"""Soak: timers of an idle (and sometimes busy) millraced, counted by a subscriber.

Spawns tickers (`every` 100 ms, 250 ms and 1 s), subscribes to all of them on one TCP loopback
connection, then alternates idle periods (nothing but the subscriber, 8-20 s) with bursts of
pipelined SENDs from a separate process (3 s). Every tick is timed by the kernel's receive
timestamp (SO_TIMESTAMPNS), so the subscriber's own wake-up is not counted; a tick is late by
how much its arrival, less its place on the ticker's grid, exceeds the ticker's least such
value over the run. A peer measured the same way on the same run gives the machine's own floor:
a bare process that sleeps to each 100 ms deadline and writes one byte over TCP loopback. Missed ticks (a gap of more than one period) and p99 lateness above
--late-ms fail the run, and so does RSS growth after the warm-up beyond --growth-kib.

python3 standard library only; used by scripts/soak.sh.
"""

import argparse
import json
import multiprocessing
import random
import select
import socket
import struct
import sys
import time

from millrace_client import Client, connect_when_ready, memory_kib, mib, request

SO_TIMESTAMPNS = 35  # Linux; the socket module does not name it
TICKERS = [("ticker100", 0.1, 4), ("ticker250", 0.25, 2), ("ticker1s", 1.0, 2)]


def burst(address, index, seconds):
    """One burst client: pipelines SENDs to its own counter in windows of 100 for `seconds`."""
    client = Client(address)
    name = "soak-burst-%d" % index
    client.call("SPAWN", "counter", name)
    end = time.monotonic() + seconds
    window = request("SEND", name, "inc") * 100
    while time.monotonic() < end:
        client.send_raw(window)
        for _ in range(100):
            reply = client.read()
            if not isinstance(reply, list):
                raise SystemExit("burst: unexpected reply %r" % (reply,))
    client.call("KILL", name)
    client.close()


def peer_ticker(address, period, seconds):
    """The peer: sleeps to each deadline of a `period` grid and writes one byte."""
    connection = socket.create_connection(address)
    start = time.monotonic()
    tick = 1
    while tick * period < seconds:
        left = start + tick * period - time.monotonic()
        if left > 0:
            time.sleep(left)
        connection.send(b"t")
        tick += 1
    connection.close()


def stamp(sock, size):
    """Receives up to `size` bytes with the kernel's receive time, on the monotonic clock.

    The kernel stamps on the wall clock, which is slewed (tens of ms over ten minutes on these
    VMs): each stamp is moved to the monotonic clock by the two clocks' offset read at once.
    """
    data, ancillary, _, _ = sock.recvmsg(size, socket.CMSG_SPACE(16))
    offset = time.time() - time.monotonic()
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
            seconds, nanoseconds = struct.unpack("qq", payload[:16])
            return data, seconds + nanoseconds / 1e9 - offset
    if not data:
        return data, None
    raise SystemExit("FAIL: no receive timestamp (SO_TIMESTAMPNS)")


def take_message(buffer):
    """The first whole pub/sub message (an array of bulk strings) in `buffer`, and the rest;
    (None, buffer) while it is incomplete."""
    end = buffer.find(b"\r\n")
    if end < 0:
        return None, buffer
    if buffer[:1] != b"*":
        raise SystemExit("FAIL: unexpected bytes on the subscriber: %r" % buffer[:40])
    count, offset, parts = int(buffer[1:end]), end + 2, []
    for _ in range(count):
        end = buffer.find(b"\r\n", offset)
        if end < 0:
            return None, buffer
        length = int(buffer[offset + 1:end])
        if len(buffer) < end + 2 + length + 2:
            return None, buffer
        parts.append(buffer[end + 2:end + 2 + length])
        offset = end + 2 + length + 2
    return parts, buffer[offset:]


def percentile(sorted_values, fraction):
    if not sorted_values:
        return 0.0
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


def analyse(arrivals, period, started, ended):
    """Lateness (s) of each tick, and the ticks missed, for one ticker started at `started` and
    listened to until `ended` (monotonic seconds). A tick is missed when the gap around where it
    was due is more than a period: between two arrivals, before the first (the first tick is
    due a period after the start) and after the last, up to a period before the end. A ticker
    that never ticked missed every tick due."""
    if not arrivals:
        return [], max(0, int((ended - started) / period) - 1)
    first, last = arrivals[0][0], arrivals[-1][0]
    missed = max(0, int((first - started) / period) - 1)
    missed += max(0, int((ended - last) / period) - 1)
    start = first
    places = [(round((at - start) / period), at, busy) for at, busy in arrivals]
    missed += sum(max(0, b[0] - a[0] - 1) for a, b in zip(places, places[1:]))
    offsets = [at - start - k * period for k, at, _ in places]
    least = min(offsets)
    return [(offset - least, busy) for offset, (_, _, busy) in zip(offsets, places)], missed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--socket", required=True)
    parser.add_argument("--listen", required=True, help="the daemon's TCP HOST:PORT")
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--warmup", type=float, default=60)
    parser.add_argument("--late-ms", type=float, default=5.0)
    parser.add_argument("--growth-kib", type=int, default=1024)
    parser.add_argument("--burst-clients", type=int, default=4)
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--json")
    args = parser.parse_args()
    rng = random.Random(args.seed)

    control = connect_when_ready(args.socket)
    names = {}
    for kind, period, count in TICKERS:
        for index in range(count):
            name = "%s-%d" % (kind, index)
            names[name] = period
            control.call("SPAWN", kind, name)
    subscriber = Client(args.listen)
    subscriber.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    subscriber.send_raw(request("SUBSCRIBE", *names))
    for _ in names:
        subscriber.read()
    started = time.monotonic()
    for name in names:
        control.call("SEND", name, "start")
    control.close()

    arrivals = {name: [] for name in names}
    peer_arrivals = []
    listener = socket.create_server(("127.0.0.1", 0))
    peer = multiprocessing.Process(
        target=peer_ticker, args=(listener.getsockname(), 0.1, args.seconds))
    peer.start()
    peer_socket, _ = listener.accept()
    peer_socket.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    memory = []
    begin = time.monotonic()
    end = begin + args.seconds
    next_sample = begin
    bursting = None
    burst_windows = []
    next_burst = begin + rng.uniform(8, 20)
    subscriber.sock.setblocking(False)
    while True:
        now = time.monotonic()
        if now >= end and bursting is None:
            break
        if bursting is not None and all(not p.is_alive() for p in bursting):
            for process in bursting:
                if process.exitcode != 0:
                    raise SystemExit("FAIL: a burst client failed")
            bursting = None
            burst_windows[-1][1] = now
            next_burst = now + rng.uniform(8, 20)
        elif bursting is None and now >= next_burst and now + 3 < end:
            bursting = [
                multiprocessing.Process(target=burst, args=(args.socket, i, 3.0))
                for i in range(args.burst_clients)
            ]
            for process in bursting:
                process.start()
            burst_windows.append([now, None])
        if now >= next_sample:
            memory.append((now - begin, memory_kib(args.pid)[0]))
            next_sample += 5
        ready, _, _ = select.select([subscriber.sock, peer_socket], [], [], 0.05)
        if not ready:
            continue
        if peer_socket in ready:
            data, received = stamp(peer_socket, 1)
            if data:
                peer_arrivals.append((received, bursting is not None))
            else:
                ready.remove(peer_socket)
                peer_socket.close()
                peer_socket = listener  # nothing more to read: the listener stays quiet
        if subscriber.sock not in ready:
            continue
        try:
            chunk, received = stamp(subscriber.sock, 65536)
        except BlockingIOError:
            continue
        if not chunk:
            raise SystemExit("FAIL: the daemon closed the subscriber")
        subscriber.buffer += chunk
        while True:
            message, subscriber.buffer = take_message(subscriber.buffer)
            if message is None:
                break
            if message[2] == b"tick ticking ticking":
                arrivals[message[1].decode()].append((received, bursting is not None))

    ended = time.monotonic()
    rows = {}
    late_all, late_idle, late_busy, missed = [], [], [], 0
    for name, period in names.items():
        lateness, lost = analyse(arrivals[name], period, started, ended)
        missed += lost
        late_all += [value for value, _ in lateness]
        late_idle += [value for value, busy in lateness if not busy]
        late_busy += [value for value, busy in lateness if busy]
        rows[name] = {"ticks": len(arrivals[name]), "missed": lost}
    peer_late, _ = analyse(peer_arrivals, 0.1, begin, ended)
    peer_late = sorted(value for value, _ in peer_late)
    peer.join(5)
    late_all.sort()
    late_idle.sort()
    late_busy.sort()
    ms = lambda values, fraction: percentile(values, fraction) * 1000
    warm = [kib for at, kib in memory if at >= args.warmup]
    baseline = warm[0] if warm else memory[0][1]
    final = memory[-1][1]
    summary = {
        "seconds": round(time.monotonic() - begin, 1),
        "bursts": len(burst_windows),
        "ticks": sum(len(ticks) for ticks in arrivals.values()),
        "missed": missed,
        "late_ms": {
            "p50": round(ms(late_all, 0.5), 3),
            "p99": round(ms(late_all, 0.99), 3),
            "max": round(ms(late_all, 1.0), 3),
            "idle_p99": round(ms(late_idle, 0.99), 3),
            "idle_max": round(ms(late_idle, 1.0), 3),
            "busy_p99": round(ms(late_busy, 0.99), 3),
            "busy_max": round(ms(late_busy, 1.0), 3),
            "peer_p99": round(ms(peer_late, 0.99), 3),
            "peer_max": round(ms(peer_late, 1.0), 3),
        },
        "rss_kib": {
            "after_warmup": baseline,
            "final": final,
            "peak": max(kib for _, kib in memory),
        },
        "tickers": rows,
    }
    print(
        "soak: %(seconds)ss, %(bursts)d bursts, %(ticks)d ticks, %(missed)d missed" % summary
    )
    late = summary["late_ms"]
    print(
        "late (ms): p50 %.3f  p99 %.3f  max %.3f | idle p99 %.3f max %.3f | busy p99 %.3f max %.3f"
        % (
            late["p50"], late["p99"], late["max"], late["idle_p99"], late["idle_max"],
            late["busy_p99"], late["busy_max"],
        )
    )
    print(
        "peer (a bare 100 ms sleeper, same measure): p99 %.3f  max %.3f"
        % (late["peer_p99"], late["peer_max"])
    )
    print(
        "RSS: %s after the warm-up, %s at the end, %s at peak"
        % (mib(baseline), mib(final), mib(summary["rss_kib"]["peak"]))
    )
    if args.json:
        with open(args.json, "w") as out:
            json.dump(summary, out, indent=2)
    failures = []
    if missed:
        failures.append("%d ticks missed" % missed)
    if late["p99"] > args.late_ms:
        failures.append("p99 lateness %.3f ms > %.1f ms" % (late["p99"], args.late_ms))
    if final - baseline > args.growth_kib:
        failures.append("RSS grew by %d KiB after the warm-up" % (final - baseline))
    if failures:
        print("FAIL: " + "; ".join(failures))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
