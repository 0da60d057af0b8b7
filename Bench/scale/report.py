#!/usr/bin/env python3
"""Write Bench/results/scale.md and scale.json from one run of Bench/scale/scale.sh.

    report.py --raw DIR [--out DIR]

Inputs (in --raw, written by scale.sh)
  facts.tsv              KEY <tab> JSON value: every figure of the run (scalegen's JSON objects,
                         RSS in bytes, sizes, INFO fields, the machine)
  marks.tsv              SERVER <tab> STEP <tab> begin|end <tab> CLOCK_REALTIME ns: the steps
  bystander-SERVER.txt   "SEND_NS LATENCY_NS" per PING (scalegen bystander), "NS down|up"

Outputs (in --out, default Bench/results): scale.md (the table: each figure, millraced next to
redis-server, the bar, PASS / FAIL; then the bystander per step, the absolute figures and the
machine) and scale.json (the same, machine-readable). The table is printed on stdout too.

Exit status: 0 when every bar is met, 1 when one is not (a figure that could not be measured
is a FAIL with the reason), 2 when the input is unusable. Standard library only.
"""

import argparse
import bisect
import json
import os
import statistics
import sys

BYSTANDER_INTERVAL_NS = 1_000_000  # scale.sh runs the bystanders with -i 1000 (us)
BYSTANDER_BAR_NS = 5_000_000  # p99 < 5 ms
# The steps during which the daemon is serving and the bystander's p99 is judged (the stops
# are shown, not judged: a stopping server closes the bystander's connection).
JUDGED_STEPS = [
    "spawn", "send", "sample", "restart", "flip", "kill9-restart", "kill",
    "timers-spawn", "timers-arm", "timers-restart",
]
STEP_LABEL = {
    "spawn": ("SPAWN N", "HSET N keys"),
    "send": ("SEND, 50 × 16, random machines", "HSET, 50 × 16, random keys"),
    "sample": ("STATE of 1,000 machines", None),
    "stop": ("clean stop", "SIGTERM with appendonly yes"),
    "restart": ("after the restart (clean stop): 1,000 STATEs, 1 s idle", None),
    "flip": ("SEND flip to 3,000 machines", None),
    "kill9-restart": ("after the restart (kill -9): 3,000 STATEs, 1 s idle", None),
    "kill": ("KILL N", "DEL N keys"),
    "timers-spawn": ("SPAWN N sleepers", None),
    "timers-arm": ("SEND arm to N sleepers (N timers)", None),
    "timers-stop": ("clean stop with N timers", None),
    "timers-restart": ("after the restart with N timers (1 s idle)", None),
}


def load_facts(path):
    facts = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or "\t" not in line:
                continue
            key, value = line.split("\t", 1)
            try:
                facts[key] = json.loads(value) if value else None
            except json.JSONDecodeError:
                facts[key] = value
    return facts


def load_marks(path):
    """{(server, step): [(begin_ns, end_ns), ...]}"""
    windows, open_ = {}, {}
    if not os.path.exists(path):
        return windows
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 4:
                continue
            server, step, edge, ns = parts[0], parts[1], parts[2], int(parts[3])
            if edge == "begin":
                open_[(server, step)] = ns
            elif (server, step) in open_:
                windows.setdefault((server, step), []).append((open_.pop((server, step)), ns))
    return windows


def load_bystander(path):
    """Sorted [(send_ns, latency_ns)] and the number of times the server went away."""
    samples, downs = [], 0
    if not os.path.exists(path):
        return samples, downs
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 2:
                continue
            if parts[1] == "down":
                downs += 1
            elif parts[1] != "up":
                samples.append((int(parts[0]), int(parts[1])))
    samples.sort()
    return samples, downs


