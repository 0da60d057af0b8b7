#!/usr/bin/env bash
# The client matrix (issue 21, docs/clients.md): real Redis clients at their defaults against a
# millraced in a temporary directory; one line per client × step, exit 1 on any FAIL.
#
#   Tests/Clients/matrix.sh [millraced|redis]      (run by `make clients`)
#
# MILLRACED=path picks the daemon (default .build/debug/millraced). `redis` runs the very same
# checks against redis-server, where counter.lua emulates the `counter` kind: only the spelling of
# SPAWN / SEND / STATE differs (mcmd here, `cmd` in py_client.py, `mcmd` in hiredis_client.c).
set -uo pipefail
target=${1:-millraced}
here=$(cd "$(dirname "$0")" && pwd)
if [ "$target" = redis ]; then
  source "$here/../../scripts/daemon_env.sh" clients "$(command -v redis-server)"
else
  source "$here/../../scripts/daemon_env.sh" clients "${MILLRACED:-.build/debug/millraced}"
fi
PYTHON=${CLIENTS_PYTHON:-.build/clients-venv/bin/python}
HIREDIS_CLIENT=${HIREDIS_CLIENT:-.build/clients/hiredis_client}
STEP_TIMEOUT=5
sock=$work/d.sock

# report PASS|FAIL CLIENT STEP [REASON]: the matrix's one line (py_client.py and hiredis_client.c
# print the same).
report() {
  printf '%-4s  %-22s %-11s %s\n' "$1" "$2" "$3" "${4:-}" | sed 's/ *$//' | tee -a "$work/results"
}
oneline() { printf '"%s"' "$(printf '%s' "$1" | tr '\n' '|' | cut -c1-160)"; }

# verdict CLIENT STEP WANT GOT [STDERR-FILE] [STATUS]: WANT is exact, or a prefix when it ends in
# '*'; anything on stderr (a client's warning) or a timeout fails.
verdict() {
  local c=$1 s=$2 want=$3 got=$4 err=${5:-/dev/null} rc=${6:-0}
  if [ "$rc" -eq 124 ]; then report FAIL "$c" "$s" "timed out after ${STEP_TIMEOUT}s"
  elif [ -s "$err" ]; then report FAIL "$c" "$s" "stderr: $(oneline "$(head -c 300 "$err")")"
  elif [[ $want == *'*' && $got == "${want%\*}"* ]] || [[ $got == "$want" ]]; then
    report PASS "$c" "$s"
  else report FAIL "$c" "$s" "got $(oneline "$got"), want $(oneline "$want")"; fi
}

# expect CLIENT STEP WANT COMMAND...: runs COMMAND (stdin from $STDIN) under the step timeout.
expect() {
  local c=$1 s=$2 want=$3 got rc; shift 3
  got=$(timeout "$STEP_TIMEOUT" "$@" <"${STDIN:-/dev/null}" 2>"$work/err"); rc=$?
  verdict "$c" "$s" "$want" "$got" "$work/err" "$rc"
}

# mcmd SPAWN counter NAME | SEND NAME INPUT | STATE NAME: the words for the target.
mcmd() {
  if [ "$target" != redis ]; then echo "$*"; return; fi
  case $1 in
    SPAWN) echo "FCALL spawn 1 $3" ;;
    SEND) echo "FCALL send 1 $2 $3" ;;
    STATE) echo "GET $2" ;;
  esac
}
cli() { redis-cli -s "$sock" "$@"; }
# wait_lines FILE N: until FILE has N lines, 5 s at most.
wait_lines() { for _ in $(seq 50); do [ "$(wc -l <"$1")" -ge "$2" ] && return; sleep 0.1; done; }

# cli_pubsub CLIENT STEP WANT MACHINE SUBSCRIBE-COMMAND...: subscribes in the background, SENDs
# inc to MACHINE from another connection, and compares what the subscriber printed with WANT.
cli_pubsub() {
  local c=$1 s=$2 want=$3 m=$4 sub; shift 4
  : >"$work/sub"
  timeout "$STEP_TIMEOUT" "$@" >>"$work/sub" 2>"$work/err" & sub=$!
  wait_lines "$work/sub" 3
  cli $(mcmd SEND "$m" inc) >/dev/null
  wait_lines "$work/sub" "$(wc -l <<<"$want")"
  kill "$sub" 2>/dev/null; wait "$sub" 2>/dev/null
  verdict "$c" "$s" "$want" "$(cat "$work/sub")" "$work/err"
}

# The machines each scenario spawns under its prefix P: P.m (SEND, STATE), P.rej (a rejected
# input), P.pipe, P.tx, P.sub, P.psub, and 14 more so that SCAN with COUNT 5 takes several calls.
names() { printf "$1.%s\n" m rej pipe tx sub psub s01 s02 s03 s04 s05 s06 s07 s08 s09 s10 s11 s12 s13 s14; }

