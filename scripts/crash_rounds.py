#!/usr/bin/env python3
"""Crash-safety rounds for scripts/crash.sh: several clients drive SENDs to their own counters,
millraced is killed with SIGKILL at a random moment, restarted on the same data directory, and
every transition acknowledged before the kill must be in the restored state:

    acknowledged <= restored counter <= sent

An `auth` machine logs in just before each kill (its loginOK timer is 1 s away): after the
restart it must reach loggedIn, i.e. the pending timer came back. Counters of earlier rounds
must keep their values across every later kill.

Usage: crash_rounds.py --millraced PATH --work DIR [--modes batched,strict] [--rounds 20]
"""

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time

from millrace_client import Client, Closed, connect_when_ready, request, send_reply


class Driver(threading.Thread):
    """One client pipelining `window` SENDs at a time to its counter until the connection
    breaks (or `limit` SENDs); counts what was sent and what was acknowledged, in order."""

    def __init__(self, socket_path, name, window, limit):
        super().__init__(daemon=True)
        self.socket_path = socket_path
        self.name = name
        self.window = window
        self.limit = limit
        self.sent = 0
        self.acknowledged = 0
        self.problem = None
        self.ready = threading.Event()

    def run(self):
        try:
            client = Client(self.socket_path, timeout=10)
        except OSError as error:
            self.problem = "connect: %s" % error
            self.ready.set()
            return
        self.ready.set()
        batch = request("SEND", self.name, "inc") * self.window
        try:
            while self.sent < self.limit:
                self.sent += self.window  # counted before writing: an upper bound
                client.send_raw(batch)
                for _ in range(self.window):
                    reply = client.read()
                    expected = [str(self.acknowledged).encode(),
                                str(self.acknowledged + 1).encode()]
                    if reply != expected:
                        self.problem = "reply %d: %r, expected %r" % (
                            self.acknowledged, reply, expected)
                        return
                    self.acknowledged += 1
        except (Closed, OSError, ValueError):
            pass  # the daemon was killed
        finally:
            client.close()


class Daemon:
    def __init__(self, millraced, work, mode, pidfile):
        self.millraced = millraced
        self.socket = os.path.join(work, "d.sock")
        self.data = os.path.join(work, "data")
        self.log = os.path.join(work, "daemon.log")
        self.mode = mode
        self.pidfile = pidfile
        self.process = None

    def start(self):
        with open(self.log, "a") as log:
            self.process = subprocess.Popen(
                [self.millraced, "--socket", self.socket, "--data", self.data,
                 "--machines", "examples/machines", "--durability", self.mode,
                 "--log-level", "warning"],
                stdout=log, stderr=log)
        with open(self.pidfile, "w") as out:
            out.write("%d\n" % self.process.pid)
        return connect_when_ready(self.socket, process=self.process)

    def kill9(self):
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=30)


