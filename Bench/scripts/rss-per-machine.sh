#!/usr/bin/env bash
# Memory per idle hosted machine (DESIGN §6), quickly: RSS of millraced after SPAWNing N
# `toggle` machines named dev:0 ... dev:N-1 over its Unix socket, against redis-server holding
# N `HSET dev:I kind toggle state off` keys, each with its idle RSS at start subtracted.
# `make scale` runs the full scenario; this is the quick check while working on the host.
#
# Usage: rss-per-machine.sh [N]            (default 100000)
# Env:   MILLRACED=PATH   the daemon (default .build-release/release/millraced, then
#                         .build/release/millraced)
#        DURABILITY="none batched"   the modes to run millraced in
# Output: one line per server: RSS at start, after loading, bytes per machine / key.
# Every server it starts is stopped on exit (trap).
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(dirname "$(dirname "$HERE")")"
N="${1:-100000}"
MILLRACED="${MILLRACED:-}"
if [ -z "$MILLRACED" ]; then
  for candidate in "$ROOT/.build-release/release/millraced" "$ROOT/.build/release/millraced"; do
    if [ -x "$candidate" ]; then MILLRACED="$candidate"; break; fi
  done
fi
[ -x "$MILLRACED" ] || { echo "no millraced: build it with swift build -c release" >&2; exit 1; }
# shellcheck source=Bench/scripts/lib.sh
. "$HERE/lib.sh"
workspace millrace-rss

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

# RESP for N commands: $1 is a printf format of the words after the name's number.
commands() {
  python3 - "$N" "$@" <<'EOF'
import sys
n = int(sys.argv[1]); words = sys.argv[2:]
out = sys.stdout.buffer
for i in range(n):
    parts = [w.replace("{}", str(i)).encode() for w in words]
    out.write(b"*%d\r\n" % len(parts))
    for p in parts:
        out.write(b"$%d\r\n%s\r\n" % (len(p), p))
EOF
}

# load NAME PID SOCKET WORDS...: pipes the commands, then prints the line.
load() {
  local name="$1" pid="$2" socket="$3"
  shift 3
  sleep 0.5
  local before after
  before="$(rss_kb "$pid")"
  commands "$@" | redis-cli -s "$socket" --pipe >"$WORK/$name.pipe" 2>&1
  grep -q "errors: 0" "$WORK/$name.pipe" || { cat "$WORK/$name.pipe" >&2; exit 1; }
  sleep 1.5
  after="$(rss_kb "$pid")"
  awk -v name="$name" -v n="$N" -v b="$before" -v a="$after" 'BEGIN {
    printf "%-22s start %7.1f MB  loaded %7.1f MB  %6.1f B per machine/key\n",
      name, b / 1024, a / 1024, (a - b) * 1024 / n }'
}

echo "$N machines / keys"
redis-server --port 0 --unixsocket "$WORK/redis.sock" --save '' --appendonly no \
  --daemonize no >"$WORK/redis.log" 2>&1 &
PIDS+=($!)
wait_for_socket "$WORK/redis.sock"
load redis-server "${PIDS[-1]}" "$WORK/redis.sock" HSET "dev:{}" kind toggle state off

for mode in ${DURABILITY:-none batched}; do
  socket="$WORK/millraced-$mode.sock"
  "$MILLRACED" --socket "$socket" --machines "$ROOT/examples/machines" \
    --data "$WORK/data-$mode" --durability "$mode" --log-level warning \
    >"$WORK/millraced-$mode.log" 2>&1 &
  PIDS+=($!)
  wait_for_socket "$socket"
  load "millraced ($mode)" "${PIDS[-1]}" "$socket" SPAWN toggle "dev:{}"
done
