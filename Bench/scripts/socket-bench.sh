#!/usr/bin/env bash
# Socket benchmarks of DESIGN.md §6: the same load generators against
#   echo        Bench/C/echo, the raw libuv RESP server (the floor)                  PING
#   redis       redis-server on its own Unix socket, no persistence                  PING
#   redis-aof   redis-server with appendonly yes, appendfsync everysec (its AOF in    INCR counter
#               a temp dir): the peer of pipelined SEND with durability batched (DESIGN.md
#               §6, issue 22), a write that is made durable within about a second; -c 50
#               -P 16 only (no rtt)
#   millraced-MODE  for each durability MODE, when $MILLRACED names the binary      PING, SEND t flip
#
# Two load generators, both on temp-dir Unix sockets:
#   redis-benchmark (Debian redis-tools): throughput and its own latency output (summary and
#       "Latency by percentile distribution", kept whole: the report draws the 50-client
#       distribution from it), with -c 1 and -c 50, without and with -P 16, --precision 3,
#       bounded -n.
#   Bench/C/rtt: one client, one request in flight, every round trip timed in ns and kept,
#       exact percentiles p50..p99.999. redis-benchmark 7.0 cannot give those here: its
#       latency histogram starts at 10 us, and a Unix-socket round trip is 5-20 us, so its
#       percentiles all fall in the first bucket. The latency picture and the p50 budget use rtt.
#       Each judged millraced SEND, and redis-server's PING for reference, is also timed paired
#       with the echo (rtt -p: blocks of 2000 requests alternating between the two), and the
#       1-client budget is judged on that ratio. Each is timed paired once more with the client
#       on another CPU (rtt-paired-apart), shown next to the verdict, not judged.
#
# Usage: socket-bench.sh [OUT_DIR]        (default: Bench/results/raw/socket)
# Env:   BENCH_QUICK=1         fewer requests (the whole thing in ~30 s)
#        MILLRACED=PATH        the daemon binary; without it the millraced columns are skipped
#        MILLRACE_MACHINES=DIR machine files for the daemon (default: examples/machines if it
#                              defines the "toggle" kind, else a temp dir with toggle.json)
#        DURABILITY="none batched strict"   the modes to run millraced in
#        SOCKET_PIN=0          do not pin (default: pinned, see below)
#
# CPU pinning (taskset, with 2+ CPUs): every server runs on the last CPU, the rtt client on that
# same CPU, redis-benchmark on the others. On a VM a 1-client round trip between two CPUs is
# dominated by the cross-CPU wake-up, which the hypervisor makes bimodal (5 or 13 us here from
# one minute to the next); on one CPU it is two context switches plus the server's own work
# (~2.5 us for the echo server), which is what the servers are compared on. redis-benchmark,
# the load generator, gets the other CPUs, as a load generator should.
# Output: OUT_DIR/socket.tsv (one line per run: server, command, clients, pipeline, requests,
#         round, file, server CPU ns over a redis-benchmark run), OUT_DIR/rb-*.txt (redis-benchmark's output), OUT_DIR/rtt-*.json (rtt; rtt-paired-*.json paired with the echo, rtt-paired-apart-*.json the same with the client on another CPU), logs.
# Every server it starts is stopped on exit, whatever happens (trap).
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
BENCH="$(dirname "$HERE")"
ROOT="$(dirname "$BENCH")"
OUT="${1:-$BENCH/results/raw/socket}"
QUICK="${BENCH_QUICK:-0}"
[ "$QUICK" = "0" ] && QUICK=""
MODES="${DURABILITY:-none batched strict}"

for tool in redis-benchmark redis-server redis-cli; do
  command -v "$tool" >/dev/null || { echo "socket-bench: $tool not found (apt-get install redis-tools redis-server)" >&2; exit 1; }
done
make -s -C "$BENCH/C" >/dev/null
ECHO="$BENCH/C/echo"
RTT="$BENCH/C/rtt"

