"""What redis-py sends: connect, PING, pipeline() (default transaction), pubsub SUBSCRIBE and
PSUBSCRIBE (one message each), scan_iter. Used by record.sh against a real redis-server.

    python record_py.py PORT|SOCKET sync|async 2|3
"""
import asyncio
import sys

import redis
import redis.asyncio

where, mode, proto = sys.argv[1], sys.argv[2], int(sys.argv[3])
kw = {} if proto == 3 else {"protocol": 2}  # 3 = the library's default: pass nothing
kw.update({"port": int(where)} if where.isdigit() else {"unix_socket_path": where})


def sync():
    r = redis.Redis(**kw)
    r.ping()
    p = r.pipeline()
    p.set("a", 1).get("a")
    p.execute()
    ps = r.pubsub()
    ps.subscribe("ch")
    ps.psubscribe("c*")
    ps.get_message(timeout=1), ps.get_message(timeout=1)
    r.publish("ch", "hi")
    ps.get_message(timeout=1), ps.get_message(timeout=1)
    ps.close()
    list(r.scan_iter(count=10))
    r.close()


async def asynchronous():
    r = redis.asyncio.Redis(**kw)
    await r.ping()
    async with r.pipeline() as p:
        p.set("a", 1).get("a")
        await p.execute()
    ps = r.pubsub()
    await ps.subscribe("ch")
    await ps.psubscribe("c*")
    await ps.get_message(timeout=1), await ps.get_message(timeout=1)
    await r.publish("ch", "hi")
    await ps.get_message(timeout=1), await ps.get_message(timeout=1)
    await ps.aclose()
    [k async for k in r.scan_iter(count=10)]
    await r.aclose()


sync() if mode == "sync" else asyncio.run(asynchronous())