def percentile(sorted_values, p):
    """Nearest rank."""
    if not sorted_values:
        return None
    k = max(0, min(len(sorted_values) - 1, int(-(-p * len(sorted_values) // 100)) - 1))
    return sorted_values[k]


def corrected(latencies, interval):
    """The samples with the PINGs a slow reply held back added, as HdrHistogram's
    recordValueWithExpectedInterval does: one PING goes out every interval, one in flight,
    so a reply that took L > interval stood in the way of PINGs that would have waited
    L - interval, L - 2 interval, ... (coordinated omission)."""
    out = []
    for value in latencies:
        out.append(value)
        missing = value - interval
        while missing >= interval:
            out.append(missing)
            missing -= interval
    out.sort()
    return out


def bystander_stats(samples, windows):
    """Latency figures of the samples sent inside the windows."""
    sends = [s for s, _ in samples]
    chosen = []
    duration = 0
    for begin, end in windows:
        lo, hi = bisect.bisect_left(sends, begin), bisect.bisect_right(sends, end)
        chosen.extend(lat for _, lat in samples[lo:hi])
        duration += end - begin
    raw = sorted(chosen)
    fixed = corrected(raw, BYSTANDER_INTERVAL_NS)
    return {
        "samples": len(raw),
        "window_ms": duration / 1e6,
        "p50_ns": percentile(raw, 50),
        "p99_ns": percentile(raw, 99),
        "max_ns": raw[-1] if raw else None,
        "p99_corrected_ns": percentile(fixed, 99),
    }


# --- formatting ---------------------------------------------------------------------------------

def num(value, places=0):
    if value is None:
        return "—"
    if places == 0:
        return f"{value:,.0f}"
    return f"{value:,.{places}f}"


def secs(value):
    return "—" if value is None else f"{value:.3f} s"


def mib(value):
    return "—" if value is None else f"{value / 1048576:,.1f} MiB"


def ms(ns):
    return "—" if ns is None else f"{ns / 1e6:.2f} ms"


class Report:
    def __init__(self, facts, n):
        self.facts = facts
        self.n = n
        self.rows = []

    def get(self, key, field=None):
        value = self.facts.get(key)
        if field is not None:
            value = value.get(field) if isinstance(value, dict) else None
        return value

    def row(self, what, millraced, redis, bar, verdict, note="", judged=True):
        """verdict: True (PASS), False (FAIL), None (not judged), or a string: FAIL, why."""
        if verdict is None or not judged:
            text = "info"
        elif verdict is True:
            text = "PASS"
        elif verdict is False:
            text = "FAIL"
        else:
            text = f"FAIL ({verdict})"
        self.rows.append(dict(what=what, millraced=millraced, redis=redis, bar=bar,
                              verdict=text, note=note, judged=judged and verdict is not None))

    def run_ok(self, key, count):
        """None when the scalegen run did what it was asked, else why not."""
        run = self.get(key)
        if not isinstance(run, dict):
            return "not measured"
        if run.get("timed_out"):
            return f"timed out after {run.get('requests', 0):,} of {count:,}"
        if run.get("failed"):
            return f"failed: {run.get('first_unexpected', '')}"
        if run.get("requests") != count:
            return f"{run.get('requests', 0):,} replies of {count:,}"
        if run.get("unexpected"):
            return f"{run['unexpected']:,} unexpected replies, first: {run['first_unexpected']}"
        return None


def build(facts, windows, bystanders):
    n = facts.get("n") or 0
    small = facts.get("small_n") or 1000
    r = Report(facts, n)
    get = r.get
    nn = f"{n:,}"

    # 1. SPAWN N
    spawn_s = get("spawn", "seconds")
    problem = r.run_ok("spawn", n)
    rl = get("redis.load", "seconds")
    r.row(f"SPAWN {nn} `toggle` machines, pipelined (1 connection, 1,000 in flight)",
          f"{secs(spawn_s)} ({num(get('spawn', 'per_second'))}/s)" if spawn_s else "—",
          f"HSET {nn} keys: {secs(rl)} ({num(get('redis.load', 'per_second'))}/s)" if rl else "—",
          "≤ 5 s, every reply +OK",
          problem or (spawn_s is not None and spawn_s <= 5.0))

    # 2. RSS per machine
    base, after = get("start.rss"), get("spawn.rss_1s")
    empty = get("small.rss_empty")
    rbase, rafter = get("redis.start.rss"), get("redis.load.rss_1s")
    redis_per = (rafter - rbase) / n if n and rbase is not None and rafter is not None else None
    per = (after - base) / n if n and base is not None and after is not None else None
    per_cap = (after - empty) / n if n and empty is not None and after is not None else None

    def memory_row(what, figure, note):
        if figure is None or not redis_per:
            r.row(what, num(figure), num(redis_per), "≤ 2× redis (goal 1×)", "not measured", note)
            return
        ratio = figure / redis_per
        r.row(what, f"{figure:,.0f} B ({ratio:.2f}× redis)", f"{redis_per:,.0f} B",
              "≤ 2× redis per key (goal 1×)", ratio <= 2.0,
              note + (" Goal 1×: met." if ratio <= 1.0 else f" Goal 1×: not met ({ratio:.2f}×)."))

    memory_row("RSS per idle machine: (RSS after SPAWN − RSS of the same daemon before) / N",
               per, f"RSS {mib(base)} → {mib(after)} (1 s after the last reply); "
                    f"redis {mib(rbase)} → {mib(rafter)}.")
    memory_row(f"RSS per machine with what `--max-machines {nn}` reserves at start: "
               f"(RSS after SPAWN − RSS of an empty daemon with `--max-machines {small:,}`) / N",
               per_cap, f"empty daemon with --max-machines {small:,}: {mib(empty)}.")

    # 3. SEND throughput, N machines against 1,000
    def rounds(which, server="send"):
        out = []
        tck = facts.get("clk_tck") or 100
        for k in range(1, (facts.get("send_rounds") or 0) + 1):
            run = get(f"{server}.{which}.{k}")
            if isinstance(run, dict):
                ticks = get(f"{server}.{which}.{k}.cpu_ticks")
                after = get(f"{server}.{which}.{k}.settle_ticks")
                cpu = (ticks + (after or 0)) / tck / run["requests"] * 1e6 \
                    if run.get("requests") and ticks is not None else None
                out.append(dict(per_second=run.get("per_second"),
                                settled=settled_rate(run, after, tck), cpu_us=cpu,
                                unexpected=run.get("unexpected", 0), timed_out=run.get("timed_out"),
                                failed=run.get("failed"), requests=run.get("requests"),
                                first=run.get("first_unexpected")))
        return out

    big, little = rounds("big"), rounds("small")
    med = lambda xs, f: statistics.median([x[f] for x in xs if x[f] is not None]) if any(x[f] is not None for x in xs) else None
    big_rate, small_rate = med(big, "settled"), med(little, "settled")
    bad = [x for x in big + little if x["unexpected"] or x["timed_out"] or x["failed"]]
    rbig, rlittle = rounds("big", "redis.send"), rounds("small", "redis.send")
    rsend, rsend_small = med(rbig, "settled"), med(rlittle, "settled")
    rratio = rsend / rsend_small if rsend and rsend_small else None
    # A checkpoint takes the journal of every round since the one before, so the work a round
    # leaves may be partly an earlier round's: all the rounds together are shown too.
    def overall(xs):
        reqs = sum(x["requests"] or 0 for x in xs)
        secs = sum(x["requests"] / x["settled"] for x in xs if x["settled"])
        return reqs / secs if secs else None
    big_all, small_all = overall(big), overall(little)
    if big_rate and small_rate and not bad:
        ratio = big_rate / small_rate
        verdict = ratio >= 0.9
    else:
        ratio = None
        verdict = (f"a round failed: {bad[0]['first']}" if bad else "not measured")
    r.row(f"SEND to random machines, 50 connections × 16 deep: {nn} machines against {small:,} "
          f"(median of {len(big)} rounds each, interleaved; settled rates: each round starts "
          f"with both daemons idle, and the CPU its daemon spends after it is charged to it)",
          f"{num(big_rate)}/s against {num(small_rate)}/s"
          + (f" ({ratio:.2f}×)" if ratio else ""),
          f"HSET random keys: {num(rsend)}/s against {num(rsend_small)}/s to 1,000 of them"
          + (f" ({rratio:.2f}×)" if rratio else "") if rsend else "—",
          "≥ 0.9× the 1,000-machine figure", verdict,
          "settled rounds, N: " + ", ".join(num(x["settled"]) for x in big)
          + "; 1,000: " + ", ".join(num(x["settled"]) for x in little)
          + (f" (all rounds together: {num(big_all)}/s against {num(small_all)}/s, "
             f"{big_all / small_all:.2f}×)" if big_all and small_all else "")
          + ". As measured during the rounds, N: " + ", ".join(num(x["per_second"]) for x in big)
          + "; 1,000: " + ", ".join(num(x["per_second"]) for x in little)
          + ". redis-server (appendonly no), settled, N: "
          + ", ".join(num(x["settled"]) for x in rbig)
          + "; 1,000: " + ", ".join(num(x["settled"]) for x in rlittle) + ".")
    r.row("server CPU per SEND (utime + stime over a round and until its daemon is idle again "
          "/ the round's requests, median)",
          f"{num(med(big, 'cpu_us'), 2)} µs with N, {num(med(little, 'cpu_us'), 2)} µs with 1,000",
          f"HSET: {num(med(rbig, 'cpu_us'), 2)} µs with N, {num(med(rlittle, 'cpu_us'), 2)} µs "
          "with 1,000" if rbig else "—", "reported", None)

    # 4. store on disk
    rest, live = get("store_rest.allocated"), get("store_live.allocated")
    rdb, aof = get("redis.rdb.bytes"), get("redis.aof.allocated")
    r.row("store on disk per machine at rest (after the clean stop): allocated blocks, `du -B1`",
          f"{rest / n:,.1f} B" if rest is not None and n else "—",
          f"RDB: {rdb / n:,.1f} B" if rdb and n else "—",
          "≤ 64 B", "not measured" if rest is None else rest / n <= 64,
          f"apparent size {num(get('store_rest.apparent'))} B; files: "
          f"{(get('store_rest.files') or '—').rstrip('; ')}.")
    r.row("store on disk per machine while serving (after SPAWN), `du -B1`",
          f"{live / n:,.1f} B" if live is not None and n else "—",
          f"AOF (no RDB preamble): {aof / n:,.1f} B" if aof and n else "—",
          "reported", None,
          f"apparent size {num(get('store_live.apparent'))} B; files: "
          f"{(get('store_live.files') or '—').rstrip('; ')}.")

    # 5. clean stop
    def stop_verdict(key):
        s = get(key, "seconds")
        if s is None:
            return "not measured", s
        if get(key, "timed_out"):
            return f"did not exit in {facts.get('stop_timeout', 180)} s: SIGKILL", s
        if get(f"{key}.exit_status") not in (0, None):
            return f"exit status {get(f'{key}.exit_status')}", s
        return s <= 1.0, s

    verdict, s = stop_verdict("stop")
    r.row(f"clean stop with {nn} machines (SIGTERM until the process is gone)",
          secs(s), f"SIGTERM, appendonly yes: {secs(get('redis.stop_aof', 'seconds'))}",
          "≤ 1 s, exit status 0", verdict)

    # 6. restart after the clean stop, and after kill -9
    spawned = get("spawn.info_machines")

    def not_ready(key):
        if get(key, "exited"):
            return "the daemon exited during the start (see millraced.log)"
        return f"not ready in {facts.get('ready_timeout', 180)} s"

    def restart_row(what, key, check_key, checked_what, redis_key, redis_what):
        ready = get(key, "ready_seconds")
        ping = get(key, "ping_seconds")
        if spawned is None or ready is None:
            verdict = "not measured"
        elif spawned != n:
            verdict = f"INFO counted {spawned} machines after SPAWN, not {n:,}"
        elif ready < 0:
            machines = get(f"{key}.info_machines")
            verdict = not_ready(key) + (f"; INFO machines {machines}" if machines is not None else "")
        else:
            check = get(check_key)
            if not isinstance(check, dict):
                verdict = "states not checked"
            elif check.get("mismatches"):
                verdict = f"{check['mismatches']} of {check['checked']} states wrong: {check['first_mismatch']}"
            elif check.get("checked", 0) == 0:
                verdict = "no states to check"
            else:
                verdict = ready <= 3.0
        rr = get(redis_key, "ready_seconds")
        r.row(what, f"{secs(ready)} (PING after {secs(ping)})" if ready and ready > 0 else "—",
              f"{redis_what}: {secs(rr)}" if rr and rr > 0 else "—",
              f"≤ 3 s with all {nn} machines (INFO), {checked_what}", verdict)

    restart_row("restart after the clean stop: exec until PING answers and INFO counts every machine",
                "restart", "restart.check", "1,000 sampled states right",
                "redis.restart_rdb", "from the RDB (SAVE), DBSIZE = N")
    restart_row("restart after `kill -9` (3,000 machines flipped just before)",
                "kill9", "kill9.check", "the 3,000 flipped states right",
                "redis.restart_aof", "from the AOF (BGREWRITEAOF), DBSIZE = N")

    # 7. timers
    timers = get("timers.info_timers")
    problem = r.run_ok("timers.spawn", n) or r.run_ok("timers.arm", n)
    r.row(f"{nn} pending `after 1h` timers at once (INFO timers after SEND arm to every sleeper)",
          f"{num(timers) if isinstance(timers, (int, float)) else timers or '—'} "
          f"(spawn {secs(get('timers.spawn', 'seconds'))}, arm {secs(get('timers.arm', 'seconds'))})",
          "—", f"= {nn}", problem or timers == n,
          f"RSS with N sleepers and N timers: {mib(get('timers.rss'))}.")
    verdict, s = stop_verdict("timers.stop")
    r.row(f"clean stop with {nn} machines and {nn} timers", secs(s), "—", "≤ 1 s, exit status 0",
          verdict)
    ready = get("timers.restart", "ready_seconds")
    back = get("timers.restart.info_timers")
    if timers is None or ready is None:
        verdict = "not measured"
    elif timers != n:
        verdict = f"{timers} timers before the stop, not {n:,}"
    elif ready < 0:
        verdict = not_ready("timers.restart") + f" (INFO timers {back})"
    else:
        verdict = ready <= 3.0
    r.row("restart after the clean stop with every timer back (INFO machines and timers = N)",
          f"{secs(ready)} (PING after {secs(get('timers.restart', 'ping_seconds'))})" if ready and ready > 0 else "—",
          "—", "≤ 3 s", verdict)
    ready = get("timers.kill9", "ready_seconds")
    back = get("timers.kill9.info_timers")
    if timers is None or ready is None:
        verdict = "not measured"
    elif timers != n:
        verdict = f"{timers} timers before the kill, not {n:,}"
    elif ready < 0:
        verdict = not_ready("timers.kill9") + f" (INFO timers {back})"
    else:
        verdict = ready <= 3.0
    r.row("restart after `kill -9` with every timer back (INFO machines and timers = N)",
          f"{secs(ready)} (PING after {secs(get('timers.kill9', 'ping_seconds'))})" if ready and ready > 0 else "—",
          "—", "≤ 3 s", verdict)

    # 8. KILL every machine; RSS returns
    problem = r.run_ok("kill", n)
    left = get("kill.info_machines")
    r.row(f"KILL {nn} machines, pipelined", secs(get("kill", "seconds")),
          f"DEL {nn} keys: {secs(get('redis.del', 'seconds'))}",
          "every reply +OK, INFO machines 0",
          problem or (f"INFO machines {left}" if left != 0 else True))
    kill_rss = get("kill.rss")
    if kill_rss is not None and base is not None and after is not None:
        limit = base + (after - base) / 10
        waited = get("kill.waited_ms")
        verdict = kill_rss <= limit
        figure = f"{mib(kill_rss)} (limit {mib(limit)})" + (
            f", after {waited} ms" if waited is not None and waited >= 0 else ", not within 5 s")
    else:
        verdict, figure = "not measured", "—"
    rdel = get("redis.del.rss")
    r.row("RSS after KILL of every machine (polled for up to 5 s)", figure,
          f"after DEL: {mib(rdel)} (baseline {mib(rbase)})" if rdel else "—",
          "≤ baseline + 10 % of the SPAWN growth", verdict,
          "The KILLs go to the daemon restarted after the kill -9 (RSS after its restart: "
          f"{mib(get('restart.rss'))}); the baseline and the growth are those of the first "
          f"start and the SPAWN ({mib(base)} → {mib(after)}).")

    # 9. the bystander, per step
    by_rows = []
    for step in ["spawn", "send", "sample", "stop", "restart", "flip", "kill9-restart", "kill",
                 "timers-spawn", "timers-arm", "timers-stop", "timers-restart"]:
        label, redis_label = STEP_LABEL[step]
        m = bystander_stats(bystanders["millraced"][0], windows.get(("millraced", step), []))
        rd = None
        if redis_label and ("redis", step) in windows:
            rd = bystander_stats(bystanders["redis"][0], windows[("redis", step)])
        judged = step in JUDGED_STEPS
        if ("millraced", step) not in windows:
            verdict = "step did not run"
        elif m["samples"] == 0:
            verdict = ("no PING answered in the step's " + f"{m['window_ms']:.0f} ms"
                       if m["window_ms"] >= 20 else None)
        else:
            verdict = m["p99_corrected_ns"] < BYSTANDER_BAR_NS
        by_rows.append(dict(step=step, label=label, millraced=m, redis_label=redis_label,
                            redis=rd, judged=judged))
        if judged:
            r.row(f"bystander PING p99 during: {label}",
                  f"{ms(m['p99_corrected_ns'])} (raw p99 {ms(m['p99_ns'])}, max {ms(m['max_ns'])})",
                  f"{ms(rd['p99_corrected_ns'])} (max {ms(rd['max_ns'])})" if rd and rd["samples"] else "—",
                  "p99 < 5 ms", verdict)
    return r, by_rows


def markdown(r, by_rows, facts):
    n = facts.get("n") or 0
    failed = [x for x in r.rows if x["verdict"].startswith("FAIL")]
    lines = [
        f"# make scale: {n:,} machines (issue 22, DESIGN.md §6)",
        "",
        f"{facts.get('started', '')}, commit {facts.get('commit', '?')}; "
        f"millraced against redis-server {facts.get('redis_version', '?')} on the same run. "
        f"**{len(failed)} of {sum(1 for x in r.rows if x['judged'])} bars failed.**"
        if failed else
        f"{facts.get('started', '')}, commit {facts.get('commit', '?')}; "
        f"millraced against redis-server {facts.get('redis_version', '?')} on the same run. "
        "**Every bar met.**",
        "",
    ]
    if facts.get("aborted"):
        lines += [f"**The run stopped early:** {facts['aborted']}. Figures it did not reach are FAIL.", ""]
    lines += ["| figure | millraced | redis-server | bar | verdict |", "| --- | --- | --- | --- | --- |"]
    for x in r.rows:
        cell = lambda s: str(s).replace("|", "\\|")
        lines.append(f"| {cell(x['what'])} | {cell(x['millraced'])} | {cell(x['redis'])} | "
                     f"{cell(x['bar'])} | {x['verdict']} |")
    lines += ["", "Notes on the rows:", ""]
    for x in r.rows:
        if x["note"]:
            lines.append(f"- *{x['what']}*: {x['note']}")
    lines += [
        "",
        "## The bystander, step by step",
        "",
        "One PING every millisecond, one in flight, on its own connection, through the whole run "
        "(`scalegen bystander`). *p99 corrected* adds the PINGs a slow reply held back "
        "(a reply that took L stood in the way of PINGs that would have waited L − 1 ms, "
        "L − 2 ms, ...: HdrHistogram's expected-interval correction for coordinated omission); "
        "the bar is judged on it, so that a single long stall in a long step is not hidden. "
        "Restart windows start once the daemon answers; stops are shown, not judged.",
        "",
        "| step | server | PINGs | window | p50 | p99 | p99 corrected | max |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for b in by_rows:
        m = b["millraced"]
        lines.append(f"| {b['label']}{'' if b['judged'] else ' (not judged)'} | millraced | "
                     f"{m['samples']:,} | {m['window_ms'] / 1000:.2f} s | {ms(m['p50_ns'])} | "
                     f"{ms(m['p99_ns'])} | {ms(m['p99_corrected_ns'])} | {ms(m['max_ns'])} |")
        if b["redis"]:
            d = b["redis"]
            lines.append(f"| {b['redis_label']} | redis-server | {d['samples']:,} | "
                         f"{d['window_ms'] / 1000:.2f} s | {ms(d['p50_ns'])} | {ms(d['p99_ns'])} | "
                         f"{ms(d['p99_corrected_ns'])} | {ms(d['max_ns'])} |")

    g = lambda k, f=None: (facts.get(k) or {}).get(f) if f else facts.get(k)
    lines += [
        "",
        "## Absolute figures",
        "",
        "| | millraced | redis-server |",
        "| --- | --- | --- |",
        f"| RSS at start (empty) | {mib(g('start.rss'))} (`--max-machines {n:,}`); "
        f"{mib(g('small.rss_empty'))} (`--max-machines {facts.get('small_n', 1000):,}`) | {mib(g('redis.start.rss'))} |",
        f"| RSS with {n:,} machines / keys | {mib(g('spawn.rss_1s'))} | {mib(g('redis.load.rss_1s'))} |",
        f"| RSS after the restart | {mib(g('restart.rss'))} | {mib(g('redis.restart_aof.rss'))} (from the AOF) |",
        f"| RSS after KILL / DEL of all | {mib(g('kill.rss'))} | {mib(g('redis.del.rss'))} |",
        f"| RSS with {n:,} sleepers and timers | {mib(g('timers.rss'))} | |",
        f"| store at rest, allocated / apparent | {num(g('store_rest.allocated'))} / {num(g('store_rest.apparent'))} B "
        f"| RDB {num(g('redis.rdb.bytes'))} B; AOF {num(g('redis.aof.allocated'))} B allocated |",
        f"| store while serving, allocated / apparent | {num(g('store_live.allocated'))} / {num(g('store_live.apparent'))} B | |",
        f"| store with {n:,} timers, allocated | {num(g('timers.store.allocated'))} B | |",
        f"| SPAWN / HSET {n:,} | {secs(g('spawn', 'seconds'))} | {secs(g('redis.load', 'seconds'))} |",
        f"| KILL / DEL {n:,} | {secs(g('kill', 'seconds'))} | {secs(g('redis.del', 'seconds'))} |",
        f"| SAVE (RDB) / AOF rewrite | | {secs(g('redis.save.seconds'))} / {secs(g('redis.aof_rewrite.seconds'))} |",
        f"| stop | {secs(g('stop', 'seconds'))} (exit status {g('stop.exit_status')}) | "
        f"{secs(g('redis.stop_rdb', 'seconds'))} (no persistence), {secs(g('redis.stop_aof', 'seconds'))} (appendonly yes) |",
        "",
        "## The machine and the flags",
        "",
        f"- {facts.get('nproc', '?')} CPUs ({facts.get('cpu_model', '?')}), "
        f"{(facts.get('mem_total') or 0) / 2**30:.1f} GiB, {facts.get('kernel', '?')}; "
        f"load average {facts.get('loadavg_start', '?')} at the start, "
        f"{facts.get('loadavg_end', '?')} at the end; the run took {facts.get('seconds_total', '?')} s.",
        f"- Pinning: {facts.get('pinning', '?')}. Bystanders' scheduling: "
        f"{facts.get('bystander_priority', '?')}.",
        f"- millraced: `{facts.get('millraced', '?')}` with `--socket --data --machines` (temp "
        f"dirs) and `{facts.get('flags_big', '?')}` (the daemon with N machines, and the one with "
        f"N sleepers); `{facts.get('flags_small', '?')}` for the {facts.get('small_n', 1000):,}-machine "
        "peer. `--durability batched` is the default; `--max-machines` and `--max-timers` are not "
        "(defaults 16,384 and 65,536).",
        "- redis-server: `--port 0 --unixsocket --dir (temp) --save '' --appendonly no` for the "
        "load; `SAVE`, then a restart from dump.rdb; `CONFIG SET aof-use-rdb-preamble no`, "
        "`CONFIG SET appendonly yes` (a rewrite), then a restart with `--appendonly yes "
        "--aof-use-rdb-preamble no` from the AOF alone; DEL with appendonly yes (everysec).",
        f"- Load: {facts.get('load_shape', '?')} for SPAWN / HSET / KILL / DEL / arm; "
        f"{facts.get('send_load', '?')} for {facts.get('send_rounds', '?')} rounds of "
        f"{facts.get('send_seconds', '?')} s per daemon (Bench/scale/scalegen.c, raw RESP over "
        "the Unix socket).",
        "- RSS is VmRSS from /proc/PID/status; server CPU is utime + stime from /proc/PID/stat; "
        "disk is `du -B1` (allocated blocks, judged) and `du -B1 --apparent-size`.",
        "- Raw files: Bench/results/raw/scale/ (facts.tsv, marks.tsv, the bystanders' samples, "
        "the daemon's log).",
        "",
    ]
    return "\n".join(lines)


def settled_rate(run, after_ticks, clk_tck):
    """A SEND round's rate with the work its daemon did after it charged to it: the round's
    requests over its seconds plus the CPU seconds its daemon spent once the load stopped,
    until idle (`after_ticks`, in `clk_tck` ticks: a checkpoint the round's journal started,
    which in a longer round would have taken that CPU from the requests). None when the round
    has no figures; the round's own rate when nothing was measured after it."""
    requests, seconds = run.get("requests"), run.get("seconds")
    if not requests or not seconds:
        return run.get("per_second")
    return requests / (seconds + (after_ticks or 0) / clk_tck)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raw", required=True)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "results"))
    args = parser.parse_args()
    facts_path = os.path.join(args.raw, "facts.tsv")
    if not os.path.exists(facts_path):
        print(f"report.py: {facts_path} is missing", file=sys.stderr)
        return 2
    facts = load_facts(facts_path)
    windows = load_marks(os.path.join(args.raw, "marks.tsv"))
    bystanders = {s: load_bystander(os.path.join(args.raw, f"bystander-{s}.txt"))
                  for s in ("millraced", "redis")}
    r, by_rows = build(facts, windows, bystanders)
    text = markdown(r, by_rows, facts)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "scale.md"), "w") as f:
        f.write(text)
    failed = [x for x in r.rows if x["verdict"].startswith("FAIL")] or (
        [{"what": "aborted"}] if facts.get("aborted") else [])
    with open(os.path.join(args.out, "scale.json"), "w") as f:
        json.dump(dict(n=facts.get("n"), verdict="FAIL" if failed else "PASS",
                       failed=[x["what"] for x in failed], rows=r.rows, bystander=by_rows,
                       facts=facts, disconnections={s: b[1] for s, b in bystanders.items()}),
                  f, indent=1)
        f.write("\n")
    print(text.split("\nNotes on the rows")[0])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
