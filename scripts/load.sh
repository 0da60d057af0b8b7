#!/usr/bin/env bash
# Load: one millraced on a Unix socket in a temporary directory, LOAD_CLIENTS (1000)
# concurrent connections, each pipelining LOAD_COMMANDS (200) SENDs to its own counter in
# windows of LOAD_WINDOW (50); every reply is checked byte for byte and in order, and the
# daemon's RSS is reported before, at peak and after the clients leave.
#
#   scripts/load.sh [path/to/millraced]      (default: .build/release/millraced)
set -euo pipefail

cd "$(dirname "$0")/.."
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ in the tree
MILLRACED=${1:-${MILLRACED:-.build/release/millraced}}
CLIENTS=${LOAD_CLIENTS:-1000}
COMMANDS=${LOAD_COMMANDS:-200}
WINDOW=${LOAD_WINDOW:-50}
if [ ! -x "$MILLRACED" ]; then
  echo "no millraced at $MILLRACED: swift build -c release --product millraced" >&2
  exit 2
fi

# Both the daemon and the clients need a descriptor per connection.
ulimit -n "$(( CLIENTS * 2 + 512 ))" 2>/dev/null || ulimit -n "$(ulimit -Hn)"

work=$(mktemp -d /tmp/millrace-load.XXXXXX)
daemon_pid=""
cleanup() {
  if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
    kill -TERM "$daemon_pid" 2>/dev/null || true
    wait "$daemon_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$MILLRACED" --socket "$work/d.sock" --data "$work/data" --machines examples/machines \
  --log-level warning >"$work/daemon.log" 2>&1 &
daemon_pid=$!

status=0
python3 scripts/load_clients.py --socket "$work/d.sock" --pid "$daemon_pid" \
  --clients "$CLIENTS" --commands "$COMMANDS" --window "$WINDOW" \
  ${LOAD_JSON:+--json "$LOAD_JSON"} || status=$?
if ! kill -0 "$daemon_pid" 2>/dev/null; then
  echo "FAIL: millraced died during the load; its log:" >&2
  cat "$work/daemon.log" >&2
  exit 1
fi
if [ -s "$work/daemon.log" ]; then
  echo "daemon log (warnings and errors):"
  head -20 "$work/daemon.log"
fi
exit "$status"
