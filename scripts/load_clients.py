#!/usr/bin/env python3
"""Load driver for scripts/load.sh: holds N concurrent connections to one millraced, each
pipelining SENDs to its own counter machine, checks every reply byte for byte and in order,
and reports the daemon's RSS before, at peak and after the clients leave.

Usage: load_clients.py --socket PATH --pid PID [--clients 1000] [--commands 200] [--window 50]
"""

import argparse
import json
import selectors
import socket
import sys
import time

from millrace_client import (Client, connect_when_ready, memory_kib, mib, raise_fd_limit,
                             request, send_reply, stats)


# millraced returns freed heap pages to the system (malloc_trim) 1 s after connections close or
# machines are removed: measure after that.
TRIM_WAIT = 2.0


class Conn:
    def __init__(self, index, address, commands, window):
        self.index = index
        self.name = "load%d" % index
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(30)
        self.sock.connect(address)  # blocking: waits while the listen backlog is full
        self.sock.setblocking(False)
        self.requests = ([request("SPAWN", "counter", self.name)]
                         + [request("SEND", self.name, "inc")] * commands
                         + [request("STATE", self.name)])
        replies = [b"+OK\r\n"] + [send_reply(k, k + 1) for k in range(commands)]
        count = str(commands).encode()
        replies.append(b"$%d\r\n%s\r\n" % (len(count), count))
        self.expected = b"".join(replies)
        self.ends = []  # end offset of each reply in `expected`
        offset = 0
        for reply in replies:
            offset += len(reply)
            self.ends.append(offset)
        self.window = window
        self.next_request = 0
        self.received = 0  # bytes of `expected` matched so far
        self.replies = 0  # complete replies matched
        self.outgoing = b""
        self.error = None

    @property
    def done(self):
        return self.replies == len(self.requests) or self.error is not None

    def fill_window(self):
        """Queues requests while fewer than `window` are unanswered."""
        end = min(len(self.requests), self.replies + self.window)
        if self.next_request < end and len(self.outgoing) == 0:
            self.outgoing = b"".join(self.requests[self.next_request:end])
            self.next_request = end

    def flush(self):
        if self.outgoing:
            sent = self.sock.send(self.outgoing)
            self.outgoing = self.outgoing[sent:]

    def on_readable(self):
        try:
            chunk = self.sock.recv(65536)
        except BlockingIOError:
            return
        if not chunk:
            self.error = "closed by the daemon after %d replies" % self.replies
            return
        want = self.expected[self.received:self.received + len(chunk)]
        if chunk != want:
            at = next((i for i in range(min(len(chunk), len(want))) if chunk[i] != want[i]),
                      min(len(chunk), len(want)))
            self.error = ("reply %d: got %r, expected %r"
                          % (self.replies, chunk[max(0, at - 20):at + 40],
                             want[max(0, at - 20):at + 40]))
            return
        self.received += len(chunk)
        while self.replies < len(self.ends) and self.ends[self.replies] <= self.received:
            self.replies += 1


