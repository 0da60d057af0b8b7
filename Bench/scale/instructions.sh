#!/usr/bin/env bash
# instructions.sh DAEMON MACHINES SENDS OUT: instructions a SEND, thread by thread, under make
# scale's SEND load (50 connections x 16 deep, SEND dev:<random> flip), counted by callgrind,
# which reads the same whatever else the VM does. The daemon runs under valgrind with every
# thread apart; MACHINES toggles are spawned, the counts zeroed, SENDS requests sent, and the
# counts dumped 10 s later (a checkpoint that falls due in between is counted). Prints each
# thread's instructions a SEND (the loop is the one with the most, the checkpoint worker the
# next), and writes OUT/<thread>.tsv: each function's own instructions a SEND, demangled,
# largest first, to compare two builds with `join` (callgrind_annotate 3.19 puts every
# inlined function's cost on the loop's run function). The dumps stay in OUT.
# Needs valgrind and the load generator (make scale-build). The lookahead runs from 65,536
# machines: 200,000 machines and SENDs take about a minute.
#
#   Bench/scale/instructions.sh .build/release/millraced 200000 200000 /tmp/cg-new
set -euo pipefail
BIN=$1 N=$2 SENDS=$3 OUT=$4
SCALE_PIN=0
. "$(dirname "$0")/lib.sh"
command -v valgrind >/dev/null || { echo "instructions.sh needs valgrind" >&2; exit 1; }
mkdir -p "$OUT" "$D/d/m" "$D/d/data"
rm -f "$OUT"/callgrind.* "$OUT"/*.tsv
cp "$ROOT/examples/machines/toggle.json" "$D/d/m/"
valgrind --tool=callgrind --separate-threads=yes --compress-strings=no --compress-pos=no \
  --callgrind-out-file="$OUT/callgrind.%p" "$BIN" --socket "$D/d/s" --data "$D/d/data" \
  --machines "$D/d/m" --durability batched --max-machines "$N" --max-timers "$N" \
  >"$D/d/log" 2>&1 &
P=$!
DAEMONS+=("$P")
for _ in $(seq 1 300); do [ -S "$D/d/s" ] && break; sleep 0.2; done
"$GEN" run -s "$D/d/s" -c 1 -d 1000 -n "$N" -e ok -T 900 -- SPAWN toggle dev:%i >/dev/null
sleep 8
callgrind_control -z "$P" >/dev/null 2>&1
"$GEN" run -s "$D/d/s" -c 50 -d 16 -n "$SENDS" -r "$N" -S 7 -e array2 -T 900 \
  -- SEND 'dev:%r' flip >/dev/null
sleep 10
callgrind_control -d "$P" >/dev/null 2>&1
sleep 1
# Each thread's dump after the zero: its total, and its functions' own costs.
python3 - "$OUT" "$SENDS" <<'EOF'
import glob, os, subprocess, sys
out, sends = sys.argv[1], float(sys.argv[2])
for path in sorted(glob.glob(os.path.join(out, 'callgrind.*.1-*'))):
    own, fn, skip = {}, None, False
    for line in open(path):
        if line.startswith('fn='):
            fn = line[3:].strip()
        elif line.startswith('calls='):
            skip = True  # the next cost line is the call's, not the function's own
        elif line[:1].isdigit():
            if skip:
                skip = False
                continue
            parts = line.split()
            if fn and len(parts) >= 2:
                own[fn] = own.get(fn, 0) + int(parts[1])
    thread = path.rsplit('-', 1)[1]
    total = sum(own.values())
    print('thread %s: %.1f instructions a SEND' % (thread, total / sends))
    names = sorted(own, key=lambda name: -own[name])
    demangled = subprocess.run(['swift', 'demangle', '--simplified'], input='\n'.join(names),
                               capture_output=True, text=True).stdout.split('\n')
    with open(os.path.join(out, thread + '.tsv'), 'w') as table:
        for name, readable in zip(names, demangled):
            table.write('%.1f\t%s\n' % (own[name] / sends, readable))
EOF