def wait_for_state(client, name, wanted, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if client.call("STATE", name) == wanted.encode():
            return True
        time.sleep(0.02)
    return False


def run_mode(args, mode):
    work = os.path.join(args.work, mode)
    os.makedirs(work, exist_ok=True)
    daemon = Daemon(args.millraced, work, mode, args.pidfile)
    control = daemon.start()
    kept = {}  # counter name -> value it must keep
    summary = {"mode": mode, "rounds": args.rounds, "rounds_survived": 0, "sent": 0,
               "acknowledged": 0, "transitions_lost": 0, "over_sent": 0,
               "timers_restored": 0, "timers_pending_at_restart": 0, "problems": []}
    for number in range(1, args.rounds + 1):
        problems = []
        names = ["r%dc%d" % (number, i) for i in range(args.clients)]
        login = "r%dauth" % number
        for name in names:
            if control.call("SPAWN", "counter", name) != "OK":
                problems.append("SPAWN %s failed" % name)
        if control.call("SPAWN", "auth", login) != "OK":
            problems.append("SPAWN %s failed" % login)
        drivers = [Driver(daemon.socket, name, args.window, args.limit) for name in names]
        for driver in drivers:
            driver.start()
        for driver in drivers:
            driver.ready.wait(10)
        # The login's loginOK timer fires 1 s after this acknowledgement: kill before that.
        if control.call("SEND", login, "login") != [b"loggedOut", b"loggingIn"]:
            problems.append("login was not acknowledged")
        logged_in_at = time.monotonic()
        time.sleep(random.uniform(args.min_delay, args.max_delay))
        killed_after = time.monotonic() - logged_in_at
        daemon.kill9()
        control.close()
        for driver in drivers:
            driver.join(30)
            if driver.is_alive():
                problems.append("%s did not stop after the kill" % driver.name)
            if driver.problem:
                problems.append("%s: %s" % (driver.name, driver.problem))
        control = daemon.start()
        sent = sum(d.sent for d in drivers)
        acknowledged = sum(d.acknowledged for d in drivers)
        lost = 0
        for driver in drivers:
            value = control.call("STATE", driver.name)
            value = int(value) if isinstance(value, bytes) else -1
            if value < driver.acknowledged:
                lost += driver.acknowledged - value
                problems.append("%s: %d acknowledged, %d restored"
                                % (driver.name, driver.acknowledged, value))
            if value > driver.sent:
                summary["over_sent"] += 1
                problems.append("%s: %d restored but only %d sent"
                                % (driver.name, value, driver.sent))
            kept[driver.name] = value
        for name, value in kept.items():
            if name.startswith("r%dc" % number):
                continue
            now = control.call("STATE", name)
            if now != str(value).encode():
                problems.append("%s of an earlier round is %r, was %d" % (name, now, value))
        state = control.call("STATE", login)
        if state == b"loggingIn":
            summary["timers_pending_at_restart"] += 1
        if wait_for_state(control, login, "loggedIn", 5):
            summary["timers_restored"] += 1
        else:
            problems.append("%s: %r after the restart, never loggedIn (timer lost)"
                            % (login, state))
        if acknowledged == 0:
            problems.append("no SEND was acknowledged before the kill: the round kept nothing")
        summary["sent"] += sent
        summary["acknowledged"] += acknowledged
        summary["transitions_lost"] += lost
        if not problems:
            summary["rounds_survived"] += 1
        summary["problems"] += ["round %d: %s" % (number, p) for p in problems]
        print("%s round %2d: killed %.2fs after the login; %6d SENDs sent, %6d acknowledged,"
              " %d lost; auth %s at restart%s"
              % (mode, number, killed_after, sent, acknowledged, lost, state.decode()
                 if isinstance(state, bytes) else state,
                 "" if not problems else "; PROBLEMS: " + "; ".join(problems)))
        sys.stdout.flush()
    control.close()
    status = daemon.stop()
    if status != 0:
        summary["problems"].append("millraced exited with %s on SIGTERM" % status)
    return summary


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--millraced", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--pidfile", required=True)
    parser.add_argument("--modes", default="batched,strict")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--window", type=int, default=32)
    parser.add_argument("--limit", type=int, default=200000, help="most SENDs per client")
    parser.add_argument("--min-delay", type=float, default=0.1)
    parser.add_argument("--max-delay", type=float, default=0.8)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--json")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    random.seed(seed)
    print("seed %d (rerun with --seed %d / CRASH_SEED=%d)" % (seed, seed, seed))
    summaries = [run_mode(args, mode) for mode in args.modes.split(",")]
    print("== crash summary")
    failed = False
    for s in summaries:
        print("  %s: %d/%d kill -9 rounds survived, %d SENDs acknowledged of %d sent,"
              " %d transitions lost, %d/%d pending login timers restored (%d still pending"
              " at restart)"
              % (s["mode"], s["rounds_survived"], s["rounds"], s["acknowledged"], s["sent"],
                 s["transitions_lost"], s["timers_restored"], s["rounds"],
                 s["timers_pending_at_restart"]))
        for problem in s["problems"]:
            print("  FAIL %s: %s" % (s["mode"], problem))
        failed = failed or bool(s["problems"])
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"seed": seed, "modes": summaries}, out, indent=2)
    print("RESULT: %s" % ("FAILED" if failed else "ok"))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
