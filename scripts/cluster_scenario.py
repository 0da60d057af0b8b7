"""The cluster scenario (docs/cluster.md): real Redis Cluster clients at their defaults drive
millraced nodes, a slot range moves between nodes under load, and every reply and every
machine's final state is checked.

    python cluster_scenario.py --nodes HOST:PORT[,HOST:PORT...] [--machines M] [--sends N]
        [--clients K] [--pipeline P] [--cli-sends R] [--move-slots S] [--prefix X]
        [--protocol 2|3]

Run by `make cluster` (scripts/cluster.sh) with 100,000 SENDs, and by the integration test
ClusterClientTests with small counts. Steps, one line each (PASS or FAIL, the step, details):

  connect     redis-py's RedisCluster from the first node: it finds every node by CLUSTER SLOTS
  spawn       M counter machines, half of them in hash-tag groups ({X-g3}:m6), half untagged
  placement   each machine is on the node owning its slot (LIST on every node); every node has
              some when there are several; the machines of a hash-tag group share a node
  sends       N SENDs of `inc` over the machines from K processes (each its own RedisCluster
              and its own machines), P per ClusterPipeline (P = 1: one call each); every reply
              is [count, count + 1]; the -ASK and -MOVED the clients followed are counted.
              While slots move, the clients go on sending until the move is done, so there may
              be more than N
  move        while the clients send (once they have a tenth of N acknowledged), slots of the
              node with the most machines move to the next node, as `redis-cli --cluster
              reshard` moves them: per slot, CLUSTER SETSLOT IMPORTING on the target and
              MIGRATING on the source, CLUSTER GETKEYSINSLOT and MIGRATE ... REPLACE KEYS (4
              machines at a time) until the slot is empty (-TRYAGAIN and -IOERR are retried a
              few times, each reported), then SETSLOT NODE on the target, the source and the
              other nodes. The slots are the source's that hold machines, in order: the first
              S, or by default as many as hold a third of its machines (the empty slots between
              them stay). S = 0, or one node: no move
  ask         in one moved slot's ASK window (emptied, not yet given to the target), on two of
              its machines the clients leave alone: the source answers -ASK and the target
              -MOVED without ASKING (nothing applied); redis-cli -c, RedisCluster and a
              ClusterPipeline follow the -ASK; a transaction there runs or fails whole
              (redis-py sends no ASKING in a transaction: it fails once its retries are spent,
              one retry here) and runs again once the slot has moved
  moved       after the move, placement again; the moved machines are on the target only, and
              every node's CLUSTER SLOTS gives the moved slots to the target
  transaction a MULTI/EXEC per hash-tag group (ClusterPipeline with transaction=True)
  redis-cli   R SENDs through `redis-cli -c` on the first node, which follows -MOVED; half of
              them to the moved machines when there was a move
  states      STATE of every machine is the number of SENDs it got (through RedisCluster)

Prints `throughput: N SENDs in T s: X SENDs/s` and exits 1 when a step failed.
"""
import argparse
import multiprocessing
import subprocess
import sys
import threading
import time

import redis
from redis.backoff import NoBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.exceptions import AskError, MovedError, RedisError, ResponseError, TryAgainError
from redis.retry import Retry

TIMEOUT = 10
MIGRATE_RETRIES = 20  # per slot, for -TRYAGAIN and -IOERR
# Machines per MIGRATE (redis-cli --cluster reshard's --cluster-pipeline, 10 by default): a
# hash-tag group's slot (about 8 machines) moves in two, so it is split between the nodes for
# a while under the clients' SENDs.
MIGRATE_BATCH = 4
failed = False


def report(ok, step, detail=""):
    global failed
    failed |= not ok
    print(f"{'PASS' if ok else 'FAIL'}  {step:<12} {detail}".rstrip(), flush=True)


def cluster(args, **options):
    """A RedisCluster at its defaults (but for the protocol when asked, and text replies)."""
    host, port = args.nodes[0]
    extra = {} if args.protocol == 3 else {"protocol": args.protocol}
    return RedisCluster(host=host, port=port, decode_responses=True, socket_timeout=TIMEOUT,
                        socket_connect_timeout=TIMEOUT, **extra, **options)


def node_client(args, node):
    """A plain connection to one node, for the commands an operator sends to a given node."""
    return redis.Redis(host=node.host, port=int(node.port), decode_responses=True,
                       socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT,
                       protocol=args.protocol)


