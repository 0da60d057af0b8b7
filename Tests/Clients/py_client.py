"""One redis-py configuration through the client matrix's scenario (docs/clients.md), at the
library's defaults but for the protocol, over the daemon's Unix socket:

    python py_client.py SOCKET PREFIX sync|asyncio 3|2 [millraced|redis]

Prints one line per step (PASS/FAIL, the configuration, the step, the reason) and exits 1 when
a step failed. Sync and asyncio run the same code: `aw` awaits what asyncio returns.
"""
import asyncio
import inspect
import sys

import redis
import redis.asyncio

SOCKET, P, MODE, PROTO = sys.argv[1:5]
TARGET = sys.argv[5] if len(sys.argv) > 5 else "millraced"
LABEL = f"redis-py {MODE} RESP{PROTO}"
TIMEOUT = 5
NAMES = [f"{P}.{n}" for n in "m rej pipe tx sub psub".split()] + [f"{P}.s{i:02}" for i in range(1, 15)]
failed = False


def cmd(*words):
    """SPAWN counter N / SEND N I / STATE N, spelled for the target (counter.lua for redis)."""
    if TARGET == "redis":
        return {"SPAWN": lambda: ("FCALL", "spawn", 1, words[2]),
                "SEND": lambda: ("FCALL", "send", 1, *words[1:]),
                "STATE": lambda: ("GET", words[1])}[words[0]]()
    return words


async def aw(value):
    return await value if inspect.isawaitable(value) else value


def client():
    kw = {} if PROTO == "3" else {"protocol": 2}  # 3 is redis-py's default: pass nothing
    cls = redis.Redis if MODE == "sync" else redis.asyncio.Redis
    return cls(unix_socket_path=SOCKET, decode_responses=True, socket_timeout=TIMEOUT,
               socket_connect_timeout=TIMEOUT, **kw)


def want(got, expected, what=""):
    if got != expected:
        raise AssertionError(f"{what}got {got!r}, want {expected!r}")


async def send(r, name, inp="inc"):
    return await aw(r.execute_command(*cmd("SEND", name, inp)))


async def error(call, expected):
    """call() must fail with a reply error starting with `expected`."""
    try:
        got = await aw(call())
    except redis.ResponseError as e:
        if not str(e).startswith(expected):
            raise AssertionError(f"error {str(e)!r}, want {expected!r}...") from None
        return
    raise AssertionError(f"got {got!r}, want an error {expected!r}...")


async def message(ps):
    """The next pub/sub message (a subscribe confirmation too), within TIMEOUT."""
    for _ in range(TIMEOUT * 10):
        m = await aw(ps.get_message(timeout=0.1))
        if m is not None:
            return m
    raise TimeoutError("no message")


async def subscribed(r, kind, channel, machine, expected):
    ps = r.pubsub()
    try:
        await aw(getattr(ps, kind)(channel))
        m = await message(ps)
        want((m["type"], m["channel"], m["data"]), (kind, channel, 1), "confirmation: ")
        want(await send(r, machine), ["0", "1"], f"SEND {machine}: ")
        want(await message(ps), expected)
    finally:
        await aw(ps.aclose() if MODE == "asyncio" else ps.close())


def steps(r):
    """The scenario, in order: (name, coroutine function)."""
    m, state = f"{P}.m", lambda n: aw(r.execute_command(*cmd("STATE", n)))

    async def connect():
        want(await aw(r.ping()), True)

    async def spawn():
        for n in NAMES:
            want(await aw(r.execute_command(*cmd("SPAWN", "counter", n))), "OK",
                 f"SPAWN {n}: ")

    async def pipeline():
        p = r.pipeline(transaction=False)
        for _ in range(100):
            p.execute_command(*cmd("SEND", f"{P}.pipe", "inc"))
        want(await aw(p.execute()), [[str(i), str(i + 1)] for i in range(100)])
        want(await state(f"{P}.pipe"), "100", "STATE after: ")

    async def transaction():  # pipeline() with its default transaction=True: MULTI ... EXEC
        p = r.pipeline()
        p.execute_command(*cmd("SEND", f"{P}.tx", "inc"))
        p.execute_command(*cmd("SEND", f"{P}.tx", "inc"))
        want(await aw(p.execute()), [["0", "1"], ["1", "2"]])

    async def scan():
        it = r.scan_iter(match=f"{P}.*", count=5)
        got = [k async for k in it] if MODE == "asyncio" else list(it)
        want(sorted(set(got)), sorted(NAMES))

    async def send_inc():
        want(await send(r, m), ["0", "1"])

    async def state_1():
        want(await state(m), "1")

    async def data():
        """A kind with data (examples/machines/login.json): arguments after the input, the
        context in STATE ... WITHCONTEXT, an argument that does not fit refused."""
        n = f"{P}-login"  # outside the pattern of the scan step
        want(await aw(r.execute_command("SPAWN", "login", n)), "OK")
        want(await aw(r.execute_command("SEND", n, "login", "ann lee", 7)), ["idle", "idle"])
        want(await aw(r.execute_command("STATE", n, "WITHCONTEXT")),
             ["idle", "attempts", "1", "user", ""])
        await error(lambda: r.execute_command("SEND", n, "login", "ann", "x"),
                    "NOINPUT kind login: input login: parameter pin (int)")
        want(await aw(r.execute_command("SEND", n, "login", "ann lee", 1234)), ["idle", "session"])
        want(await aw(r.execute_command("STATE", n, "WITHCONTEXT")),
             ["session", "attempts", "0", "user", "ann lee"])

    sub, psub, pattern = f"{P}.sub", f"{P}.psub", f"{P}.ps*"
    data_steps = [("data", data)] if TARGET == "millraced" else []
    return data_steps + [
        ("connect", connect),
        ("spawn", spawn),
        ("send", send_inc),
        ("state", state_1),
        ("nomachine", lambda: error(lambda: r.execute_command(*cmd("SEND", f"{P}.none", "inc")),
                                    "NOMACHINE")),
        ("rejected", lambda: error(lambda: r.execute_command(*cmd("SEND", f"{P}.rej", "dec")),
                                   "REJECTED dec in 0")),
        ("pipeline", pipeline),
        ("transaction", transaction),
        ("pubsub", lambda: subscribed(r, "subscribe", sub, sub, {
            "type": "message", "pattern": None, "channel": sub, "data": "inc 0 1"})),
        ("psubscribe", lambda: subscribed(r, "psubscribe", pattern, psub, {
            "type": "pmessage", "pattern": pattern, "channel": psub, "data": "inc 0 1"})),
        ("scan", scan),
    ]


async def main():
    global failed
    r = client()
    connected = True
    for name, step in steps(r):
        try:
            if not connected:  # redis-py retries a failed handshake with back-off: seconds each
                raise RuntimeError("not run: connect failed")
            await asyncio.wait_for(step(), TIMEOUT * 3)
            print(f"PASS  {LABEL:<22} {name}", flush=True)
        except Exception as e:  # every failure is a FAIL line, and the next step runs
            failed, connected = True, connected and name != "connect"
            reason = f"{type(e).__name__}: {e}".replace("\n", " ")[:300]
            print(f"FAIL  {LABEL:<22} {name:<11} {reason}", flush=True)
    await aw(r.aclose() if MODE == "asyncio" else r.close())


asyncio.run(main())
sys.exit(1 if failed else 0)
