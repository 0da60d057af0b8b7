/*
 * rtt.c: exact round-trip latency distribution of one RESP client over a Unix socket.
 *
 *   rtt -s SOCKET [-n REQUESTS] [-w WARMUP] [-o OUT.json] COMMAND [ARG...]
 *
 * Why it exists: redis-benchmark 7.0 records latencies in an HDR histogram whose lowest
 * discernible value is 10 us (CONFIG_LATENCY_HISTOGRAM_MIN_VALUE), so on a Unix socket,
 * where a round trip takes 5-20 us, its percentiles all land in the first bucket and print
 * as "0.007 ms" or so. This client sends COMMAND as a RESP array, waits for the complete reply
 * (any RESP2 type, nested arrays included), and times each round trip with CLOCK_MONOTONIC in
 * nanoseconds. One connection, blocking syscalls, one request in flight: the same minimal
 * client for every server, so the servers differ and nothing else does. All samples are kept
 * and sorted: the percentiles are exact, not bucketed.
 *
 * Output (stdout, or -o FILE): one JSON object with n, errors, mean_ns, min_ns, max_ns,
 * "percentiles": {"50": ns, ...} for a fixed list, and "curve": [[percentile, ns], ...] on a
 * log grid from p0 to p99.999 for plotting. Error replies (-ERR ...) are counted; the exit
 * status is 1 if every reply was an error.
 *
 * Build: cc -O2 -o rtt rtt.c   (or `make` in this folder).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "resp_len.h"

static char rbuf[1 << 20];
static size_t rlen;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Sends req, reads one complete reply. Returns 1 if it was an error reply, 0 if not. */
static int round_trip(int fd, const char *req, size_t reqlen) {
  size_t sent = 0;
  while (sent < reqlen) {
    ssize_t k = write(fd, req + sent, reqlen - sent);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) { perror("rtt: write"); exit(2); }
    sent += (size_t)k;
  }
  for (;;) {
    long k = resp_len(rbuf, rlen, 0);
    if (k < 0) { fprintf(stderr, "rtt: malformed reply\n"); exit(2); }
    if (k > 0) {
      int err = rbuf[0] == '-';
      memmove(rbuf, rbuf + k, rlen - (size_t)k);
      rlen -= (size_t)k;
      return err;
    }
    if (rlen == sizeof(rbuf)) { fprintf(stderr, "rtt: reply too long\n"); exit(2); }
    ssize_t r = read(fd, rbuf + rlen, sizeof(rbuf) - rlen);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) { fprintf(stderr, "rtt: connection closed by server\n"); exit(2); }
    rlen += (size_t)r;
  }
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t pct(const uint64_t *s, long n, double p) {
  long i = (long)ceil(p / 100.0 * (double)n) - 1; /* nearest-rank */
  if (i < 0) i = 0;
  if (i >= n) i = n - 1;
  return s[i];
}

int main(int argc, char **argv) {
  const char *path = NULL, *out = NULL;
  long n = 100000, warm = 2000;
  int opt;
  while ((opt = getopt(argc, argv, "+s:n:w:o:")) != -1) {
    switch (opt) {
    case 's': path = optarg; break;
    case 'n': n = atol(optarg); break;
    case 'w': warm = atol(optarg); break;
    case 'o': out = optarg; break;
    default: goto usage;
    }
  }
  if (!path || optind >= argc || n <= 0 || warm < 0) {
  usage:
    fprintf(stderr, "usage: rtt -s SOCKET [-n REQUESTS] [-w WARMUP] [-o OUT.json] COMMAND [ARG...]\n");
    return 2;
  }

  /* the request, as a RESP array of bulk strings */
  size_t cap = 64;
  for (int i = optind; i < argc; i++) cap += strlen(argv[i]) + 32;
  char *req = malloc(cap);
  size_t reqlen = (size_t)snprintf(req, cap, "*%d\r\n", argc - optind);
  for (int i = optind; i < argc; i++)
    reqlen += (size_t)snprintf(req + reqlen, cap - reqlen, "$%zu\r\n%s\r\n", strlen(argv[i]), argv[i]);

  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof(sa.sun_path)) { fprintf(stderr, "rtt: socket path too long\n"); return 2; }
  strcpy(sa.sun_path, path);
  if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
    fprintf(stderr, "rtt: %s: %s\n", path, strerror(errno));
    return 2;
  }

  for (long i = 0; i < warm; i++) round_trip(fd, req, reqlen);

  uint64_t *s = malloc(sizeof(uint64_t) * (size_t)n);
  long errors = 0;
  uint64_t t_all = now_ns();
  for (long i = 0; i < n; i++) {
    uint64_t t0 = now_ns();
    errors += round_trip(fd, req, reqlen);
    s[i] = now_ns() - t0;
  }
  double wall = (double)(now_ns() - t_all) / 1e9;
  close(fd);

  double sum = 0;
  for (long i = 0; i < n; i++) sum += (double)s[i];
  qsort(s, (size_t)n, sizeof(uint64_t), cmp_u64);

  FILE *f = out ? fopen(out, "w") : stdout;
  if (!f) { perror(out); return 2; }
  fprintf(f, "{\"n\": %ld, \"errors\": %ld, \"seconds\": %.6f, \"rps\": %.1f, \"mean_ns\": %.1f, "
             "\"min_ns\": %llu, \"max_ns\": %llu,\n \"percentiles\": {",
          n, errors, wall, (double)n / wall, sum / (double)n, (unsigned long long)s[0],
          (unsigned long long)s[n - 1]);
  static const double fixed[] = {50, 75, 90, 95, 99, 99.9, 99.99, 99.999};
  static const char *names[] = {"50", "75", "90", "95", "99", "99.9", "99.99", "99.999"};
  for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
    fprintf(f, "%s\"%s\": %llu", i ? ", " : "", names[i], (unsigned long long)pct(s, n, fixed[i]));
  fprintf(f, "},\n \"curve\": [");
  /* x = -log10(1 - p/100) from 0 to 5 in steps of 0.05: p0, ..., p90, p99, ..., p99.999 */
  for (int i = 0; i <= 100; i++) {
    double x = i * 0.05;
    double p = 100.0 * (1.0 - pow(10.0, -x));
    fprintf(f, "%s[%.6f, %llu]", i ? ", " : "", p, (unsigned long long)pct(s, n, p));
  }
  fprintf(f, "]}\n");
  if (f != stdout) fclose(f);
  if (errors == n) {
    fprintf(stderr, "rtt: every reply was an error\n");
    return 1;
  }
  return 0;
}