# request counts: bounded, sized so that each run takes about a second on 2 cores. The 1-client
# redis-benchmark runs are for information (their histogram cannot resolve a Unix-socket round
# trip; rtt gives the judged 1-client figure), so they take half of what a second would hold:
# on a slow 2-core VM (2026-11-23, Zen 1) the full `make bench` from a clean clone took 14.3
# minutes of its 15 with 100,000.
# ROUNDS: every measurement is repeated, servers interleaved (echo, redis, millraced, echo, ...),
# so that a burst of background load on a shared machine hits every server alike;
# report.py takes the median round.
if [ -n "$QUICK" ]; then
  N_C1=20000; N_C1P=100000; N_C50=100000; N_C50P=400000; N_RTT=50000; W_RTT=2000; ROUNDS=1
else
  N_C1=50000; N_C1P=400000; N_C50=300000; N_C50P=1500000; N_RTT=200000; W_RTT=5000; ROUNDS=3
fi

TMP="$(mktemp -d "${TMPDIR:-/tmp}/millrace-socket.XXXXXX")"
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  wait 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$OUT"
rm -f "$OUT"/rb-* "$OUT"/rtt-*.json "$OUT"/*.log "$OUT/socket.tsv" "$OUT/pinning.txt"

NCPU="$(nproc 2>/dev/null || echo 1)"
ON_SERVER=(); ON_CLIENT=()
if [ "${SOCKET_PIN:-1}" != 0 ] && command -v taskset >/dev/null && [ "$NCPU" -ge 2 ]; then
  ON_SERVER=(taskset -c "$((NCPU - 1))")
  ON_CLIENT=(taskset -c "0-$((NCPU - 2))")
  echo "servers and the rtt client on CPU $((NCPU - 1)); redis-benchmark on CPU 0-$((NCPU - 2)) (taskset)" > "$OUT/pinning.txt"
else
  echo "not pinned" > "$OUT/pinning.txt"
fi
printf 'server\tcommand\tclients\tpipeline\trequests\tround\tfile\tserver_cpu_ns\n' > "$OUT/socket.tsv"

log() { echo "socket-bench: $*" >&2; }

# wait_ready SOCKET PID: until the server answers PING (10 s at most)
wait_ready() {
  local sock="$1" pid="$2"
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || { log "server for $sock exited early"; return 1; }
    if [ -S "$sock" ] && [ "$(redis-cli -s "$sock" PING 2>/dev/null)" = "PONG" ]; then return 0; fi
    sleep 0.1
  done
  log "server for $sock not ready after 10 s"
  return 1
}

# stop PID: SIGTERM, then SIGKILL after 2 s
stop() {
  local pid="$1"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# cpu_ns PID: CPU time the process has run so far (all its threads), in ns, from
# /proc/PID/task/*/schedstat; empty where that is not available.
cpu_ns() {
  cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { if (NR) printf "%.0f", s }'
}

# The servers under test, all started first and idle while another one is measured.
SERVERS=()           # names, in measuring order
declare -A PIDOF     # name -> pid
declare -A SOCK      # name -> socket path
declare -A CMDS      # name -> commands, separated by '|'
declare -A SCALE     # name|command -> divisor of the request counts
declare -A ONLY      # name -> the one redis-benchmark "clients pipeline" it runs (no rtt)

# --- the raw libuv echo server ---
"${ON_SERVER[@]}" "$ECHO" "$TMP/echo.sock" 2>>"$OUT/echo.log" &
PID=$!; PIDS+=("$PID")
wait_ready "$TMP/echo.sock" "$PID"
SERVERS+=(echo); SOCK[echo]="$TMP/echo.sock"; CMDS[echo]="PING"; PIDOF[echo]=$PID

# --- redis-server, no persistence ---
"${ON_SERVER[@]}" redis-server --port 0 --unixsocket "$TMP/redis.sock" --unixsocketperm 700 --save '' --appendonly no \
  --daemonize no --logfile "$TMP/redis.log" &
PID=$!; PIDS+=("$PID")
wait_ready "$TMP/redis.sock" "$PID"
SERVERS+=(redis); SOCK[redis]="$TMP/redis.sock"; CMDS[redis]="PING"; PIDOF[redis]=$PID