# The scenario with redis-cli: one invocation per step, its stdin mode where a step needs one
# connection (spawning, the transaction). It cannot pipeline: `-r 100` repeats on one connection.
cli_client() {
  local c=$1 p=$2; shift 2
  local r=(redis-cli -s "$sock" "$@")
  expect "$c" connect PONG "${r[@]}" PING
  names "$p" | while read -r n; do mcmd SPAWN counter "$n"; done >"$work/in"
  STDIN=$work/in expect "$c" spawn "$(names "$p" | sed 's/.*/OK/')" "${r[@]}"
  expect "$c" send $'0\n1' "${r[@]}" $(mcmd SEND "$p.m" inc)
  expect "$c" state 1 "${r[@]}" $(mcmd STATE "$p.m")
  expect "$c" nomachine "(error) NOMACHINE*" "${r[@]}" --no-raw $(mcmd SEND "$p.none" inc)
  expect "$c" rejected "(error) REJECTED dec in 0" "${r[@]}" --no-raw $(mcmd SEND "$p.rej" dec)
  expect "$c" pipeline "$(seq 0 99 | awk '{ print; print $1 + 1 }')" \
    "${r[@]}" -r 100 $(mcmd SEND "$p.pipe" inc)
  { echo MULTI; mcmd SEND "$p.tx" inc; mcmd SEND "$p.tx" inc; echo EXEC; } >"$work/in"
  STDIN=$work/in expect "$c" transaction $'OK\nQUEUED\nQUEUED\n0\n1\n1\n2' "${r[@]}"
  cli_pubsub "$c" pubsub "$(printf '%s\n' subscribe "$p.sub" 1 message "$p.sub" 'inc 0 1')" \
    "$p.sub" "${r[@]}" SUBSCRIBE "$p.sub"
  cli_pubsub "$c" psubscribe \
    "$(printf '%s\n' psubscribe "$p.ps*" 1 pmessage "$p.ps*" "$p.psub" 'inc 0 1')" \
    "$p.psub" "${r[@]}" PSUBSCRIBE "$p.ps*"
  expect "$c" scan "$(names "$p" | sort)" sh -c '"$@" | sort' sh "${r[@]}" --scan --pattern "$p.*"
  if [ "$target" = millraced ]; then  # a kind with data: arguments, the context (login.json)
    { echo "SPAWN login $p-login"; echo "SEND $p-login login 'ann lee' 1234"
      echo "STATE $p-login WITHCONTEXT"; } >"$work/in"
    STDIN=$work/in expect "$c" data $'OK\nidle\nsession\nsession\nattempts\n0\nuser\nann lee' \
      "${r[@]}"
  fi
}

# program CLIENT SECONDS COMMAND...: a client program that prints its own lines; it exits 1 when
# a step failed, anything else is a failure of the program itself.
program() {
  local c=$1 t=$2 rc; shift 2
  timeout "$t" "$@" 2>"$work/err" | tee -a "$work/results"; rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 124 ]; then report FAIL "$c" run "timed out after ${t}s"
  elif [ "$rc" -gt 1 ]; then report FAIL "$c" run "exited $rc: $(oneline "$(tail -3 "$work/err")")"
  fi
}

# clean CLIENT STEP OUTPUT REGEX...: OUTPUT has no warning or error line and matches every REGEX.
clean() {
  local c=$1 s=$2 out=$3 bad r; shift 3
  bad=$(grep -iE 'warn|error' <<<"$out" | head -1)
  if [ -n "$bad" ]; then report FAIL "$c" "$s" "$(oneline "$bad")"; return; fi
  for r; do
    if ! grep -qE "$r" <<<"$out"; then report FAIL "$c" "$s" "no line /$r/ in $(oneline "$out")"; return; fi
  done
  report PASS "$c" "$s"
}

# ---- the server
if [ "$target" = redis ]; then
  redis-server --port 0 --unixsocket "$sock" --unixsocketperm 700 --dir "$work" --save '' \
    --appendonly no --logfile "$work/redis.log" >"$work/daemon.log" 2>&1 &
else
  "$MILLRACED" --socket "$sock" --data "$work/data" --machines examples/machines \
    --durability none --log-level warning >"$work/daemon.log" 2>&1 &
fi
daemon_pid=$!
for _ in $(seq 100); do [ "$(cli PING 2>/dev/null)" = PONG ] && break; sleep 0.1; done
[ "$target" = redis ] && cli -x FUNCTION LOAD <"$here/counter.lua" >/dev/null
: >"$work/results"
echo "client matrix against $target ($MILLRACED); redis-py $("$PYTHON" -c 'import redis; print(redis.__version__)' 2>/dev/null || echo missing)"

