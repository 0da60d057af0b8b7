#!/usr/bin/env python3
"""Names the functions behind Bench/C/lines' counts.

    lines.py MAPS PREFIX REQUESTS [TOP]

MAPS is the traced process's /proc/PID/maps (under valgrind, its guest's mappings), PREFIX the
files `lines` wrote (PREFIX.i: code lines, PREFIX.d: the instructions that touched data lines
first). Prints, per request, the code lines and the first-touched data lines of each object
and of the TOP functions (Swift names demangled by `swift demangle` when it is there)."""
import bisect
import collections
import shutil
import subprocess
import sys


def read_maps(path):
    """{object path: (load base, [(start, end)])} for every file-backed mapping."""
    objects = {}
    for line in open(path):
        parts = line.split()
        if len(parts) < 6 or not parts[5].startswith("/"):
            continue
        start, end = (int(x, 16) for x in parts[0].split("-"))
        base, ranges = objects.get(parts[5], (None, []))
        if int(parts[2], 16) == 0 and base is None:
            base = start
        ranges.append((start, end))
        objects[parts[5]] = (base, ranges)
    return objects


class Symbols:
    def __init__(self, maps):
        self.objects = read_maps(maps)
        self.tables = {}

    def table(self, path):
        if path not in self.tables:
            symbols = []
            for dynamic in ([], ["-D"]):
                out = subprocess.run(["nm", "--defined-only", *dynamic, path],
                                     capture_output=True, text=True).stdout
                for line in out.splitlines():
                    parts = line.split(" ", 2)
                    if len(parts) == 3 and parts[1] in "tTwW":
                        symbols.append((int(parts[0], 16), parts[2]))
            symbols.sort()
            self.tables[path] = ([a for a, _ in symbols], [s for _, s in symbols])
        return self.tables[path]

    def name(self, address):
        """(object's file name, function) of an address."""
        for path, (base, ranges) in self.objects.items():
            if any(start <= address < end for start, end in ranges):
                addresses, names = self.table(path)
                i = bisect.bisect_right(addresses, address - (base or 0)) - 1
                return path.rsplit("/", 1)[-1], names[i] if i >= 0 else "?"
        return "?", hex(address)


def demangled(names):
    swift = shutil.which("swift")
    if not swift or not names:
        return {n: n for n in names}
    out = subprocess.run([swift, "demangle", "--simplified", "--compact"], input="\n".join(names),
                         capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def main():
    maps, prefix, requests = sys.argv[1], sys.argv[2], int(sys.argv[3])
    top = int(sys.argv[4]) if len(sys.argv) > 4 else 40
    symbols = Symbols(maps)
    for suffix, title in (("i", "code lines"), ("d", "data lines, by the function that touched each first")):
        by_function, by_object = collections.Counter(), collections.Counter()
        for line in open(f"{prefix}.{suffix}"):
            address, count = line.split()
            obj, function = symbols.name(int(address, 16))
            by_function[(obj, function)] += int(count)
            by_object[obj] += int(count)
        print(f"{title} per request: {sum(by_object.values()) / requests:.1f}")
        for obj, count in by_object.most_common():
            print(f"  {count / requests:6.1f}  {obj}")
        shown = by_function.most_common(top)
        names = demangled([f for (_, f), _ in shown])
        for (obj, function), count in shown:
            print(f"  {count / requests:6.1f}  {obj}: {names[function][:140]}")
        print()


if __name__ == "__main__":
    main()
