#!/usr/bin/env bash
# Bench/scale/scale.sh: the million-machine scenario of issue 22 (DESIGN.md §6), what
# `make scale` runs. The real daemon and redis-server, on the same run, on the same machine:
#
#   millraced (durability batched, the default)        redis-server (a temp dir)
#   1. start on a fresh data dir, baseline RSS          baseline RSS
#   2. SPAWN toggle dev:0..dev:N-1, pipelined           HSET dev:i kind toggle state off, pipelined
#   3. RSS per machine                                  RSS per key
#   4. a bystander PINGs every ms on its own connection, through every step, on both servers
#   5. SEND dev:<random> flip, 50 connections x 16 deep: the daemon with N machines against
#      one with 1,000, rounds interleaved, each started with both daemons idle and charged with
#      the CPU its daemon spends after it (settle); server CPU per request
#   6. the store on disk per machine (live, and at rest after the clean stop)
#   7. clean stop (SIGTERM until the process is gone)   SIGTERM with appendonly yes
#   8. restart after the clean stop: until PING answers and INFO counts N machines, then
#      1,000 sampled states checked                     restart from the RDB (SAVE), DBSIZE = N
#   9. flip 3,000 random machines, kill -9, restart, their states checked
#                                                       restart from the AOF (BGREWRITEAOF)
#  10. a fresh daemon with N `sleeper` machines, each armed with an `after 1h` timer: INFO
#      counts N timers; clean stop; restart until every timer is back; kill -9; the same
#  11. KILL every machine; RSS returns (polled for a few seconds)
#                                                       DEL every key; RSS
# Every figure goes to RAW/facts.tsv (key, JSON value), every step's start and end to
# RAW/marks.tsv, the bystanders' samples to RAW/bystander-*.txt; report.py turns them into
# Bench/results/scale.md and scale.json and decides PASS / FAIL.
#
# Usage: scale.sh    (make scale builds the daemon and the generator first)
# Env:   SCALE_N=1000000       machines (and redis keys); SCALE_N=100000 for a quick run
#        MILLRACED=PATH        the daemon (default .build/release/millraced)
#        SCALEGEN=PATH         the load generator (default .build/scale/scalegen)
#        SCALE_ROUNDS=5        SEND rounds per daemon (medians compared); SCALE_SEND_SECONDS=3 each
#        SCALE_PIN=0           do not pin (default: servers on the last CPU, clients on the
#                              others, as Bench/scripts/socket-bench.sh does)
#        SCALE_OUT=DIR         where scale.md / scale.json go (default Bench/results)
# Exit status: 0 when every bar is met, 1 when one is not (or a step could not run); the
# report is written either way. Every process it starts is killed on exit (trap).
set -euo pipefail
export LC_ALL=C # $EPOCHREALTIME with a '.', whatever the locale

HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
N="${SCALE_N:-1000000}"
SMALL=1000
MILLRACED="${MILLRACED:-$ROOT/.build/release/millraced}"
GEN="${SCALEGEN:-$ROOT/.build/scale/scalegen}"
OUT="${SCALE_OUT:-$ROOT/Bench/results}"
RAW="$OUT/raw/scale"
ROUNDS="${SCALE_ROUNDS:-5}"
SEND_SECONDS="${SCALE_SEND_SECONDS:-3}"
SEND_CONNS=50
SEND_DEPTH=16
LOAD_CONNS=1     # SPAWN / HSET / KILL / DEL / arm: one connection ...
LOAD_DEPTH=1000  # ... with 1,000 requests in flight
SAMPLES=1000     # machines whose state is checked after the clean stop
FLIPS=3000       # machines flipped before the kill -9
RSS_WAIT=5       # seconds to wait for RSS to come back after KILL
READY_TIMEOUT=180 # seconds a start may take before it counts as failed (the bar is 3)
STOP_TIMEOUT=180  # seconds a SIGTERM may take before SIGKILL (the bar is 1)
RUN_TIMEOUT=600

