#!/usr/bin/env bash
# Bench/scripts/lines.sh: the distinct cache lines and pages one request touches in the C libuv
# echo server and in millraced (Bench/C/lines.c says why), under valgrind's lackey:
#   echo PING; millraced PING, SEND t flip with durability none and batched.
# Prints one line of means per case, then, with TOP=N (default 40), the functions that touch
# the most code lines and data lines per request (Bench/scripts/lines.py).
#
# Usage: Bench/scripts/lines.sh [CASE...]   CASE: echo, ping, none, batched (default: all four)
# Env:   MILLRACED=PATH  the daemon (default .build/release/millraced); REQUESTS=500 measured
#        after WARM=200; OUT=DIR for the raw files (default a temp dir, removed).
# Takes about a minute and a half a millraced case (lackey starts the daemon in about 60 s).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
MILLRACED="${MILLRACED:-$ROOT/.build/release/millraced}"
N="${REQUESTS:-500}"
WARM="${WARM:-200}"
BASE=0x108000 # where valgrind (amd64) loads a position-independent executable
for tool in valgrind nm redis-cli python3; do
  command -v "$tool" >/dev/null || { echo "lines.sh: $tool not found" >&2; exit 1; }
done
make -s -C "$ROOT/Bench/C" lines rtt echo >/dev/null
LINES="$ROOT/Bench/C/lines"
RTT="$ROOT/Bench/C/rtt"
OUT_DIR="${OUT:-}"
if [ -z "$OUT_DIR" ]; then
  OUT_DIR="$(mktemp -d "${TMPDIR:-/tmp}/millrace-lines.XXXXXX")"
  trap 'pkill -f "lackey.*$OUT_DIR" 2>/dev/null || true; rm -rf "$OUT_DIR"' EXIT
else
  mkdir -p "$OUT_DIR"
  trap 'pkill -f "lackey.*$OUT_DIR" 2>/dev/null || true' EXIT
fi

# marker BINARY SYMBOL: the symbol's address as valgrind loads BINARY
marker() {
  local offset
  offset="$(nm "$1" | awk -v s="$2" '$3 == s { print $1; exit }')"
  [ -n "$offset" ] || { echo "lines.sh: no symbol $2 in $1" >&2; exit 1; }
  printf '%x' $((BASE + 0x$offset))
}

# measure NAME BINARY SYMBOL SOCKET COMMAND... -- SERVER_ARGS...: one case
measure() {
  local name="$1" binary="$2" symbol="$3" sock="$4" mark pid i
  shift 4
  local command=()
  while [ "$1" != -- ]; do command+=("$1"); shift; done
  shift
  mark="$(marker "$binary" "$symbol")"
  (valgrind --tool=lackey --trace-mem=yes --log-fd=9 "$binary" "$@" 9>&1 1>/dev/null 2>/dev/null |
    "$LINES" "$mark" "$WARM" "$N" "$OUT_DIR/$name") 2>"$OUT_DIR/$name.log" &
  for i in $(seq 300); do
    [ -S "$sock" ] && redis-cli -s "$sock" PING >/dev/null 2>&1 && break
    sleep 1
  done
  pid="$(pgrep -f "lackey.*$sock" | head -1)"
  cp "/proc/$pid/maps" "$OUT_DIR/$name.maps"
  if ! grep -q "^0*$(printf '%x' $BASE)-.* $(readlink -f "$binary")\$" "$OUT_DIR/$name.maps"; then
    echo "lines.sh: valgrind did not load $binary at $BASE; the marker would be wrong" >&2
    exit 1
  fi
  [ "$binary" = "$MILLRACED" ] && redis-cli -s "$sock" SPAWN toggle t >/dev/null
  "$RTT" -s "$sock" -n $((WARM + N + 100)) -w 0 "${command[@]}" >/dev/null
  sleep 2
  pkill -f "lackey.*$sock" || true
  wait 2>/dev/null || true
  printf '%-26s %s\n' "$name:" "$(cat "$OUT_DIR/$name.log")"
  python3 "$ROOT/Bench/scripts/lines.py" "$OUT_DIR/$name.maps" "$OUT_DIR/$name" "$N" "${TOP:-40}" \
    >"$OUT_DIR/$name.functions.txt"
}

daemon() { # NAME DURABILITY COMMAND...
  local name="$1" durability="$2" dir="$OUT_DIR/$1"
  shift 2
  mkdir -p "$dir"
  measure "$name" "$MILLRACED" '$s10MillraceUV10ConnectionC7didReadyySiF' "$dir/m.sock" "$@" -- \
    --socket "$dir/m.sock" --data "$dir/data" --machines "$ROOT/examples/machines" \
    --durability "$durability" --log-level error
}

cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(echo ping none batched)
for c in "${cases[@]}"; do
  case "$c" in
    echo) measure echo-PING "$ROOT/Bench/C/echo" read_cb "$OUT_DIR/echo.sock" PING -- "$OUT_DIR/echo.sock" ;;
    ping) daemon millraced-PING batched PING ;;
    none) daemon millraced-none-SEND none SEND t flip ;;
    batched) daemon millraced-batched-SEND batched SEND t flip ;;
    *) echo "lines.sh: unknown case $c" >&2; exit 2 ;;
  esac
done
if [ "${TOP:-40}" != 0 ]; then
  for f in "$OUT_DIR"/*.functions.txt; do echo; echo "== $(basename "$f" .functions.txt)"; cat "$f"; done
fi
