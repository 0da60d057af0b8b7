/*
 * lines.c: the distinct cache lines and pages one request touches in a server's user space.
 *
 *   valgrind --tool=lackey --trace-mem=yes --log-fd=9 SERVER ... 9>&1 1>/dev/null |
 *     lines MARKER_HEX WARM N OUT_PREFIX
 *
 * Why it exists: a 1-client round trip runs the server right after the client and the kernel
 * (Bench/README.md, "Where a single-client round trip goes"), so what it pays for is the lines
 * and pages its path touches, not its instructions: cutting instructions, atomics or code size
 * did not move it. There is no PMU on these VMs to count misses; this counts what could miss.
 *
 * It reads lackey's trace ("I  addr,size" for an instruction fetch, " L|S|M addr,size" for a
 * data access) and splits it into requests at each fetch of MARKER, an instruction address
 * (the entry of the server's read callback as valgrind loads it: a PIE at 0x108000). It skips
 * WARM requests, then for the next N counts, per request, the distinct 64-byte code lines,
 * data lines, 4 KiB code pages and data pages, and prints their means (and instructions per
 * request) on stderr. It writes OUT_PREFIX.i (each code line's address and the requests that
 * touched it) and OUT_PREFIX.d (each instruction that touched a data line first in its request,
 * and how often), for lines.py to name.
 *
 * Build: cc -O2 -o lines lines.c   (or `make` in this folder).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAP (1u << 20)
typedef struct { uint64_t key; uint64_t gen; uint64_t val; } slot_t;
static slot_t *seen;      /* per-request set: lines (line << 1 | data) and pages (bit 62) */
static slot_t *iagg, *dagg; /* aggregates */
static uint64_t gen = 1;

static uint64_t hash(uint64_t x) { x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; return x; }

/* returns 1 if newly inserted this generation */
static int see(uint64_t key) {
  uint64_t h = hash(key) & (CAP - 1);
  for (;;) {
    slot_t *s = &seen[h];
    if (s->gen != gen) { s->gen = gen; s->key = key; return 1; }
    if (s->key == key) return 0;
    h = (h + 1) & (CAP - 1);
  }
}
static void add(slot_t *t, uint64_t key) {
  uint64_t h = hash(key) & (CAP - 1);
  for (;;) {
    slot_t *s = &t[h];
    if (!s->gen) { s->gen = 1; s->key = key; s->val = 1; return; }
    if (s->key == key) { s->val++; return; }
    h = (h + 1) & (CAP - 1);
  }
}
static void dump(slot_t *t, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) { perror(path); exit(2); }
  for (uint64_t i = 0; i < CAP; i++) if (t[i].gen) fprintf(f, "%lx %lu\n", t[i].key, t[i].val);
  fclose(f);
}

int main(int argc, char **argv) {
  if (argc != 5) { fprintf(stderr, "usage: lines MARKER_HEX WARM N OUT_PREFIX  (a lackey trace on stdin)\n"); return 2; }
  uint64_t marker = strtoull(argv[1], 0, 16);
  long warm = atol(argv[2]), n = atol(argv[3]);
  seen = calloc(CAP, sizeof(slot_t)); iagg = calloc(CAP, sizeof(slot_t)); dagg = calloc(CAP, sizeof(slot_t));
  char line[256];
  long request = -1; /* index of the current request; -1 before the first marker */
  uint64_t pc = 0, total_i = 0, total_d = 0, instrs = 0, pages_i = 0, pages_d = 0;
  while (fgets(line, sizeof line, stdin)) {
    char kind; uint64_t addr; unsigned size;
    if (line[0] == 'I') { kind = 'I'; if (sscanf(line + 1, " %lx,%u", &addr, &size) != 2) continue; }
    else if (line[0] == ' ' && (line[1] == 'L' || line[1] == 'S' || line[1] == 'M')) {
      kind = 'D'; if (sscanf(line + 2, " %lx,%u", &addr, &size) != 2) continue; }
    else continue;
    if (kind == 'I') {
      pc = addr;
      if (addr == marker) {
        request++;
        gen++;
        if (request >= warm + n) break;
      }
    }
    if (request < warm) continue;
    uint64_t first = addr >> 6, last = (addr + size - 1) >> 6;
    for (uint64_t l = first; l <= last; l++) {
      uint64_t page = l >> 6; /* 4 KiB */
      if (see((page << 2) | (kind == 'I' ? 2 : 3) | ((uint64_t)1 << 62))) { if (kind == 'I') pages_i++; else pages_d++; }
      if (kind == 'I') {
        instrs += (l == first);
        if (see(l << 1)) { add(iagg, l << 6); total_i++; }
      } else {
        if (see((l << 1) | 1)) { add(dagg, pc); total_d++; }
      }
    }
  }
  long done = request - warm;
  if (done > n) done = n;
  if (done <= 0) { fprintf(stderr, "lines: %ld requests seen, %ld skipped: none measured\n", request + 1, warm); return 1; }
  fprintf(stderr, "requests %ld: %.1f code lines, %.1f data lines, %.1f code pages, %.1f data pages, %.0f instructions per request\n", done,
          (double)total_i / done, (double)total_d / done, (double)pages_i / done, (double)pages_d / done, (double)instrs / done);
  char path[512];
  snprintf(path, sizeof path, "%s.i", argv[4]); dump(iagg, path);
  snprintf(path, sizeof path, "%s.d", argv[4]); dump(dagg, path);
  return 0;
}