for tool in "$MILLRACED" "$GEN"; do
  [ -x "$tool" ] || { echo "scale: $tool is missing (make scale builds it)" >&2; exit 2; }
done
for tool in redis-server redis-cli python3 du taskset; do
  command -v "$tool" >/dev/null || { echo "scale: $tool not found" >&2; exit 2; }
done
case "$N" in '' | *[!0-9]*) echo "scale: SCALE_N must be a number" >&2; exit 2 ;; esac

TMP="$(mktemp -d "${TMPDIR:-/tmp}/millrace-scale.XXXXXX")"
SOCK="$TMP/millraced.sock"       # every big daemon in turn (the bystander follows it)
SMALL_SOCK="$TMP/small.sock"     # the daemon with 1,000 machines
RSOCK="$TMP/redis.sock"
MACHINES="$TMP/machines"
PIDS=()        # every process started, killed on exit
BYSTANDERS=()  # stopped with SIGTERM first, so that they write out their samples
REPORTED=0

log() { printf 'scale [%3ss]: %s\n' "$SECONDS" "$*" >&2; }

# ours PID: the process is still one this run started (its command line names the daemon,
# redis-server or scalegen), not a later process that got the same id
ours() {
  local cmd
  cmd="$({ tr '\0' ' ' <"/proc/$1/cmdline"; } 2>/dev/null)" || return 1
  case "$cmd" in *"$MILLRACED"* | *redis-server* | *"$GEN"*) return 0 ;; *) return 1 ;; esac
}

