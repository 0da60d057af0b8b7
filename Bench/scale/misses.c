// misses: what a line missed at random costs on this machine, alone and beside other work, the
// way a SEND at a million machines misses its bucket, entry and record (Bench/README.md,
// "What a line at random costs").
//
//   cc -O2 -o /tmp/misses Bench/scale/misses.c
//   /tmp/misses latency MIB [huge]          one dependent read after another
//   /tmp/misses throughput MIB [huge]       independent reads, as many in flight as can be
//   /tmp/misses group MIB LINES WORK [huge] per item LINES lines at random, warmed for a
//                                           group of 16 items at once before they are read,
//                                           and WORK steps of other work on a 256 KiB buffer
//   /tmp/misses rolling MIB LINES WORK [huge]  the same, each item's lines warmed two items
//                                           ahead
//
// Prints nanoseconds per read (latency, throughput) or per item (group, rolling), three
// rounds. `huge` advises the array MADV_HUGEPAGE (else MADV_NOHUGEPAGE).
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t state = 88172645463325252ull;
static uint64_t next_random(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: misses latency|throughput|group|rolling MIB [LINES WORK] [huge]\n");
    return 2;
  }
  const char *mode = argv[1];
  size_t bytes = (size_t)atol(argv[2]) << 20, lines = bytes / 64;
  int grouped = !strcmp(mode, "group") || !strcmp(mode, "rolling");
  int per = grouped && argc > 3 ? atoi(argv[3]) : 1, work = grouped && argc > 4 ? atoi(argv[4]) : 0;
  int huge = argc > (grouped ? 5 : 3) && !strcmp(argv[argc - 1], "huge");
  if (per < 1 || per > 4) per = 1;
  char *array = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (array == MAP_FAILED) return 1;
  madvise(array, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  uint64_t *words = (uint64_t *)array;
  size_t count = 1 << 20;
  uint64_t sum = 0;
  if (!strcmp(mode, "latency")) {
    // One cycle through every line in a random order: each read's address is the last one's.
    size_t *order = malloc(lines * sizeof *order);
    for (size_t i = 0; i < lines; i++) order[i] = i;
    for (size_t i = lines - 1; i > 0; i--) {
      size_t j = next_random() % (i + 1), t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    for (size_t i = 0; i < lines; i++) words[order[i] * 8] = order[(i + 1) % lines] * 8;
    for (int round = 0; round < 3; round++) {
      size_t at = 0;
      double start = now();
      for (size_t i = 0; i < count; i++) at = words[at];
      printf("%s %zu MiB%s: %.1f ns a read\n", mode, bytes >> 20, huge ? " huge" : "",
             (now() - start) / count * 1e9);
      sum += at;
    }
  } else {
    memset(array, 1, bytes);
    size_t *at = malloc(count * 4 * sizeof *at);
    for (size_t i = 0; i < count * 4; i++) at[i] = next_random() % lines * 64;
    size_t other = 256 << 10, step = 0;
    char *buffer = malloc(other);
    memset(buffer, 2, other);
    for (int round = 0; round < 3; round++) {
      double start = now();
      if (!grouped) {
        for (size_t i = 0; i < count; i++) sum += (unsigned char)array[at[i]];
      } else {
        for (size_t group = 0; group + 16 <= count; group += 16) {
          if (mode[0] == 'g')
            for (int k = 0; k < 16; k++)
              for (int l = 0; l < per; l++) __builtin_prefetch(array + at[(group + k) * 4 + l]);
          for (int k = 0; k < 16; k++) {
            if (mode[0] == 'r') {
              size_t ahead = (group + k + 2) % count;
              for (int l = 0; l < per; l++) __builtin_prefetch(array + at[ahead * 4 + l]);
            }
            for (int w = 0; w < work; w++) {
              sum += (unsigned char)buffer[step];
              buffer[step]++;
              step = (step + 64 * 7) & (other - 1);
            }
            for (int l = 0; l < per; l++) sum += (unsigned char)array[at[(group + k) * 4 + l]];
          }
        }
      }
      printf("%s %zu MiB%s: %.1f ns a %s\n", mode, bytes >> 20, huge ? " huge" : "",
             (now() - start) / count * 1e9, grouped ? "item" : "read");
    }
  }
  return sum == 42;  // keeps the reads
}
