# Bench/scripts/lib.sh: what the scripts here that start servers of their own share (sourced).
#
#   workspace PREFIX      makes $WORK, a new temporary directory, and $PIDS, an empty list;
#                         at exit every process in $PIDS is killed and $WORK removed
#   wait_for_socket PATH  waits (up to 10 s) until a server on the Unix socket PATH answers
#                         PING; fails, saying so, if none does

workspace() {
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")"
  PIDS=()
  trap workspace_cleanup EXIT
}

workspace_cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}

wait_for_socket() {
  for _ in $(seq 1 200); do
    [ -S "$1" ] && redis-cli -s "$1" PING >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  echo "no server on $1" >&2
  return 1
}