def run_round(args, control, pid, figures):
    """One round: connect every client, drive the load, disconnect, KILL the machines."""
    figures["rss_before_kib"], _ = memory_kib(pid)
    started = time.monotonic()
    conns = [Conn(i, args.socket, args.commands, args.window) for i in range(args.clients)]
    figures["connect_seconds"] = round(time.monotonic() - started, 3)
    held = int(stats(control)["connected_clients"]) - 1
    figures["connections_held"] = held
    figures["rss_connected_kib"], _ = memory_kib(pid)

    selector = selectors.DefaultSelector()
    for conn in conns:
        selector.register(conn.sock, selectors.EVENT_READ, conn)
        conn.fill_window()
        conn.flush()
    peak = figures["rss_connected_kib"]
    latencies = []
    busy_since = time.monotonic()
    deadline = busy_since + args.seconds
    next_sample = busy_since
    pending = len(conns)
    while pending:
        now = time.monotonic()
        if now > deadline:
            break
        if now >= next_sample:
            peak = max(peak, memory_kib(pid)[0])
            ping = time.monotonic()
            control.call("PING")
            latencies.append(time.monotonic() - ping)
            next_sample = now + 0.1
        for key, _ in selector.select(timeout=0.1):
            conn = key.data
            if conn.done:
                continue
            conn.on_readable()
            if conn.done:
                pending -= 1
                continue
            conn.fill_window()
            try:
                conn.flush()
            except OSError as error:
                conn.error = "send: %s" % error
                pending -= 1
    elapsed = time.monotonic() - busy_since
    rss_loaded, hwm = memory_kib(pid)
    figures["rss_peak_kib"] = max(peak, rss_loaded)
    figures["vmhwm_kib"] = hwm
    errors = [(c.name, c.error) for c in conns if c.error]
    unfinished = [c.name for c in conns if not c.done]
    replies = sum(c.replies for c in conns)
    figures["replies_checked"] = replies
    figures["load_seconds"] = round(elapsed, 3)
    figures["replies_per_second"] = round(replies / elapsed) if elapsed > 0 else 0
    latencies.sort()
    if latencies:
        figures["ping_ms_p50"] = round(1000 * latencies[len(latencies) // 2], 2)
        figures["ping_ms_max"] = round(1000 * latencies[-1], 2)
    # Everything still connected: the held connections are still there.
    figures["connections_at_end"] = int(stats(control)["connected_clients"]) - 1

    for conn in conns:
        selector.unregister(conn.sock)
        conn.sock.close()
    left = time.monotonic() + 10
    while int(stats(control)["connected_clients"]) > 1 and time.monotonic() < left:
        time.sleep(0.05)
    time.sleep(TRIM_WAIT)
    figures["rss_after_clients_left_kib"], _ = memory_kib(pid)
    batch = b"".join(request("KILL", c.name) for c in conns)
    control.send_raw(batch)
    killed = sum(1 for _ in conns if control.read() == "OK")
    figures["machines_killed"] = killed
    time.sleep(TRIM_WAIT)
    figures["rss_after_machines_killed_kib"], _ = memory_kib(pid)
    problems = []
    if errors:
        problems.append("%d clients saw a wrong reply or were closed; first: %s"
                        % (len(errors), errors[:3]))
    if unfinished:
        problems.append("%d clients did not finish in %ss" % (len(unfinished), args.seconds))
    if held != args.clients:
        problems.append("the daemon held %d connections, not %d" % (held, args.clients))
    if killed != args.clients:
        problems.append("only %d of %d machines were killed" % (killed, args.clients))
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--socket", required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--commands", type=int, default=200)
    parser.add_argument("--window", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3,
                        help="repeat the whole load this many times on the same daemon")
    parser.add_argument("--seconds", type=float, default=300, help="give up after this long")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()

    limit = raise_fd_limit(args.clients + 256)
    if limit < args.clients + 64:
        sys.exit("open files limit %d is too low for %d clients" % (limit, args.clients))
    control = connect_when_ready(args.socket)
    pid = args.pid
    start_kib, _ = memory_kib(pid)
    rounds = []
    problems = []
    for number in range(1, args.rounds + 1):
        figures = {"round": number, "clients": args.clients,
                   "commands_per_client": args.commands, "window": args.window}
        found = run_round(args, control, pid, figures)
        rounds.append(figures)
        problems += ["round %d: %s" % (number, problem) for problem in found]
        print("round %d: %d connections held at once, %d replies checked in %.2fs (%d/s),"
              " control PING p50 %s ms / max %s ms"
              % (number, figures["connections_held"], figures["replies_checked"],
                 figures["load_seconds"], figures["replies_per_second"],
                 figures.get("ping_ms_p50"), figures.get("ping_ms_max")))
        print("  daemon RSS: before %s, all connected %s, peak %s, after the clients left %s,"
              " after KILL of their machines %s"
              % (mib(figures["rss_before_kib"]), mib(figures["rss_connected_kib"]),
                 mib(figures["rss_peak_kib"]), mib(figures["rss_after_clients_left_kib"]),
                 mib(figures["rss_after_machines_killed_kib"])))
    control.close()
    _, hwm = memory_kib(pid)
    first_after = rounds[0]["rss_after_machines_killed_kib"]
    last_after = rounds[-1]["rss_after_machines_killed_kib"]
    # Memory that comes back is either returned to the system or reused by the next round:
    # what matters is that repeating the load does not grow the daemon.
    growth = last_after - first_after
    print("daemon RSS at start %s, VmHWM %s; after round 1 %s, after round %d %s"
          " (growth over the repeated rounds %s)"
          % (mib(start_kib), mib(hwm), mib(first_after), len(rounds), mib(last_after),
             mib(growth)))
    added = rounds[0]["rss_peak_kib"] - start_kib
    if len(rounds) > 1 and growth > added // 4:
        problems.append("RSS grew by %s over %d identical rounds (a leak?)"
                        % (mib(growth), len(rounds)))
    # With the clients gone and their machines killed, the daemon is back near its start.
    kept = last_after - start_kib
    print("kept after the last round: %s of the %s the first round added"
          % (mib(kept), mib(added)))
    if kept > max(2048, added // 4):
        problems.append("RSS did not come back down: %s kept of %s" % (mib(kept), mib(added)))
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"start_rss_kib": start_kib, "vmhwm_kib": hwm, "rounds": rounds}, out,
                      indent=2)
    for problem in problems:
        print("FAIL: " + problem)
    print("RESULT: %s" % ("ok" if not problems else "FAILED"))
    sys.exit(0 if not problems else 1)


if __name__ == "__main__":
    main()
