// mlp: what this machine's memory does with loads to random cache lines, the floor under a
// SEND to one of a million machines (Bench/README.md, "The memory's floor under a million
// machines"). K independent chains walk a random cycle through a table far larger than the
// caches, one load per chain per step, so that K misses can be in flight at once: with K = 1
// the time a line is the latency of one miss; as K grows it falls until the core's misses in
// flight are used up, and that lowest time is what a line costs when every miss overlaps.
//
//   mlp [MiB] [huge]   the table's size (512), and `huge` to ask for transparent huge pages
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

typedef struct {
  uint64_t next;
  char pad[56];
} line_t;

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static uint64_t xorshift(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? strtoul(argv[1], 0, 10) : 512;
  int huge = argc > 2 && strcmp(argv[2], "huge") == 0;
  size_t lines = mib * (1u << 20) / sizeof(line_t);
  line_t *table = mmap(0, lines * sizeof(line_t), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  uint32_t *order = malloc(sizeof(uint32_t) * lines);
  if (table == MAP_FAILED || !order || lines < 64) return fprintf(stderr, "mlp: no memory\n"), 1;
  if (huge) madvise(table, lines * sizeof(line_t), MADV_HUGEPAGE);
  // One cycle through every line, in random order (Fisher-Yates).
  uint64_t seed = 88172645463325252ull;
  for (size_t i = 0; i < lines; i++) order[i] = (uint32_t)i;
  for (size_t i = lines - 1; i > 0; i--) {
    size_t j = xorshift(&seed) % (i + 1);
    uint32_t x = order[i];
    order[i] = order[j];
    order[j] = x;
  }
  for (size_t i = 0; i < lines; i++) table[order[i]].next = order[(i + 1) % lines];
  printf("%zu MiB, %s pages\n", mib, huge ? "huge" : "4 KiB");
  const int ks[] = {1, 2, 4, 8, 12, 16, 20, 24, 32, 48};
  for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++) {
    int k = ks[ki];
    uint64_t at[48];
    for (int c = 0; c < k; c++) at[c] = order[(size_t)c * (lines / k)];
    long steps = 4000000 / k;
    double start = now_ns();
    for (long s = 0; s < steps; s++)
      for (int c = 0; c < k; c++) at[c] = table[at[c]].next;
    double ns = (now_ns() - start) / ((double)steps * k);
    uint64_t sink = 0;
    for (int c = 0; c < k; c++) sink += at[c];
    printf("K=%2d  %6.1f ns a line  %6.1f ns a step of every chain%s\n", k, ns, ns * k,
           sink == 1 ? " " : "");
  }
  return 0;
}