def machine_names(args):
    """Half in hash-tag groups of about 8, half untagged."""
    groups = max(1, args.machines // 16)
    return [f"{{{args.prefix}-g{(i // 2) % groups}}}:m{i}" if i % 2 == 0 else f"{args.prefix}:m{i}"
            for i in range(args.machines)]


def spawn(rc, names):
    bad = [(n, r) for n in names if (r := rc.execute_command("SPAWN", "counter", n)) != "OK"]
    report(not bad, "spawn", f"{len(names)} machines" if not bad else f"{bad[:3]}")


def placement_problems(rc, names, everywhere=True):
    """What is wrong with where the machines are, by LIST on every node and the slot map `rc`
    has (and, with `everywhere`, a node without any); and each node's count."""
    primaries = rc.get_primaries()
    expected = {node.name: set() for node in primaries}
    for name in names:
        expected[rc.get_node_from_key(name).name].add(name)
    problems = []
    everyone = set(names)
    for node in primaries:
        ours = set(rc.execute_command("LIST", target_nodes=node)) & everyone
        if ours != expected[node.name]:
            problems.append(f"{node.name} has {sorted(ours ^ expected[node.name])[:3]} wrong")
        if everywhere and len(primaries) > 1 and len(names) >= 3 * 16 and not ours:
            problems.append(f"{node.name} has no machine")
    groups = {}
    for name in names:
        if name.startswith("{"):
            groups.setdefault(name.split("}")[0], set()).add(rc.get_node_from_key(name).name)
    problems += [f"group {g} spans {nodes}" for g, nodes in groups.items() if len(nodes) > 1]
    sizes = ", ".join(f"{node.name}: {len(expected[node.name])}" for node in primaries)
    return problems, sizes


def placement(rc, names):
    problems, sizes = placement_problems(rc, names)
    report(not problems, "placement", sizes if not problems else "; ".join(problems[:5]))


def plan_move(args, rc, names):
    """The move `--move-slots` asks for, or None: the source and target nodes, the slots in
    order, their machines, and the probes (up to two machines of one of the slots, preferably
    a hash-tag group's, for the `ask` step: the SEND clients leave them alone)."""
    primaries = sorted(rc.get_primaries(), key=lambda node: node.name)
    if args.move_slots == 0 or len(primaries) < 2:
        return None
    held = {node.name: {} for node in primaries}  # node -> slot -> its machines
    for name in names:
        node = rc.get_node_from_key(name).name
        held[node].setdefault(rc.keyslot(name), []).append(name)

    def weight(node):  # a node with a hash-tag group first, then the one with most machines
        slots = held[node.name].values()
        return any(len(machines) > 1 for machines in slots), sum(map(len, slots))

    source = max(primaries, key=weight)
    target = primaries[(primaries.index(source) + 1) % len(primaries)]
    slots = held[source.name]
    order = sorted(slots)
    if not order:
        return None
    if args.move_slots is None:  # the first slots holding a third of the source's machines
        count, machines = 0, 0
        while count < len(order) and 3 * machines < sum(map(len, slots.values())):
            machines += len(slots[order[count]])
            count += 1
    else:
        count = min(args.move_slots, len(order))
    chosen = order[:count]
    groups = [slot for slot in chosen if len(slots[slot]) > 1]
    probe_slot = (groups or chosen)[-1]
    return {"source": source, "target": target, "nodes": primaries, "slots": chosen,
            "machines": [name for slot in chosen for name in slots[slot]],
            "probe_slot": probe_slot, "probes": slots[probe_slot][:2]}


class Mover(threading.Thread):
    """The `move` and `ask` steps (see the top of the file), in a thread of the scenario's
    process while the SEND clients run: it starts once they have `start_at` SENDs acknowledged
    (`progress`) and clears `moving` when it is done, which lets them stop. Keeps its figures
    and problems for the report, and the probes' SEND counts."""

    def __init__(self, args, plan, progress, moving, start_at, clients_done):
        super().__init__(daemon=True)
        self.args, self.plan = args, plan
        self.progress, self.moving = progress, moving
        self.start_at, self.clients_done = start_at, clients_done
        self.problems = []  # of the move
        self.ask_problems = []  # of the ASK window's probes
        self.ask_notes = []
        self.probe_counts = {name: 0 for name in plan["probes"]}
        self.slots_moved = self.machines_moved = self.migrates = self.retries = 0
        self.elapsed = 0.0
        self.sends_meanwhile = 0
        self.probed = False
        self.transaction_result = None  # of the ASK window's transaction, when there was one

    def run(self):
        started = None
        try:
            self.connect()
            deadline = time.monotonic() + 60
            while self.progress.value < self.start_at:
                if self.clients_done() or time.monotonic() > deadline:
                    raise RuntimeError("the clients stopped before the move began")
                time.sleep(0.002)
            started, sends_before = time.monotonic(), self.progress.value
            self.move()
        except Exception as error:  # reported as the step's failure
            self.problems.append(f"{type(error).__name__}: {error}")
        finally:
            if started is not None:
                self.elapsed = time.monotonic() - started
                self.sends_meanwhile = self.progress.value - sends_before
            self.moving.clear()
            for client in [*getattr(self, "clients", {}).values(), getattr(self, "rc", None),
                           getattr(self, "rc_once", None)]:
                if client is not None:
                    client.close()

    def connect(self):
        self.clients = {node.name: node_client(self.args, node) for node in self.plan["nodes"]}
        self.ids = {name: client.execute_command("CLUSTER", "MYID")
                    for name, client in self.clients.items()}
        # The probes' clients, made now: their slot map still has the source for every slot.
        self.rc = cluster(self.args)
        self.rc_once = cluster(self.args, retry=Retry(NoBackoff(), 1))

    def move(self):
        source, target = self.plan["source"], self.plan["target"]
        src, dst = self.clients[source.name], self.clients[target.name]
        others = [self.clients[node.name] for node in self.plan["nodes"]
                  if node.name not in (source.name, target.name)]
        for slot in self.plan["slots"]:
            dst.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", self.ids[source.name])
            src.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", self.ids[target.name])
            retries = 0
            while names := src.execute_command("CLUSTER", "GETKEYSINSLOT", slot, MIGRATE_BATCH):
                try:
                    reply = src.execute_command("MIGRATE", target.host, int(target.port), "", 0,
                                                5000, "REPLACE", "KEYS", *names)
                except ResponseError as error:
                    if isinstance(error, TryAgainError):
                        reason = f"-TRYAGAIN {error}"
                    elif str(error).startswith("IOERR"):
                        reason = f"-{error}"
                    else:
                        raise
                    retries += 1
                    self.retries += 1
                    print(f"      move: slot {slot}: MIGRATE of {len(names)} machines: {reason} "
                          f"(retry {retries})", flush=True)
                    if retries > MIGRATE_RETRIES:
                        raise RuntimeError(f"slot {slot}: MIGRATE failed {retries} times")
                    time.sleep(0.05)
                    continue
                if reply != "OK":
                    raise RuntimeError(f"slot {slot}: MIGRATE of {names}: {reply!r}")
                self.migrates += 1
                self.machines_moved += len(names)
            if slot == self.plan["probe_slot"]:
                self.probe(slot)
            for client in [dst, src] + others:
                client.execute_command("CLUSTER", "SETSLOT", slot, "NODE", self.ids[target.name])
            self.slots_moved += 1
            if slot == self.plan["probe_slot"]:
                self.transaction_after(slot)

    def expect(self, probe, reply):
        """Checks a probe SEND's reply against the machine's count, and counts it."""
        want = [str(self.probe_counts[probe]), str(self.probe_counts[probe] + 1)]
        if reply != want:
            self.ask_problems.append(f"SEND {probe}: {reply!r}, want {want}")
        self.probe_counts[probe] += 1

    def probe(self, slot):
        """The ASK window of `slot`: moved, not yet given to the target."""
        self.probed = True
        source, target = self.plan["source"], self.plan["target"]
        probes = self.plan["probes"]
        first = probes[0]
        # The nodes themselves: -ASK from the source, -MOVED from the target without ASKING.
        for node, kind, where in ((source, AskError, target), (target, MovedError, source)):
            try:
                reply = self.clients[node.name].execute_command("SEND", first, "inc")
                self.ask_problems.append(f"{node.name}: SEND {first} gave {reply!r}, "
                                         f"not {kind.__name__}")
            except AskError as error:  # MovedError is one too
                got = (type(error), error.slot_id, f"{error.host}:{error.port}")
                if got != (kind, slot, where.name):
                    self.ask_problems.append(f"{node.name}: SEND {first} gave "
                                             f"{type(error).__name__} {error}, want "
                                             f"{kind.__name__} {slot} {where.name}")
        # redis-cli -c on the source follows the -ASK (ASKING, then the SEND on the target).
        result = subprocess.run(["redis-cli", "-c", "-h", source.host, "-p", str(source.port)],
                                input=f"SEND {first} inc\n", capture_output=True, text=True,
                                timeout=TIMEOUT)
        lines = result.stdout.splitlines()
        redirect = f"-> Redirected to slot [{slot}] located at {target.name}"
        if result.returncode != 0 or result.stderr or lines[:1] != [redirect]:
            self.ask_problems.append(f"redis-cli -c: {result.stdout!r} {result.stderr!r}, "
                                     f"want {redirect!r} first")
        self.expect(first, lines[1:])
        # RedisCluster (its map says the source): -ASK, then ASKING and the SEND on the target.
        self.expect(first, self.rc.execute_command("SEND", first, "inc"))
        # A ClusterPipeline: the -ASK'd commands are sent again one by one, following it.
        pipe = self.rc.pipeline(transaction=False)
        for name in probes:
            pipe.execute_command("SEND", name, "inc")
        for name, reply in zip(probes, pipe.execute(raise_on_error=False)):
            self.expect(name, reply)
        followed = "redis-cli -c, RedisCluster and ClusterPipeline followed -ASK"
        self.ask_notes.append(f"slot {slot}: -ASK and -MOVED as Redis; {followed}")
        # A transaction: redis-py sends no ASKING in one, so it runs or fails whole.
        if len(probes) == 2:
            pipe = self.rc_once.pipeline(transaction=True)
            for name in probes:
                pipe.execute_command("SEND", name, "inc")
            try:
                replies = pipe.execute()
                for name, reply in zip(probes, replies):
                    self.expect(name, reply)
                self.transaction_result = "ran"
            except (AskError, TryAgainError) as error:  # MovedError too; nothing applied
                self.transaction_result = f"failed whole ({type(error).__name__})"

    def transaction_after(self, slot):
        """The window's transaction again, the slot moved (a RedisCluster at its defaults)."""
        if self.transaction_result is None:
            return
        probes = self.plan["probes"]
        pipe = self.rc.pipeline(transaction=True)
        for name in probes:
            pipe.execute_command("SEND", name, "inc")
        try:
            replies = pipe.execute()
        except RedisError as error:
            replies = [f"{type(error).__name__} {error}"] * len(probes)
        for name, reply in zip(probes, replies):
            self.expect(name, reply)
        self.ask_notes.append(f"a transaction in the window {self.transaction_result}, "
                              f"after the move it ran")

    def report(self):
        plan = self.plan
        slots = plan["slots"]
        ok = not self.problems and self.slots_moved == len(slots)
        figures = (f"{self.slots_moved} of {len(slots)} slots ({slots[0]}-{slots[-1]}) from "
                   f"{plan['source'].name} to {plan['target'].name}: {self.machines_moved} of "
                   f"{len(plan['machines'])} machines in {self.elapsed:.2f} s, "
                   f"{self.sends_meanwhile} SENDs meanwhile, {self.migrates} MIGRATEs, "
                   f"{self.retries} retried")
        report(ok and self.machines_moved == len(plan["machines"]), "move",
               figures + (f"; {'; '.join(self.problems[:3])}" if self.problems else ""))
        problems = self.ask_problems + ([] if self.probed else ["the ASK window was not probed"])
        report(not problems, "ask", "; ".join(self.ask_notes) if not problems
               else "; ".join(problems[:5]))


def share(progress, moving):
    """A SEND client's initializer: what it shares with the scenario's process, and the count
    of the redirections its client follows."""
    global shared
    shared = progress, moving
    count_redirections()


redirections = {AskError: 0, MovedError: 0}


def count_redirections():
    """Counts the -ASK and -MOVED replies this process gets: redis-py makes an AskError or a
    MovedError (an AskError too) of each before it follows it. Counting only."""
    made = AskError.__init__

    def __init__(self, *args, **kwargs):
        made(self, *args, **kwargs)
        if type(self) in redirections:
            redirections[type(self)] += 1

    AskError.__init__ = __init__


def send_worker(job):
    """SENDs `count` incs round-robin over `names`, `pipeline` per round trip, and more while
    a move is under way; returns the number sent, each machine's count, the first wrong
    replies, when the SENDs started and ended (after the client found the cluster), and the
    redirections followed (-ASK, -MOVED)."""
    args, names, count = job
    progress, moving = shared
    rc = cluster(args)
    counts = {name: 0 for name in names}
    errors = []
    sent = 0
    start = time.monotonic()  # the system's monotonic clock: comparable between the workers
    while sent < count or moving.is_set():
        size = args.pipeline if sent >= count else min(args.pipeline, count - sent)
        batch = [names[(sent + i) % len(names)] for i in range(size)]
        if args.pipeline == 1:
            replies = [rc.execute_command("SEND", batch[0], "inc")]
        else:
            pipe = rc.pipeline(transaction=False)
            for name in batch:
                pipe.execute_command("SEND", name, "inc")
            replies = pipe.execute(raise_on_error=False)
        for name, reply in zip(batch, replies):
            want = [str(counts[name]), str(counts[name] + 1)]
            if reply != want and len(errors) < 5:
                errors.append(f"SEND {name}: {reply!r}, want {want}")
            counts[name] += 1
        sent += len(batch)
        with progress.get_lock():
            progress.value += len(batch)
    end = time.monotonic()
    rc.close()
    return sent, counts, errors, (start, end), (redirections[AskError], redirections[MovedError])


def sends(args, names, plan):
    """The SENDs from `args.clients` processes, and the move of `plan` meanwhile; returns each
    machine's count, the number of SENDs, the time from the first worker's first SEND to the
    last worker's last reply, and the mover (None without a move)."""
    probes = set(plan["probes"]) if plan else set()
    ours = [name for name in names if name not in probes]
    clients = max(1, min(args.clients, len(ours)))
    jobs = [(args, ours[w::clients], args.sends // clients + (w < args.sends % clients))
            for w in range(clients)]
    # Workers are spawned, not forked: a fork copies the locks the parent's client threads
    # hold, and a worker could wait on one for ever. Their wait is bounded all the same.
    context = multiprocessing.get_context("spawn")
    progress = context.Value("q", 0)  # SENDs acknowledged, all clients
    moving = context.Event()  # set until the move is done: the clients keep sending
    mover = None
    with context.Pool(clients, initializer=share, initargs=(progress, moving)) as pool:
        if plan:
            moving.set()
        pending = pool.map_async(send_worker, jobs)
        if plan:
            mover = Mover(args, plan, progress, moving, max(1, args.sends // 10), pending.ready)
            mover.start()
        try:
            results = pending.get(timeout=180 + args.sends / 500)
        except Exception as error:  # multiprocessing.TimeoutError among them
            moving.clear()
            report(False, "sends", "the clients did not finish in time"
                   if isinstance(error, multiprocessing.TimeoutError)
                   else f"a client failed: {type(error).__name__}: {error}")
            if mover:
                mover.join(TIMEOUT)
            return {name: 0 for name in names}, 0, 0, mover
    if mover:
        mover.join(60)
    elapsed = max(r[3][1] for r in results) - min(r[3][0] for r in results)
    counts = dict(mover.probe_counts) if mover else {}
    errors = []
    for _, worker_counts, worker_errors, _, _ in results:
        counts.update(worker_counts)
        errors += worker_errors
    total = sum(result[0] for result in results)
    asks, moves = (sum(result[4][i] for result in results) for i in (0, 1))
    enough = total >= args.sends if plan else total == args.sends
    report(not errors and enough, "sends",
           f"{total} SENDs, {clients} clients, pipeline {args.pipeline}; they followed {asks} "
           f"-ASK, {moves} -MOVED" if not errors else "; ".join(errors[:5]))
    return counts, total, elapsed, mover


def moved(args, rc, names, plan):
    """Placement after the move, from the map as it is now (the source may have none left),
    and every node agrees."""
    rc.nodes_manager.initialize()
    problems, sizes = placement_problems(rc, names, everywhere=False)
    target = plan["target"].name
    elsewhere = [name for name in plan["machines"] if rc.get_node_from_key(name).name != target]
    if elsewhere:
        problems.append(f"{len(elsewhere)} moved machines not on {target}: {elsewhere[:3]}")
    for node in plan["nodes"]:
        with node_client(args, node) as client:
            owners = {slot: f"{host}:{port}" for first, last, (host, port, *_), *_
                      in client.execute_command("CLUSTER", "SLOTS")
                      for slot in range(first, last + 1)}
        wrong = [slot for slot in plan["slots"] if owners.get(slot) != target]
        if wrong:
            problems.append(f"{node.name}'s CLUSTER SLOTS: {wrong[:3]} not {target}'s")
    report(not problems, "moved", f"{len(plan['machines'])} machines on {target}; {sizes}"
           if not problems else "; ".join(problems[:5]))


def transactions(rc, names, counts):
    groups = {}
    for name in names:
        if name.startswith("{"):
            groups.setdefault(name.split("}")[0], []).append(name)
    problems = []
    for members in list(groups.values())[:5]:
        pair = members[:2]
        pipe = rc.pipeline(transaction=True)
        for name in pair:
            pipe.execute_command("SEND", name, "inc")
        replies = pipe.execute()
        want = [[str(counts[n]), str(counts[n] + 1)] for n in pair]
        if replies != want:
            problems.append(f"{pair}: {replies!r}, want {want}")
        for name in pair:
            counts[name] += 1
    report(not problems, "transaction", f"{min(5, len(groups))} groups" if not problems
           else "; ".join(problems[:3]))


def redis_cli(args, names, counts, moved_names):
    """`redis-cli -c` on the first node, one SEND per stdin line: it follows -MOVED. Every
    other SEND is to a moved machine, when there are."""
    if args.cli_sends == 0:
        return
    host, port = args.nodes[0]
    if moved_names:
        chosen = [moved_names[i // 2 % len(moved_names)] if i % 2 == 0
                  else names[i // 2 % len(names)] for i in range(args.cli_sends)]
    else:
        chosen = [names[i % len(names)] for i in range(args.cli_sends)]
    lines = "".join(f"SEND {name} inc\n" for name in chosen)
    result = subprocess.run(["redis-cli", "-c", "-h", host, "-p", str(port)], input=lines,
                            capture_output=True, text=True, timeout=60 + args.cli_sends // 100)
    output = [line for line in result.stdout.splitlines() if not line.startswith("-> Redirected")]
    redirects = result.stdout.count("-> Redirected")
    problems = [] if result.returncode == 0 and not result.stderr else [
        f"exit {result.returncode}: {result.stderr[:200]!r}"]
    for index, name in enumerate(chosen):
        want = [str(counts[name]), str(counts[name] + 1)]
        got = output[2 * index:2 * index + 2]
        if got != want and len(problems) < 5:
            problems.append(f"SEND {name}: {got!r}, want {want}")
        counts[name] += 1
    if len(output) != 2 * len(chosen):
        problems.append(f"{len(output)} lines for {len(chosen)} SENDs")
    to_moved = f" ({sum(name in moved_names for name in chosen)} to moved machines)" \
        if moved_names else ""
    report(not problems, "redis-cli", f"{len(chosen)} SENDs{to_moved}, {redirects} redirections "
           "followed" if not problems else "; ".join(problems[:5]))


def states(rc, names, counts):
    wrong = [(n, s, counts[n]) for n in names
             if (s := rc.execute_command("STATE", n)) != str(counts[n])]
    report(not wrong, "states", f"{len(names)} machines, {sum(counts.values())} SENDs in all"
           if not wrong else f"{wrong[:5]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", required=True,
                        type=lambda s: [(h, int(p)) for h, p in (a.rsplit(":", 1) for a in s.split(","))])
    parser.add_argument("--machines", type=int, default=300)
    parser.add_argument("--sends", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--pipeline", type=int, default=16)
    parser.add_argument("--cli-sends", type=int, default=1000)
    parser.add_argument("--move-slots", type=int, default=None,
                        help="slots holding machines to move (default: a third of a node's "
                             "machines' worth; 0: no move)")
    parser.add_argument("--prefix", default="s")
    parser.add_argument("--protocol", type=int, choices=[2, 3], default=3)
    args = parser.parse_args()
    print(f"cluster scenario: redis-py {redis.__version__}, {len(args.nodes)} nodes, "
          f"{args.machines} machines, {args.sends} SENDs", flush=True)

    rc = cluster(args)
    found = sorted((n.host, int(n.port)) for n in rc.get_primaries())
    report(found == sorted(args.nodes), "connect", f"{len(found)} nodes" if found == sorted(args.nodes)
           else f"found {found}, want {sorted(args.nodes)}")
    names = machine_names(args)
    spawn(rc, names)
    placement(rc, names)
    plan = plan_move(args, rc, names)
    counts, total, elapsed, mover = sends(args, names, plan)
    if mover:
        mover.report()
        moved(args, rc, names, plan)
    transactions(rc, names, counts)
    redis_cli(args, names, counts, plan["machines"] if plan else [])
    states(rc, names, counts)
    rc.close()
    rate = total / elapsed if elapsed > 0 else 0
    print(f"throughput: {total} SENDs in {elapsed:.2f} s: {rate:.0f} SENDs/s", flush=True)
    print(f"cluster scenario: {'FAILED' if failed else 'passed'}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
