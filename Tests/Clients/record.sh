#!/usr/bin/env bash
# Records with `redis-cli MONITOR` what each client of the matrix sends to a real redis-server
# (loopback, a temporary directory, a free port). docs/clients.md was written from its output.
#
#   make clients-record        (or Tests/Clients/record.sh after `make clients-deps`)
set -euo pipefail
cd "$(dirname "$0")/../.."
export PYTHONDONTWRITEBYTECODE=1
VENV=.build/clients-venv
work=$(mktemp -d /tmp/millrace-record.XXXXXX)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

redis-server --port "$port" --bind 127.0.0.1 --dir "$work" --save '' --appendonly no \
  --daemonize no >"$work/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
# The clients talk to the logging proxy in front of it.
upstream=$port
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 Tests/Clients/resp_proxy.py "$port" "$upstream" "$work/wire" &
pids+=($!)
for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done

# record TITLE COMMAND...: runs COMMAND, prints what it sent and the replies' types; with
# AGGREGATE=1 the same command and reply on every connection are counted once per line.
record() {
  local title=$1; shift
  : >"$work/wire"
  "$@" >"$work/out" 2>&1 || echo "($title exited $?: $(tail -1 "$work/out"))"
  sleep 0.5
  echo "### $title"
  python3 Tests/Clients/resp_proxy.py --summary "$work/wire" >"$work/summary"
  if [ -n "${AGGREGATE:-}" ]; then sed 's/^[cu][0-9]* //' "$work/summary" | sort | uniq -c | sort -rn
  else cat "$work/summary"; fi
}

# redis-py over TCP, then over a Unix socket (the proxy listens on one too): not the same.
python3 Tests/Clients/resp_proxy.py "$work/proxy.sock" "$upstream" "$work/wire" &
pids+=($!)
for _ in $(seq 50); do [ -S "$work/proxy.sock" ] && break; sleep 0.1; done
for mode in sync async; do for proto in 3 2; do
  record "redis-py $mode protocol=$proto" $VENV/bin/python Tests/Clients/record_py.py "$port" $mode $proto
done; done
for mode in sync async; do
  record "redis-py $mode (defaults) over a Unix socket" \
    $VENV/bin/python Tests/Clients/record_py.py "$work/proxy.sock" $mode 3
done
# hiredis sends only what the program asks for (no handshake): nothing to record.
record "redis-cli one-shot" redis-cli -p "$port" ping
record "redis-cli -3" redis-cli -3 -p "$port" ping
record "redis-cli --stat (3 s)" timeout 3 redis-cli -p "$port" --stat
seq 5 | sed 's/.*/SET k& v&/' >"$work/pipe.txt"
record "redis-cli --pipe" sh -c "redis-cli -p $port --pipe <$work/pipe.txt"
AGGREGATE=1 record "redis-benchmark -t ping -n 1000" redis-benchmark -p "$port" -t ping -n 1000 -q
AGGREGATE=1 record "redis-benchmark -P 16 SET" redis-benchmark -p "$port" -n 100 -P 16 -q SET k v
webport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
exporter() {
  prometheus-redis-exporter -redis.addr "redis://127.0.0.1:$port" \
    -web.listen-address "127.0.0.1:$webport" >"$work/exporter.log" 2>&1 & local e=$!
  for _ in $(seq 50); do curl -sf "http://127.0.0.1:$webport/" >/dev/null && break; sleep 0.1; done
  curl -sf "http://127.0.0.1:$webport/metrics" >"$work/metrics"
  kill "$e"; wait "$e" 2>/dev/null || true
}
record "prometheus-redis-exporter (one scrape)" exporter
grep -E '^redis_(up|connected_clients|memory_used_bytes|commands_processed_total|uptime_in_seconds) ' "$work/metrics"