# On exit, whatever happened: the bystanders write out their samples (SIGTERM), every process
# started is killed, the temp dir goes, and the report is written if it was not yet.
cleanup() {
  local status=$? pid
  trap - EXIT INT TERM
  set +e
  for pid in "${BYSTANDERS[@]}"; do ours "$pid" && kill -TERM "$pid" 2>/dev/null; done
  for pid in "${BYSTANDERS[@]}"; do
    for _ in $(seq 1 20); do ours "$pid" || break; sleep 0.05; done
  done
  for pid in "${PIDS[@]}"; do ours "$pid" && kill -KILL "$pid" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$TMP"
  if [ "$REPORTED" = 0 ]; then
    [ "$status" = 0 ] || fact_s aborted "exit status $status (130: interrupted; 1: a step could not go on, see the log above and $RAW)"
    fact_s loadavg_end "$(cut -d' ' -f1-3 /proc/loadavg)"
    fact seconds_total "$SECONDS"
    python3 "$HERE/report.py" --raw "$RAW" --out "$OUT"
    local verdict=$?
    [ "$status" = 0 ] && status=$verdict
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- recording ---------------------------------------------------------------------------------
mkdir -p "$RAW"
rm -f "$RAW"/*.tsv "$RAW"/*.txt "$RAW"/*.log
: >"$RAW/facts.tsv"
: >"$RAW/marks.tsv"
now_ns() { printf '%s000' "${EPOCHREALTIME/./}"; }
# fact KEY JSON: one figure (a number, or a JSON object from scalegen; null when empty)
fact() { printf '%s\t%s\n' "$1" "${2:-null}" >>"$RAW/facts.tsv"; }
# elapsed T0_NS: seconds since T0_NS
elapsed() { awk -v a="$1" -v b="$(now_ns)" 'BEGIN { printf "%.6f", (b - a) / 1e9 }'; }
# fact_s KEY TEXT: a string
fact_s() {
  local s="${2//\\/\\\\}"
  s="${s//\"/\\\"}"
  s="${s//$'\n'/ }"
  printf '%s\t"%s"\n' "$1" "$s" >>"$RAW/facts.tsv"
}
# mark SERVER STEP begin|end: the bystander's window for STEP
mark() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$(now_ns)" >>"$RAW/marks.tsv"; }

# --- processes -----------------------------------------------------------------------------------
NCPU="$(nproc)"
ON_SERVER=()
ON_CLIENT=()
if [ "${SCALE_PIN:-1}" != 0 ] && [ "$NCPU" -ge 2 ]; then
  ON_SERVER=(taskset -c "$((NCPU - 1))")
  ON_CLIENT=(taskset -c "0-$((NCPU - 2))")
  clients="0-$((NCPU - 2))"
  [ "$NCPU" = 2 ] && clients=0
  fact_s pinning "servers on CPU $((NCPU - 1)); generator and bystanders on CPU $clients (taskset)"
else
  fact_s pinning "not pinned"
fi

gen() { "${ON_CLIENT[@]}" "$GEN" "$@"; }

# The bystander runs SCHED_FIFO where that is allowed (root or CAP_SYS_NICE): it sleeps between
# PINGs, and its wake-ups must not wait behind the load generator on the same CPU, or the
# client's own scheduling would be measured instead of the server's answer.
BY_PRIO=()
if chrt -f 10 true 2>/dev/null; then
  BY_PRIO=(chrt -f 10)
  fact_s bystander_priority "SCHED_FIFO 10 (chrt)"
else
  fact_s bystander_priority "normal (chrt -f refused): its figures include its own wake-up delays"
fi
# start_bystander SOCKET FILE (not through a function in the background: $! must be its pid)
start_bystander() {
  "${BY_PRIO[@]}" "${ON_CLIENT[@]}" "$GEN" bystander -s "$1" -o "$2" -i 1000 &
  BYSTANDERS+=($!)
  PIDS+=($!)
}

# rss PID: VmRSS in bytes (0 when the process is gone); printf, not print: awk would print
# 3.4e+09
rss() { awk '/^VmRSS:/ { r = $2 * 1024 } END { printf "%.0f\n", r }' "/proc/$1/status" 2>/dev/null || echo 0; }
# cpu_ticks PID: utime + stime (all threads, /proc/PID/stat fields 14 and 15), in clock ticks
cpu_ticks() {
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || { echo 0; return; }
  # shellcheck disable=SC2086 # the fields after "(comm) ", split on purpose
  set -- ${stat##*) }
  echo $((${12} + ${13}))
}
CLK_TCK="$(getconf CLK_TCK)"
# settle PID...: waits until none of the processes uses CPU any more (their ticks unchanged
# over SETTLE_QUIET samples 0.1 s apart), at most SETTLE_MAX seconds; prints the ticks they
# used meanwhile. A SEND round starts with both daemons settled (their checkpoint workers
# share the servers' CPU: the work one round left would slow the next, another daemon's), and
# the work a round leaves is charged to it (report.py: the settled rate). It first waits
# SETTLE_DELAY seconds, counted too: a daemon checkpoints what its journal still holds at the
# store monitor's second tick after its last commit (`MachineStore.checkpointWhenIdle`, a tick
# a second), and without the wait that work, up to a checkpoint's worth of journal, fell
# between the rounds, charged to none.
SETTLE_QUIET=3
SETTLE_DELAY=2.2
SETTLE_MAX=60
total_ticks() {
  local sum=0 pid
  for pid in "$@"; do sum=$((sum + $(cpu_ticks "$pid"))); done
  echo "$sum"
}
settle() {
  local start last now quiet=0 i
  start=$(total_ticks "$@")
  sleep "$SETTLE_DELAY"
  last=$(total_ticks "$@"); now=$last
  for i in $(seq $((SETTLE_MAX * 10))); do
    sleep 0.1
    now=$(total_ticks "$@")
    if [ "$now" = "$last" ]; then
      quiet=$((quiet + 1))
      [ "$quiet" -ge "$SETTLE_QUIET" ] && break
    else
      quiet=0
    fi
    last=$now
  done
  echo $((now - start))
}
alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }

# retire KEY PID: a daemon that should no longer run (a step stopped early) is killed before
# another one takes its socket, and the report says so
retire() {
  if alive "$2"; then
    fact_s "$1" "a daemon left running by an earlier step was killed (kill -9)"
    log "$1: killing $2"
    kill -KILL "$2" 2>/dev/null || true
  fi
  wait "$2" 2>/dev/null || true
}

# start_millraced DATA SOCKET MAX_MACHINES MAX_TIMERS: sets DPID and EXEC_NS (just before exec)
start_millraced() {
  local flags=(--socket "$2" --data "$1" --machines "$MACHINES" --durability batched
    --max-machines "$3" --max-timers "$4")
  echo "== $(date -Is) ${flags[*]}" >>"$RAW/millraced.log"
  EXEC_NS="${EPOCHREALTIME/./}000"
  "${ON_SERVER[@]}" "$MILLRACED" "${flags[@]}" >>"$RAW/millraced.log" 2>&1 &
  DPID=$!
  PIDS+=("$DPID")
}

# start_redis DIR EXTRA_FLAGS...: sets RPID and EXEC_NS
start_redis() {
  local dir="$1"
  shift
  EXEC_NS="${EPOCHREALTIME/./}000"
  "${ON_SERVER[@]}" redis-server --port 0 --unixsocket "$RSOCK" --unixsocketperm 700 \
    --dir "$dir" --dbfilename dump.rdb --save '' --daemonize no \
    --logfile "$RAW/redis.log" "$@" &
  RPID=$!
  PIDS+=("$RPID")
}

# ready KEY SOCKET PID [-I SECTION] [-w LINE]...: time from EXEC_NS until PING, then the
# lines; false when they did not come (in READY_TIMEOUT, or the process exited)
ready() {
  local key="$1" sock="$2" pid="$3"
  shift 3
  local out
  out="$(gen ready -s "$sock" -t "$EXEC_NS" -p "$pid" -T "$READY_TIMEOUT" "$@")" || true
  fact "$key" "${out:-null}"
  log "$key: $out"
  [[ "$out" == *'"ready_seconds": '[0-9]* ]]
}

# stop_proc KEY PID: SIGTERM and the time until it is gone; its exit status too
stop_proc() {
  local key="$1" pid="$2" out status=0
  out="$(gen stop -p "$pid" -T "$STOP_TIMEOUT")" || true
  wait "$pid" 2>/dev/null || status=$?
  fact "$key" "${out:-null}"
  fact "$key.exit_status" "$status"
  log "$key: $out (exit status $status)"
}

# load KEY SOCKET EXPECT COUNT WORD...: COUNT requests, pipelined, timed
load() {
  local key="$1" sock="$2" expect="$3" count="$4" out
  shift 4
  out="$(gen run -s "$sock" -c "$LOAD_CONNS" -d "$LOAD_DEPTH" -n "$count" -e "$expect" \
    -T "$RUN_TIMEOUT" -- "$@")" || true
  fact "$key" "${out:-null}"
  log "$key: $out"
}

# info_field SOCKET SECTION FIELD: one INFO field
info_field() {
  local v
  v="$(timeout 60 redis-cli -s "$1" INFO "$2" 2>/dev/null | tr -d '\r' | awk -F: -v f="$3" '$1 == f { print $2 }')" || true
  echo "${v:-null}"
}

# disk KEY DIR: the size of a directory, allocated blocks (judged) and apparent size, per file too
disk() {
  fact "$1.allocated" "$(du -B1 -s "$2" | cut -f1)"
  fact "$1.apparent" "$(du -B1 --apparent-size -s "$2" | cut -f1)"
  fact_s "$1.files" "$(find "$2" -type f -printf '%P: %s bytes, %k KiB allocated; ')"
}

# rss_return KEY PID BASELINE GROWTH: polls RSS for RSS_WAIT seconds until it is within 10 % of
# GROWTH above BASELINE; records the last figure and when it got there
rss_return() {
  local key="$1" pid="$2" base="$3" growth="$4" start now r limit waited=-1
  limit=$((base + growth / 10))
  start="$(now_ns)"
  while :; do
    r="$(rss "$pid")"
    now="$(now_ns)"
    if [ "$r" -le "$limit" ]; then waited=$(((now - start) / 1000000)); break; fi
    [ $((now - start)) -ge $((RSS_WAIT * 1000000000)) ] && break
    sleep 0.1
  done
  fact "$key.rss" "$r"
  fact "$key.waited_ms" "$waited"
  log "$key: RSS $r (limit $limit), waited ${waited} ms"
}


# The whole scenario is one function, so that a shell error that bash answers by abandoning the
# current top-level command (an arithmetic expansion error does that even under set -e) cannot
# skip half a step and go on with the next: SCENARIO_DONE stays 0 and the run stops there.
SCENARIO_DONE=0
scenario() {
# --- 0. the machine and the machine files --------------------------------------------------------
fact n "$N"
fact small_n "$SMALL"
fact nproc "$NCPU"
fact mem_total "$(awk '/^MemTotal:/ { printf "%.0f\n", $2 * 1024 }' /proc/meminfo)"
fact_s cpu_model "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
fact_s kernel "$(uname -sr)"
fact_s loadavg_start "$(cut -d' ' -f1-3 /proc/loadavg)"
fact_s redis_version "$(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/')"
fact_s millraced "$MILLRACED"
fact_s commit "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD -- Sources 2>/dev/null || echo ' (Sources modified)')"
fact_s started "$(date -u '+%Y-%m-%d %H:%M UTC')"
fact ready_timeout "$READY_TIMEOUT"
fact stop_timeout "$STOP_TIMEOUT"
fact send_rounds "$ROUNDS"
fact send_seconds "$SEND_SECONDS"
fact_s send_load "$SEND_CONNS connections x $SEND_DEPTH deep, SEND dev:<random> flip"
fact_s load_shape "$LOAD_CONNS connection, $LOAD_DEPTH requests in flight"

mkdir -p "$MACHINES"
cp "$ROOT/examples/machines/toggle.json" "$MACHINES/"
# sleeper: `arm` sets a one-hour timer, so N timers stay pending for the whole run
cat >"$MACHINES/sleeper.json" <<'EOF'
{
  "kind": "sleeper",
  "initial": "idle",
  "transitions": [
    { "on": "arm", "from": "idle", "to": "armed",
      "effects": [ { "after": "1h", "send": "wake", "id": "alarm" } ] },
    { "on": "wake", "from": "armed", "to": "idle" }
  ]
}
EOF
fact_s flags_big "--durability batched --max-machines $N --max-timers $N"
fact_s flags_small "--durability batched --max-machines $SMALL --max-timers $SMALL"
log "N=$N, $NCPU CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); raw files in $RAW"

# --- 1. the small daemon (1,000 machines): the SEND peer, and the RSS of an empty daemon --------
mkdir -p "$TMP/small"
start_millraced "$TMP/small" "$SMALL_SOCK" "$SMALL" "$SMALL"
SPID=$DPID
ready small.ready "$SMALL_SOCK" "$DPID" || { log "the small daemon does not answer"; exit 1; }
sleep 0.2
fact small.rss_empty "$(rss "$SPID")"
load small.spawn "$SMALL_SOCK" ok "$SMALL" SPAWN toggle dev:%i

# --- 2. the big daemon, its bystander, SPAWN N ---------------------------------------------------
start_bystander "$SOCK" "$RAW/bystander-millraced.txt"
mkdir -p "$TMP/data"
start_millraced "$TMP/data" "$SOCK" "$N" "$N"
ready start.ready "$SOCK" "$DPID" || { log "millraced does not answer"; exit 1; }
sleep 0.5
BASE=$(rss "$DPID")
fact start.rss "$BASE"
mark millraced spawn begin
load spawn "$SOCK" ok "$N" SPAWN toggle dev:%i
mark millraced spawn end
fact spawn.rss "$(rss "$DPID")"
sleep 1
SPAWNED_RSS=$(rss "$DPID")
fact spawn.rss_1s "$SPAWNED_RSS"
HAVE="$(info_field "$SOCK" millrace machines)"
fact spawn.info_machines "$HAVE"
# the restarts wait for the machines the daemon had, N unless SPAWN fell short (its own FAIL)
case "$HAVE" in '' | *[!0-9]*) HAVE=$N ;; esac
disk store_live "$TMP/data"

# --- 3. SEND to random machines: N machines against 1,000, rounds interleaved -------------------
send_round() { # KEY SOCKET PID RANGE
  local key="$1" sock="$2" pid="$3" range="$4" before after out
  settle "$SPID" "$DPID" >/dev/null
  before=$(cpu_ticks "$pid")
  out="$(gen run -s "$sock" -c "$SEND_CONNS" -d "$SEND_DEPTH" -D "$SEND_SECONDS" -r "$range" \
    -S "$RANDOM" -e array2 -T "$RUN_TIMEOUT" -- SEND 'dev:%r' flip)" || true
  after=$(cpu_ticks "$pid")
  fact "$key" "${out:-null}"
  fact "$key.cpu_ticks" "$((after - before))"
  fact "$key.settle_ticks" "$(settle "$pid")"
  log "$key: $out"
}
fact clk_tck "$CLK_TCK"
for round in $(seq 1 "$ROUNDS"); do
  send_round "send.small.$round" "$SMALL_SOCK" "$SPID" "$SMALL"
  mark millraced "send" begin
  send_round "send.big.$round" "$SOCK" "$DPID" "$N"
  mark millraced "send" end
done
stop_proc small.stop "$SPID"

# --- 4. states to check after the restart; the clean stop; the store at rest -------------------
mark millraced sample begin
out="$(gen pick -s "$SOCK" -n "$SAMPLES" -r "$N" -S 7 -o "$RAW/states.txt")" || true
mark millraced sample end
fact sample "${out:-null}"
fact info_rss_before_stop "$(rss "$DPID")"
mark millraced stop begin
stop_proc stop "$DPID"
mark millraced stop end
disk store_rest "$TMP/data"

# --- 5. restart after the clean stop ---------------------------------------------------------------
start_millraced "$TMP/data" "$SOCK" "$N" "$N"
if ready restart "$SOCK" "$DPID" -I millrace -w "machines:$HAVE"; then
  mark millraced restart begin
  out="$(gen check -s "$SOCK" -f "$RAW/states.txt")" || true
  fact restart.check "${out:-null}"
  log "restart.check: $out"
  sleep 1 # the bystander's window: the check, then a second of the restarted daemon idle
  mark millraced restart end
else
  fact restart.info_machines "$(info_field "$SOCK" millrace machines)"
fi
fact restart.rss "$(rss "$DPID")"

# --- 6. flip some machines, kill -9, restart --------------------------------------------------------
if alive "$DPID"; then
  mark millraced flip begin
  out="$(gen pick -s "$SOCK" -n "$FLIPS" -r "$N" -S 8 -i flip -o "$RAW/flips.txt")" || true
  mark millraced flip end
  fact flip "${out:-null}"
  kill -KILL "$DPID"
  wait "$DPID" 2>/dev/null || true
  start_millraced "$TMP/data" "$SOCK" "$N" "$N"
  if ready kill9 "$SOCK" "$DPID" -I millrace -w "machines:$HAVE"; then
    mark millraced kill9-restart begin
    out="$(gen check -s "$SOCK" -f "$RAW/flips.txt")" || true
    fact kill9.check "${out:-null}"
    log "kill9.check: $out"
    sleep 1
    mark millraced kill9-restart end
  else
    fact kill9.info_machines "$(info_field "$SOCK" millrace machines)"
  fi
else
  fact_s kill9.error "the daemon was not running after the restart"
fi

# --- 7. KILL every machine; RSS returns --------------------------------------------------------------
if alive "$DPID"; then
  # the growth SPAWN caused, against the baseline of this daemon's first start
  mark millraced kill begin
  load kill "$SOCK" ok "$N" KILL dev:%i
  mark millraced kill end
  fact kill.info_machines "$(info_field "$SOCK" millrace machines)"
  rss_return kill "$DPID" "$BASE" "$((SPAWNED_RSS - BASE))"
  stop_proc kill.stop "$DPID"
else
  fact_s kill.error "the daemon was not running after the kill -9 restart"
fi
retire kill.leftover "$DPID"
rm -rf "$TMP/data"

# --- 8. N pending timers: spawn and arm N sleepers, stop, restart, kill -9, restart -----------------------------------
mkdir -p "$TMP/timers"
start_millraced "$TMP/timers" "$SOCK" "$N" "$N"
if ready timers.start.ready "$SOCK" "$DPID"; then
  mark millraced timers-spawn begin
  load timers.spawn "$SOCK" ok "$N" SPAWN sleeper s:%i
  mark millraced timers-spawn end
  mark millraced timers-arm begin
  load timers.arm "$SOCK" array2 "$N" SEND s:%i arm
  mark millraced timers-arm end
  TIMERS="$(info_field "$SOCK" millrace timers)"
  fact timers.info_timers "$TIMERS"
  THAVE="$(info_field "$SOCK" millrace machines)"
  case "$TIMERS" in '' | *[!0-9]*) TIMERS=$N ;; esac
  case "$THAVE" in '' | *[!0-9]*) THAVE=$N ;; esac
  fact timers.rss "$(rss "$DPID")"
  mark millraced timers-stop begin
  stop_proc timers.stop "$DPID"
  mark millraced timers-stop end
  disk timers.store "$TMP/timers"
  start_millraced "$TMP/timers" "$SOCK" "$N" "$N"
  if ready timers.restart "$SOCK" "$DPID" -I millrace -w "machines:$THAVE" -w "timers:$TIMERS"; then
    mark millraced timers-restart begin
    sleep 1 # the bystander's window: the daemon holding N timers, idle
    mark millraced timers-restart end
  fi
  fact timers.restart.info_timers "$(info_field "$SOCK" millrace timers)"
  # and after kill -9: every timer back again
  if alive "$DPID"; then
    kill -KILL "$DPID"
    wait "$DPID" 2>/dev/null || true
    start_millraced "$TMP/timers" "$SOCK" "$N" "$N"
    ready timers.kill9 "$SOCK" "$DPID" -I millrace -w "machines:$THAVE" -w "timers:$TIMERS" || true
    fact timers.kill9.info_timers "$(info_field "$SOCK" millrace timers)"
    if alive "$DPID"; then stop_proc timers.kill9.stop "$DPID"; fi
  fi
fi
retire timers.leftover "$DPID"
rm -rf "$TMP/timers"

# --- 9. redis-server: the same keys ------------------------------------------------------------------
start_bystander "$RSOCK" "$RAW/bystander-redis.txt"
mkdir -p "$TMP/redis"
start_redis "$TMP/redis" --appendonly no
ready redis.start.ready "$RSOCK" "$RPID" || { log "redis-server does not answer"; exit 1; }
sleep 0.5
RBASE=$(rss "$RPID")
fact redis.start.rss "$RBASE"
mark redis spawn begin
load redis.load "$RSOCK" int "$N" HSET dev:%i kind toggle state off
mark redis spawn end
sleep 1
RLOADED=$(rss "$RPID")
fact redis.load.rss_1s "$RLOADED"
# HSET to random keys: all N against the first 1,000 (redis-server's own N-to-1,000 ratio, beside
# the daemon's), rounds interleaved as the daemon's are
redis_send_round() { # KEY RANGE
  local before out
  settle "$RPID" >/dev/null
  before=$(cpu_ticks "$RPID")
  out="$(gen run -s "$RSOCK" -c "$SEND_CONNS" -d "$SEND_DEPTH" -D "$SEND_SECONDS" -r "$2" \
    -S "$RANDOM" -e int -T "$RUN_TIMEOUT" -- HSET 'dev:%r' state on)" || true
  fact "$1.cpu_ticks" "$(($(cpu_ticks "$RPID") - before))"
  fact "$1.settle_ticks" "$(settle "$RPID")"
  fact "$1" "${out:-null}"
  log "$1: $out"
}
mark redis send begin
for round in $(seq 1 "$ROUNDS"); do
  redis_send_round "redis.send.small.$round" "$SMALL"
  redis_send_round "redis.send.big.$round" "$N"
done
mark redis send end
# RDB: SAVE, then a restart from it
t0="$(now_ns)"
timeout 600 redis-cli -s "$RSOCK" SAVE >/dev/null
fact redis.save.seconds "$(elapsed "$t0")"
fact redis.rdb.bytes "$(stat -c %s "$TMP/redis/dump.rdb")"
disk redis.rdb "$TMP/redis"
stop_proc redis.stop_rdb "$RPID"
start_redis "$TMP/redis" --appendonly no
ready redis.restart_rdb "$RSOCK" "$RPID" -I keyspace -w "db0:keys=$N" || true
# AOF: appendonly yes (a plain command log, no RDB preamble) and a rewrite, then a restart
timeout 60 redis-cli -s "$RSOCK" CONFIG SET aof-use-rdb-preamble no >/dev/null
t0="$(now_ns)"
timeout 60 redis-cli -s "$RSOCK" CONFIG SET appendonly yes >/dev/null
sleep 0.1
timeout 60 redis-cli -s "$RSOCK" BGREWRITEAOF >/dev/null 2>&1 || true
for _ in $(seq 1 6000); do
  [ "$(info_field "$RSOCK" persistence aof_rewrite_in_progress)" = 0 ] &&
    [ "$(info_field "$RSOCK" persistence aof_rewrite_scheduled)" = 0 ] && break
  sleep 0.1
done
fact redis.aof_rewrite.seconds "$(elapsed "$t0")"
rm -f "$TMP/redis/dump.rdb"
mark redis stop begin
stop_proc redis.stop_aof "$RPID"
mark redis stop end
disk redis.aof "$TMP/redis/appendonlydir"
start_redis "$TMP/redis" --appendonly yes --aof-use-rdb-preamble no
ready redis.restart_aof "$RSOCK" "$RPID" -I keyspace -w "db0:keys=$N" || true
fact redis.restart_aof.rss "$(rss "$RPID")"
# DEL every key, appendonly yes (appendfsync everysec): the peer of KILL
mark redis kill begin
load redis.del "$RSOCK" int "$N" DEL dev:%i
mark redis kill end
rss_return redis.del "$RPID" "$RBASE" "$((RLOADED - RBASE))"
stop_proc redis.stop "$RPID"
SCENARIO_DONE=1
}
scenario
if [ "$SCENARIO_DONE" != 1 ]; then
  log "the scenario stopped early (a shell error, above)"
  exit 1
fi

# --- the report ------------------------------------------------------------------------------------
for pid in "${BYSTANDERS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
for pid in "${BYSTANDERS[@]}"; do wait "$pid" 2>/dev/null || true; done
BYSTANDERS=()
fact_s loadavg_end "$(cut -d' ' -f1-3 /proc/loadavg)"
fact seconds_total "$SECONDS"
REPORTED=1
status=0
python3 "$HERE/report.py" --raw "$RAW" --out "$OUT" || status=$?
exit "$status"
