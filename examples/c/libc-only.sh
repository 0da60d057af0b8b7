#!/bin/sh
# Fails unless the executable $1 needs libc alone: its only NEEDED library is libc.so.6, and
# every undefined symbol nm lists (weak toolchain hooks such as __gmon_start__ aside) is one
# that libc defines.
set -eu
binary=$1
cc=${CC:-cc}
libc=$($cc -print-file-name=libc.so.6)

needed=$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
if [ "$needed" != "libc.so.6" ]; then
  echo "libc-only: $binary needs: $needed" >&2
  exit 1
fi
nm -u "$binary" | awk '$1 == "U" { sub(/@.*/, "", $2); print $2 }' | sort -u >"$binary.undefined"
nm -D --defined-only "$libc" | awk '{ sub(/@.*/, "", $3); print $3 }' | sort -u >"$binary.libc"
outside=$(comm -23 "$binary.undefined" "$binary.libc")
count=$(wc -l <"$binary.undefined")
rm -f "$binary.undefined" "$binary.libc"
if [ -n "$outside" ]; then
  echo "libc-only: $binary references symbols outside libc:" $outside >&2
  exit 1
fi
echo "libc-only: $binary needs libc.so.6 alone ($count undefined symbols, all in libc)"
