# Sourced by the scripts that drive a release millraced in a temporary directory (load.sh,
# soak.sh, crash.sh): moves to the repository, checks the daemon binary, makes `$work`, and on
# exit stops the daemon (`$daemon_pid`, or the pid in `$work/daemon.pid` for a driver that
# restarts it) and removes `$work`.
#
#   source "$(dirname "$0")/daemon_env.sh" NAME "${1:-}"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ in the tree
MILLRACED=${2:-${MILLRACED:-.build/release/millraced}}
if [ ! -x "$MILLRACED" ]; then
  echo "no millraced at $MILLRACED: swift build -c release --product millraced" >&2
  exit 2
fi

work=$(mktemp -d "/tmp/millrace-$1.XXXXXX")
daemon_pid=""
cleanup() {
  if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
    kill -TERM "$daemon_pid" 2>/dev/null || true
    wait "$daemon_pid" 2>/dev/null || true
  elif [ -s "$work/daemon.pid" ]; then
    pid=$(cat "$work/daemon.pid")
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# After the clients: fails if the daemon died (printing its log), else shows what it logged
# and exits with `$1`, the clients' status.
finish() {
  if ! kill -0 "$daemon_pid" 2>/dev/null; then
    echo "FAIL: millraced died; its log:" >&2
    cat "$work/daemon.log" >&2
    exit 1
  fi
  if [ -s "$work/daemon.log" ]; then
    echo "daemon log (warnings and errors):"
    head -20 "$work/daemon.log"
  fi
  exit "$1"
}
