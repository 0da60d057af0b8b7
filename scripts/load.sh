#!/usr/bin/env bash
# Load: one millraced on a Unix socket in a temporary directory, LOAD_CLIENTS (1000)
# concurrent connections, each pipelining LOAD_COMMANDS (200) SENDs to its own counter in
# windows of LOAD_WINDOW (50); every reply is checked byte for byte and in order, and the
# daemon's RSS is reported before, at peak and after the clients leave.
#
#   scripts/load.sh [path/to/millraced]      (default: .build/release/millraced)
set -euo pipefail

source "$(dirname "$0")/daemon_env.sh" load "${1:-}"
CLIENTS=${LOAD_CLIENTS:-1000}
COMMANDS=${LOAD_COMMANDS:-200}
WINDOW=${LOAD_WINDOW:-50}

# Both the daemon and the clients need a descriptor per connection.
ulimit -n "$(( CLIENTS * 2 + 512 ))" 2>/dev/null || ulimit -n "$(ulimit -Hn)"

"$MILLRACED" --socket "$work/d.sock" --data "$work/data" --machines examples/machines \
  --log-level warning >"$work/daemon.log" 2>&1 &
daemon_pid=$!

status=0
python3 scripts/load_clients.py --socket "$work/d.sock" --pid "$daemon_pid" \
  --clients "$CLIENTS" --commands "$COMMANDS" --window "$WINDOW" \
  ${LOAD_JSON:+--json "$LOAD_JSON"} || status=$?
finish "$status"
