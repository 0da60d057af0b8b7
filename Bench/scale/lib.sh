# Shared by the measuring scripts of this directory (threads.sh, paired.sh, profile.sh):
# daemons started the way `make scale` starts them, toggles spawned, and make scale's SEND
# load. Source it after `set -euo pipefail`; it sets:
#   ROOT      the repository
#   GEN       the load generator (SCALEGEN, else .build/scale/scalegen: make scale-build)
#   D         a temporary directory, removed at exit with every daemon started
#   SERVER    the command prefix that pins a daemon to the last CPU
#   CLIENT    the one that pins a generator to the others
# (SCALE_PIN=0: neither pinned, as make scale's knob.)

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
GEN="${SCALEGEN:-$ROOT/.build/scale/scalegen}"
[ -x "$GEN" ] || {
  echo "no load generator at $GEN: run make scale-build (or set SCALEGEN)" >&2
  exit 1
}
D=$(mktemp -d)
DAEMONS=()
trap 'kill "${DAEMONS[@]}" 2>/dev/null || true; wait 2>/dev/null; rm -rf "$D"' EXIT
SERVER=() CLIENT=()
if [ "${SCALE_PIN:-1}" != 0 ] && [ "$(nproc)" -ge 2 ]; then
  SERVER=(taskset -c "$(($(nproc) - 1))") CLIENT=(taskset -c "0-$(($(nproc) - 2))")
fi

# scale_start NAME DAEMON MACHINES: starts DAEMON in the background with its own socket
# ($D/NAME/s), data directory and the toggle machine file, durability DURABILITY (batched),
# room for MACHINES machines and timers, its log in $D/NAME/log; its pid is in $!.
scale_start() {
  mkdir -p "$D/$1/m" "$D/$1/data"
  cp "$ROOT/examples/machines/toggle.json" "$D/$1/m/"
  "${SERVER[@]}" "$2" --socket "$D/$1/s" --data "$D/$1/data" --machines "$D/$1/m" \
    --durability "${DURABILITY:-batched}" --max-machines "$3" --max-timers "$3" >"$D/$1/log" 2>&1 &
  DAEMONS+=("$!")
}

# scale_spawn NAME MACHINES: waits for daemon NAME's socket, then spawns toggles dev:0 ...
# pipelined (1 connection, 1,000 in flight, every reply checked), and lets it settle.
scale_spawn() {
  for _ in $(seq 1 100); do [ -S "$D/$1/s" ] && break; sleep 0.1; done
  "${CLIENT[@]}" "$GEN" run -s "$D/$1/s" -c 1 -d 1000 -n "$2" -e ok -T 600 -- SPAWN toggle dev:%i >/dev/null
}

# scale_load NAME MACHINES SECONDS SEED: make scale's SEND load against daemon NAME (50
# connections x 16 deep, SEND dev:<random below MACHINES> flip); prints the generator's JSON.
scale_load() {
  "${CLIENT[@]}" "$GEN" run -s "$D/$1/s" -c 50 -d 16 -D "$3" -r "$2" -S "$4" -e array2 -T 900 -- SEND 'dev:%r' flip
}

# scale_field NAME: field NAME of the generator's JSON on stdin.
scale_field() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
