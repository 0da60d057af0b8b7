"""The cluster scenario (docs/cluster.md): real Redis Cluster clients at their defaults drive
millraced nodes, and every reply and every machine's final state is checked.

    python cluster_scenario.py --nodes HOST:PORT[,HOST:PORT...] [--machines M] [--sends N]
        [--clients K] [--pipeline P] [--cli-sends R] [--prefix X] [--protocol 2|3]

Run by `make cluster` (scripts/cluster.sh) with 100,000 SENDs, and by the integration test
ClusterClientTests with small counts. Steps, one line each (PASS or FAIL, the step, details):

  connect     redis-py's RedisCluster from the first node: it finds every node by CLUSTER SLOTS
  spawn       M counter machines, half of them in hash-tag groups ({X-g3}:m6), half untagged
  placement   each machine is on the node owning its slot (LIST on every node); every node has
              some when there are several; the machines of a hash-tag group share a node
  sends       N SENDs of `inc` over the machines from K processes (each its own RedisCluster
              and its own machines), P per ClusterPipeline (P = 1: one call each); every reply
              is [count, count + 1]
  transaction a MULTI/EXEC per hash-tag group (ClusterPipeline with transaction=True)
  redis-cli   R SENDs through `redis-cli -c` on the first node, which follows -MOVED
  states      STATE of every machine is the number of SENDs it got
  (phase 2)   a live slot move under load will go between `sends` and `states`

Prints `throughput: N SENDs in T s: X SENDs/s` and exits 1 when a step failed.
"""
import argparse
import multiprocessing
import subprocess
import sys
import time

import redis
from redis.cluster import ClusterNode, RedisCluster

TIMEOUT = 10
failed = False


def report(ok, step, detail=""):
    global failed
    failed |= not ok
    print(f"{'PASS' if ok else 'FAIL'}  {step:<12} {detail}".rstrip(), flush=True)


def cluster(args):
    """A RedisCluster at its defaults (but for the protocol when asked, and text replies)."""
    host, port = args.nodes[0]
    extra = {} if args.protocol == 3 else {"protocol": args.protocol}
    return RedisCluster(host=host, port=port, decode_responses=True, socket_timeout=TIMEOUT,
                        socket_connect_timeout=TIMEOUT, **extra)


def machine_names(args):
    """Half in hash-tag groups of about 8, half untagged."""
    groups = max(1, args.machines // 16)
    return [f"{{{args.prefix}-g{(i // 2) % groups}}}:m{i}" if i % 2 == 0 else f"{args.prefix}:m{i}"
            for i in range(args.machines)]


def spawn(rc, names):
    bad = [(n, r) for n in names if (r := rc.execute_command("SPAWN", "counter", n)) != "OK"]
    report(not bad, "spawn", f"{len(names)} machines" if not bad else f"{bad[:3]}")


def placement(rc, names):
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
        if len(primaries) > 1 and len(names) >= 3 * 16 and not ours:
            problems.append(f"{node.name} has no machine")
    groups = {}
    for name in names:
        if name.startswith("{"):
            groups.setdefault(name.split("}")[0], set()).add(rc.get_node_from_key(name).name)
    problems += [f"group {g} spans {nodes}" for g, nodes in groups.items() if len(nodes) > 1]
    sizes = ", ".join(f"{node.name}: {len(expected[node.name])}" for node in primaries)
    report(not problems, "placement", sizes if not problems else "; ".join(problems[:5]))


def send_worker(job):
    """SENDs `count` incs round-robin over `names`, `pipeline` per round trip; returns the
    number sent, each machine's count, the first wrong replies, and when the SENDs started
    and ended (after the client found the cluster)."""
    args, names, count = job
    rc = cluster(args)
    counts = {name: 0 for name in names}
    errors = []
    sent = 0
    start = time.monotonic()  # the system's monotonic clock: comparable between the workers
    while sent < count:
        batch = [names[(sent + i) % len(names)] for i in range(min(args.pipeline, count - sent))]
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
    end = time.monotonic()
    rc.close()
    return sent, counts, errors, (start, end)


def sends(args, names):
    """The SENDs from `args.clients` processes; returns each machine's count and the time from
    the first worker's first SEND to the last worker's last reply."""
    clients = max(1, min(args.clients, len(names)))
    jobs = [(args, names[w::clients], args.sends // clients + (w < args.sends % clients))
            for w in range(clients)]
    # Workers are spawned, not forked: a fork copies the locks the parent's client threads
    # hold, and a worker could wait on one for ever. Their wait is bounded all the same.
    context = multiprocessing.get_context("spawn")
    with context.Pool(clients) as pool:
        try:
            results = pool.map_async(send_worker, jobs).get(timeout=120 + args.sends / 500)
        except multiprocessing.TimeoutError:
            report(False, "sends", "the clients did not finish in time")
            return {name: 0 for name in names}, 0
    elapsed = max(r[3][1] for r in results) - min(r[3][0] for r in results)
    counts = {}
    errors = []
    for _, worker_counts, worker_errors, _ in results:
        counts.update(worker_counts)
        errors += worker_errors
    total = sum(result[0] for result in results)
    report(not errors and total == args.sends, "sends",
           f"{total} SENDs, {clients} clients, pipeline {args.pipeline}" if not errors
           else "; ".join(errors[:5]))
    return counts, elapsed


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


def redis_cli(args, names, counts):
    """`redis-cli -c` on the first node, one SEND per stdin line: it follows -MOVED."""
    if args.cli_sends == 0:
        return
    host, port = args.nodes[0]
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
    report(not problems, "redis-cli", f"{len(chosen)} SENDs, {redirects} redirections followed"
           if not problems else "; ".join(problems[:5]))


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
    counts, elapsed = sends(args, names)
    # PHASE 2 (issue 26): move a slot range between nodes here, while `sends` runs, and check
    # that no SEND is lost or duplicated (the states below would show it).
    transactions(rc, names, counts)
    redis_cli(args, names, counts)
    states(rc, names, counts)
    rc.close()
    rate = args.sends / elapsed if elapsed > 0 else 0
    print(f"throughput: {args.sends} SENDs in {elapsed:.2f} s: {rate:.0f} SENDs/s", flush=True)
    print(f"cluster scenario: {'FAILED' if failed else 'passed'}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