# ---- the scenario clients
for mode in sync asyncio; do for proto in 3 2; do
  program "redis-py $mode RESP$proto" 60 \
    "$PYTHON" "$here/py_client.py" "$sock" "py-$mode-$proto" "$mode" "$proto" "$target"
done; done
if [ -x "$HIREDIS_CLIENT" ]; then
  program hiredis 60 "$HIREDIS_CLIENT" "$sock" hiredis "$target"
else
  report FAIL hiredis run "no $HIREDIS_CLIENT (make clients builds it)"
fi
cli_client redis-cli cli-2
cli_client "redis-cli -3" cli-3 -3

# ---- redis-cli --stat: a bounded run prints a row a second, and no error
out=$(timeout 3 stdbuf -oL redis-cli -s "$sock" --stat 2>&1); rc=$?
rows=$(grep -cE '^[0-9]+ +[0-9.]+[BKMGT]? +[0-9]+ +[0-9]+ +[0-9]+ \(\+[0-9]+\) +[0-9]+' <<<"$out")
if [ "$rc" -ne 124 ]; then report FAIL "redis-cli --stat" stat "exited $rc: $(oneline "$out")"
elif [ "$rows" -lt 2 ]; then report FAIL "redis-cli --stat" stat "$rows stat rows in $(oneline "$out")"
else clean "redis-cli --stat" stat "$out" '^keys +mem +clients +blocked +requests +connections'
fi

# ---- redis-cli --pipe: 1000 SENDs as RESP, then its ECHO
resp() { printf '*%d\r\n' $#; for w; do printf '$%d\r\n%s\r\n' ${#w} "$w"; done; }
cli $(mcmd SPAWN counter pipe.c) >/dev/null
for _ in $(seq 1000); do resp $(mcmd SEND pipe.c inc); done >"$work/in"
STDIN=$work/in expect "redis-cli --pipe" pipe 'errors: 0, replies: 1000' \
  sh -c '"$@" | tail -1' sh redis-cli -s "$sock" --pipe
expect "redis-cli --pipe" state 1000 redis-cli -s "$sock" $(mcmd STATE pipe.c)

# ---- redis-benchmark: no warning (it asks CONFIG GET save / appendonly), no error reply
out=$(timeout 30 redis-benchmark -s "$sock" -t ping -n 2000 -q 2>&1 | tr '\r' '\n')
clean redis-benchmark ping "$out" '^PING_INLINE: [0-9.]+ requests per second' \
  '^PING_MBULK: [0-9.]+ requests per second'
cli $(mcmd SPAWN counter bench.c) >/dev/null
out=$(timeout 30 redis-benchmark -s "$sock" -n 2000 -P 16 -q $(mcmd SEND bench.c inc) 2>&1 | tr '\r' '\n')
clean redis-benchmark send "$out" ': [0-9.]+ requests per second'
expect redis-benchmark state 2000 redis-cli -s "$sock" $(mcmd STATE bench.c)

# ---- prometheus-redis-exporter: one scrape of the socket; the metrics made of INFO's fields
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
prometheus-redis-exporter -redis.addr "unix://$sock" -web.listen-address "127.0.0.1:$port" \
  >"$work/exporter.log" 2>&1 &
exporter=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.1; done
metrics=$(curl -sf --max-time "$STEP_TIMEOUT" "http://127.0.0.1:$port/metrics")
kill "$exporter" 2>/dev/null; wait "$exporter" 2>/dev/null
# metric STEP NAME AWK-CONDITION: the sample NAME (no labels) is there and its value $2 passes.
metric() {
  local line; line=$(grep -E "^$2 " <<<"$metrics")
  if [ -z "$line" ]; then
    report FAIL exporter "$1" "no $2; $(oneline "$(grep -E '^redis_(up|exporter_last_scrape_error)' <<<"$metrics")")"
  elif awk "{ exit !($3) }" <<<"$line"; then report PASS exporter "$1" "$line"
  else report FAIL exporter "$1" "$line, want $3"; fi
}
metric up redis_up '$2 == 1'
metric clients redis_connected_clients '$2 >= 1'
metric memory redis_memory_used_bytes '$2 > 0'
metric commands redis_commands_processed_total '$2 > 0'
metric uptime redis_uptime_in_seconds '$2 >= 0'
if grep -q level=error "$work/exporter.log"; then
  echo "note: the exporter logged: $(grep level=error "$work/exporter.log" | sed 's/.*msg=//' | tr '\n' ' ')"
fi

passed=$(grep -c '^PASS' "$work/results"); failed=$(grep -c '^FAIL' "$work/results")
echo "client matrix against $target: $passed passed, $failed failed"
finish "$([ "$failed" -eq 0 ] && echo 0 || echo 1)"
