#!/bin/sh
# footprint.sh MAP REPORT [CEILINGS] - the footprint report of `make footprint-arm`
# (mk/arm.mk): the bytes the linker kept from libmillrace.a, by kind, read from the link map
# MAP, with the RAM figures footprint.c printed (REPORT: its "name value" lines). Prints a
# Markdown table, then fails when a figure is above its ceiling in CEILINGS ("name bytes"
# lines, # comments): a regression gate, as Bench/budgets.json is for instruction counts.
set -eu
map=$1
report=$2
ceilings=${3:-}

# Input sections after "Linker script and memory map" (the kept ones) whose file is a member
# of libmillrace.a: code (.text, .rodata) and RAM (.data, .bss), the Swift runtime and
# standard library that Embedded Swift compiles into the library ($es..., swift_...) apart.
sizes=$(awk '
  function hex(text,   value, index_, digit) {
    value = 0
    for (index_ = 3; index_ <= length(text); index_++) {
      digit = index("0123456789abcdef", tolower(substr(text, index_, 1))) - 1
      value = value * 16 + digit
    }
    return value
  }
  /^Linker script and memory map/ { kept = 1; next }
  !kept { next }
  /^ \.[a-zA-Z_$.0-9]+/ { name = $1; if (NF < 3) next; addr = $2; size = $3; file = $4 }
  /^                0x/ { addr = $1; size = $2; file = $3 }
  file ~ /libmillrace\.a\(/ && size ~ /^0x/ {
    bytes = hex(size); member = file; sub(/.*\(/, "", member); sub(/\).*/, "", member)
    ram = name ~ /^\.(data|bss)/
    if (member == "millrace-c.o" && !ram && (name ~ /\$es|swift_|_swift/)) part = "swift"
    else if (member == "millrace-c.o") part = "core"
    else part = "support"
    total[part, ram] += bytes
    file = ""
  }
  END {
    printf "core_code %d\nswift_code %d\nsupport_code %d\nlibrary_ram %d\n",
      total["core", 0], total["swift", 0], total["support", 0],
      total["core", 1] + total["swift", 1] + total["support", 1]
  }' "$map")

value() { printf '%s\n%s\n' "$sizes" "$(cat "$report")" | awk -v key="$1" '$1 == key { print $2 }'; }

core=$(value core_code); swift=$(value swift_code); support=$(value support_code)
code=$((core + swift + support))
ram=$(value library_ram); runtime=$(value runtime_bytes); buffer=$(value buffer_bytes)
machine=$(value machine_bytes); header=$(value header_bytes); queue=$(value queue_entry_bytes)
observer=$(value observer_bytes)

echo "| Cortex-M3, -Os, --gc-sections, newlib-nano; the auth scenario | Millrace | goal | QP/C |"
echo "|---|---|---|---|"
echo "| code: all of the library the program keeps | $code B | ≤ 8 KB | ~2.5 KB framework for auth (issue 24); ~4 KB published |"
echo "| - the C API's engine (Swift) | $core B | | |"
echo "| - Embedded Swift runtime and standard library compiled in | $swift B | | |"
echo "| - C support (target shims) | $support B | | |"
echo "| static RAM: the library's own variables | $ram B | | |"
echo "| static RAM: the runtime's array (of $buffer B given by MILLRACE_RUNTIME_BYTES) | $runtime B | ≤ 1 KB, no heap | 240 B, no heap |"
echo "| - its header (clock, pools, statistics) | $header B | | |"
echo "| RAM per machine beyond its queue slots (its record) | $machine B | ≤ 48 B | ~ an active object's struct and queue |"
echo "| - each effect queue it declares; each observer registration | $queue B; $observer B | | |"
echo "| heap | none: the library never calls it | none | none |"

[ -n "$ceilings" ] || exit 0
over=0
for name in code library_ram runtime_bytes machine_bytes; do
  case $name in
    code) measured=$code ;;
    library_ram) measured=$ram ;;
    runtime_bytes) measured=$runtime ;;
    machine_bytes) measured=$machine ;;
  esac
  ceiling=$(awk -v key="$name" '$1 == key { print $2 }' "$ceilings")
  if [ -z "$ceiling" ]; then
    echo "footprint: $ceilings has no ceiling for $name"; over=1
  elif [ "$measured" -gt "$ceiling" ]; then
    echo "footprint: $name is $measured B, above its ceiling of $ceiling B ($ceilings)"; over=1
  fi
done
exit $over
