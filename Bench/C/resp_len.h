/* resp_len.h - the length of one complete RESP2 value in a buffer, for the benchmark clients
 * (Bench/C/rtt.c, Bench/scale/scalegen.c). Header-only: each client includes it once. */
#ifndef MILLRACE_BENCH_RESP_LEN_H
#define MILLRACE_BENCH_RESP_LEN_H

#include <stdlib.h>
#include <string.h>

/* Length of the complete RESP2 value at p[0..n), 0 if incomplete, -1 if malformed (or nested
 * deeper than 32 arrays). */
static long resp_len(const char *p, size_t n, int depth) {
  if (n == 0) return 0;
  if (depth > 32) return -1;
  const char *nl = memchr(p, '\n', n);
  if (!nl) return 0;
  long head = (nl - p) + 1;
  switch (p[0]) {
  case '+': case '-': case ':': return head;
  case '$': {
    long len = strtol(p + 1, NULL, 10);
    if (len < 0) return head;
    if ((size_t)head + (size_t)len + 2 > n) return 0;
    return head + len + 2;
  }
  case '*': {
    long count = strtol(p + 1, NULL, 10), off = head;
    for (long i = 0; i < count; i++) {
      long l = resp_len(p + off, n - (size_t)off, depth + 1);
      if (l <= 0) return l;
      off += l;
    }
    return off;
  }
  default: return -1;
  }
}

#endif