# --- redis-server with an append-only file, fsynced every second ---
mkdir -p "$TMP/redis-aof"
"${ON_SERVER[@]}" redis-server --port 0 --unixsocket "$TMP/redis-aof.sock" --unixsocketperm 700 --save '' \
  --appendonly yes --appendfsync everysec --dir "$TMP/redis-aof" \
  --daemonize no --logfile "$TMP/redis-aof.log" &
PID=$!; PIDS+=("$PID")
wait_ready "$TMP/redis-aof.sock" "$PID"
SERVERS+=(redis-aof); SOCK[redis-aof]="$TMP/redis-aof.sock"; CMDS[redis-aof]="INCR counter"
PIDOF[redis-aof]=$PID; ONLY[redis-aof]="50 16"

# --- millraced, one daemon per durability mode ---
if [ -z "${MILLRACED:-}" ]; then
  log "MILLRACED not set: millraced columns skipped"
elif [ ! -x "$MILLRACED" ]; then
  log "MILLRACED=$MILLRACED is not an executable: millraced columns skipped"
else
  MACHINES="${MILLRACE_MACHINES:-}"
  if [ -z "$MACHINES" ]; then
    if grep -lqs '"kind"[[:space:]]*:[[:space:]]*"toggle"' "$ROOT"/examples/machines/*.json 2>/dev/null; then
      MACHINES="$ROOT/examples/machines"
    else
      MACHINES="$TMP/machines"
      mkdir -p "$MACHINES"
      cat > "$MACHINES/toggle.json" <<'JSON'
{
  "kind": "toggle",
  "initial": "off",
  "transitions": [
    { "on": "flip", "from": "off", "to": "on" },
    { "on": "flip", "from": "on", "to": "off" }
  ]
}
JSON
    fi
  fi
  for mode in $MODES; do
    name="millraced-$mode"
    sock="$TMP/$name.sock"
    mkdir -p "$TMP/data-$mode"
    "${ON_SERVER[@]}" "$MILLRACED" --socket "$sock" --durability "$mode" --data "$TMP/data-$mode" --machines "$MACHINES" \
      >>"$OUT/$name.log" 2>&1 &
    PID=$!; PIDS+=("$PID")
    if ! wait_ready "$sock" "$PID"; then stop "$PID"; continue; fi
    SERVERS+=("$name"); SOCK[$name]="$sock"; PIDOF[$name]=$PID
    spawned="$(redis-cli -s "$sock" SPAWN toggle t 2>&1 || true)"
    if [ "$spawned" = "OK" ]; then
      CMDS[$name]="PING|SEND t flip"
      # strict commits with synchronous=FULL every turn: fewer requests
      [ "$mode" = strict ] && SCALE["$name|SEND t flip"]=10
    else
      log "$name: SPAWN toggle t answered '$spawned'; SEND skipped"
      CMDS[$name]="PING"
    fi
  done
fi

tag_of() { echo "$1" | tr 'A-Z ' 'a-z-'; }

# rtt: one client, exact percentiles
for round in $(seq 1 "$ROUNDS"); do
  for server in "${SERVERS[@]}"; do
    [ -n "${ONLY[$server]:-}" ] && continue
    IFS='|' read -r -a cmds <<< "${CMDS[$server]}"
    for cmd in "${cmds[@]}"; do
      scale="${SCALE["$server|$cmd"]:-1}"
      n=$((N_RTT / scale)); w=$((W_RTT / scale))
      f="rtt-$server-$(tag_of "$cmd")-r$round.json"
      log "round $round/$ROUNDS $server: rtt -n $n $cmd"
      # shellcheck disable=SC2086 # the command's words are its arguments
      if timeout 300 "${ON_SERVER[@]}" "$RTT" -s "${SOCK[$server]}" -n "$n" -w "$w" -o "$OUT/$f" $cmd 2>>"$OUT/$server.log"; then
        printf '%s\t%s\trtt\t1\t%s\t%s\t%s\t\n' "$server" "$cmd" "$n" "$round" "$f" >> "$OUT/socket.tsv"
      else
        log "$server: rtt $cmd failed (see $OUT/$server.log)"
      fi
    done
  done
done

# paired_rtt SERVER COMMAND ROUND KIND PINNING: rtt -p against the echo, the client pinned as
# the array named PINNING says; a line of KIND in socket.tsv.
paired_rtt() {
  local server="$1" cmd="$2" round="$3" kind="$4" f
  local -n pin="$5"
  f="$kind-$server-$(tag_of "$cmd")-r$round.json"
  log "round $round/$ROUNDS $server: rtt -n $N_RTT -p echo $cmd ($kind)"
  # shellcheck disable=SC2086 # the command's words are its arguments
  if timeout 300 "${pin[@]}" "$RTT" -s "${SOCK[$server]}" -p "${SOCK[echo]}" -q PING -n "$N_RTT" \
    -w "$W_RTT" -o "$OUT/$f" $cmd 2>>"$OUT/$server.log"; then
    printf '%s\t%s\t%s\t1\t%s\t%s\t%s\t\n' "$server" "$cmd" "$kind" "$N_RTT" "$round" "$f" >> "$OUT/socket.tsv"
  else
    log "$server: $kind rtt failed (see $OUT/$server.log)"
  fi
}

# rtt paired with the echo: each judged millraced SEND (and redis-server's PING, for reference)
# timed in blocks that alternate with the echo's PING (Bench/C/rtt -p), so that the ratio
# compares the two at the same speed of the VM; the runs above give each server's own
# distribution. Not for strict (fsync per turn: not judged).
for round in $(seq 1 "$ROUNDS"); do
  for server in "${SERVERS[@]}"; do
    case "$server" in
      redis) cmd="PING" ;;
      millraced-strict) continue ;;
      millraced-*) cmd="SEND t flip" ;;
      *) continue ;;
    esac
    case "|${CMDS[$server]}|" in *"|$cmd|"*) ;; *) continue ;; esac
    paired_rtt "$server" "$cmd" "$round" rtt-paired ON_SERVER
    # The same pairs with the client on another CPU, as a client process usually runs: the
    # cross-CPU wake-up then weighs more than the server's work. Shown, not judged.
    if [ "${#ON_CLIENT[@]}" -gt 0 ]; then
      paired_rtt "$server" "$cmd" "$round" rtt-paired-apart ON_CLIENT
    fi
  done
done

# redis-benchmark: -c 1 / -c 50, without and with -P 16
for round in $(seq 1 "$ROUNDS"); do
  for cp in "1 1" "1 16" "50 1" "50 16"; do
    read -r c p <<< "$cp"
    case "$cp" in "1 1") base=$N_C1 ;; "1 16") base=$N_C1P ;; "50 1") base=$N_C50 ;; *) base=$N_C50P ;; esac
    for server in "${SERVERS[@]}"; do
      [ -n "${ONLY[$server]:-}" ] && [ "${ONLY[$server]}" != "$cp" ] && continue
      IFS='|' read -r -a cmds <<< "${CMDS[$server]}"
      for cmd in "${cmds[@]}"; do
        n=$((base / ${SCALE["$server|$cmd"]:-1}))
        f="rb-$server-$(tag_of "$cmd")-c$c-P$p-r$round.txt"
        log "round $round/$ROUNDS $server: redis-benchmark -c $c -P $p -n $n $cmd"
        # The server's CPU time over the run: when redis-benchmark, not the server, is the
        # bottleneck, CPU per request is what tells the servers' capacities apart.
        before="$(cpu_ns "${PIDOF[$server]}")"
        # shellcheck disable=SC2086
        if timeout 300 "${ON_CLIENT[@]}" redis-benchmark -s "${SOCK[$server]}" -n "$n" -c "$c" -P "$p" --precision 3 $cmd \
            > "$OUT/$f" 2>>"$OUT/$server.log" && grep -q "throughput summary" "$OUT/$f"; then
          after="$(cpu_ns "${PIDOF[$server]}")"
          cpu=""; [ -n "$before" ] && [ -n "$after" ] && cpu=$((after - before))
          printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$server" "$cmd" "$c" "$p" "$n" "$round" "$f" "$cpu" >> "$OUT/socket.tsv"
        else
          log "$server: redis-benchmark -c $c -P $p $cmd failed (see $OUT/$server.log)"
        fi
      done
    done
  done
done

for pid in "${PIDS[@]}"; do stop "$pid"; done
log "done: $OUT/socket.tsv"
