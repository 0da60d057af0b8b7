/*
 * rtt.c: exact round-trip latency distribution of one RESP client over a Unix socket.
 *
 *   rtt -s SOCKET [-n REQUESTS] [-w WARMUP] [-o OUT.json]
 *       [-p PEER_SOCKET [-q PEER_COMMAND] [-b BLOCK]] COMMAND [ARG...]
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
 * Paired (-p PEER_SOCKET [-q PEER_COMMAND] [-b BLOCK]): the same client also times PEER_COMMAND
 * (words split at spaces, PING by default) against a second server, in blocks of BLOCK requests
 * (2000 by default) that alternate between the two, the first server going first in every other
 * pair. A VM's speed drifts over seconds (a server timed alone a second later can read 1.8x
 * slower), so a ratio of two servers' p50s is only a ratio of servers when both are timed at
 * the same speed; a block is long enough for each server to run as it does alone (its own
 * lines between its requests are evicted only by the client's and the kernel's) and short
 * enough for the pair to share the VM's speed. The output adds "peer" (n, errors and
 * "percentiles" of the peer's samples) and "paired": {"block", "pairs", "ratio_p25",
 * "ratio_p50", "ratio_p75"}, the quartiles over the pairs of (this server's p50 in the block) /
 * (the peer's p50 in its block).
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

/* Encodes the words as a RESP array of bulk strings; the result is malloc'd. */
static char *resp_array(int count, char **words, size_t *length) {
  size_t cap = 64;
  for (int i = 0; i < count; i++) cap += strlen(words[i]) + 32;
  char *req = malloc(cap);
  size_t len = (size_t)snprintf(req, cap, "*%d\r\n", count);
  for (int i = 0; i < count; i++)
    len += (size_t)snprintf(req + len, cap - len, "$%zu\r\n%s\r\n", strlen(words[i]), words[i]);
  *length = len;
  return req;
}

static int connect_to(const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof(sa.sun_path)) { fprintf(stderr, "rtt: socket path too long\n"); exit(2); }
  strcpy(sa.sun_path, path);
  if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
    fprintf(stderr, "rtt: %s: %s\n", path, strerror(errno));
    exit(2);
  }
  return fd;
}

/* Times n round trips of req on fd into s (unsorted); returns the error replies. */
static long time_round_trips(int fd, const char *req, size_t reqlen, uint64_t *s, long n) {
  long errors = 0;
  for (long i = 0; i < n; i++) {
    uint64_t t0 = now_ns();
    errors += round_trip(fd, req, reqlen);
    s[i] = now_ns() - t0;
  }
  return errors;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static const double fixed[] = {50, 75, 90, 95, 99, 99.9, 99.99, 99.999};
static const char *fixed_names[] = {"50", "75", "90", "95", "99", "99.9", "99.99", "99.999"};

/* Writes "percentiles": {...} of the sorted samples s. */
static void write_percentiles(FILE *f, const uint64_t *s, long n) {
  fprintf(f, "\"percentiles\": {");
  for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
    fprintf(f, "%s\"%s\": %llu", i ? ", " : "", fixed_names[i], (unsigned long long)pct(s, n, fixed[i]));
  fprintf(f, "}");
}

int main(int argc, char **argv) {
  const char *path = NULL, *out = NULL, *peer_path = NULL, *peer_command = "PING";
  long n = 100000, warm = 2000, block = 2000;
  int opt;
  while ((opt = getopt(argc, argv, "+s:n:w:o:p:q:b:")) != -1) {
    switch (opt) {
    case 's': path = optarg; break;
    case 'n': n = atol(optarg); break;
    case 'w': warm = atol(optarg); break;
    case 'o': out = optarg; break;
    case 'p': peer_path = optarg; break;
    case 'q': peer_command = optarg; break;
    case 'b': block = atol(optarg); break;
    default: goto usage;
    }
  }
  if (!path || optind >= argc || n <= 0 || warm < 0 || block <= 0 || (peer_path && n < 2 * block)) {
  usage:
    fprintf(stderr, "usage: rtt -s SOCKET [-n REQUESTS] [-w WARMUP] [-o OUT.json]\n"
                    "           [-p PEER_SOCKET [-q PEER_COMMAND] [-b BLOCK]] COMMAND [ARG...]\n"
                    "       (paired: REQUESTS at least two BLOCKs)\n");
    return 2;
  }

  size_t reqlen;
  char *req = resp_array(argc - optind, argv + optind, &reqlen);
  int fd = connect_to(path);
  for (long i = 0; i < warm; i++) round_trip(fd, req, reqlen);

  uint64_t *s = malloc(sizeof(uint64_t) * (size_t)n);
  long errors = 0;
  /* paired: the peer's request and connection, its samples, and one ratio per pair of blocks */
  int peer_fd = -1;
  char *peer_req = NULL;
  size_t peer_reqlen = 0;
  uint64_t *peer_s = NULL, *scratch = NULL;
  double *ratios = NULL;
  long peer_errors = 0, pairs = 0;
  if (peer_path) {
    char *words[64];
    int count = 0;
    char *copy = strdup(peer_command);
    for (char *w = strtok(copy, " "); w && count < 64; w = strtok(NULL, " ")) words[count++] = w;
    if (count == 0) goto usage;
    peer_req = resp_array(count, words, &peer_reqlen);
    peer_fd = connect_to(peer_path);
    for (long i = 0; i < warm; i++) round_trip(peer_fd, peer_req, peer_reqlen);
    pairs = n / block;
    n = pairs * block; /* whole blocks */
    peer_s = malloc(sizeof(uint64_t) * (size_t)n);
    scratch = malloc(sizeof(uint64_t) * (size_t)block);
    ratios = malloc(sizeof(double) * (size_t)pairs);
  }

  uint64_t t_all = now_ns();
  if (peer_fd < 0) {
    errors = time_round_trips(fd, req, reqlen, s, n);
  } else {
    for (long k = 0; k < pairs; k++) {
      uint64_t *mine = s + k * block, *theirs = peer_s + k * block;
      for (int half = 0; half < 2; half++) {
        if ((half == 0) == (k % 2 == 0)) {
          errors += time_round_trips(fd, req, reqlen, mine, block);
        } else {
          peer_errors += time_round_trips(peer_fd, peer_req, peer_reqlen, theirs, block);
        }
      }
      memcpy(scratch, mine, sizeof(uint64_t) * (size_t)block);
      qsort(scratch, (size_t)block, sizeof(uint64_t), cmp_u64);
      double p50 = (double)pct(scratch, block, 50);
      memcpy(scratch, theirs, sizeof(uint64_t) * (size_t)block);
      qsort(scratch, (size_t)block, sizeof(uint64_t), cmp_u64);
      ratios[k] = p50 / (double)pct(scratch, block, 50);
    }
  }
  double wall = (double)(now_ns() - t_all) / 1e9;
  close(fd);
  if (peer_fd >= 0) close(peer_fd);

  double sum = 0;
  for (long i = 0; i < n; i++) sum += (double)s[i];
  qsort(s, (size_t)n, sizeof(uint64_t), cmp_u64);

  FILE *f = out ? fopen(out, "w") : stdout;
  if (!f) { perror(out); return 2; }
  fprintf(f, "{\"n\": %ld, \"errors\": %ld, \"seconds\": %.6f, \"rps\": %.1f, \"mean_ns\": %.1f, "
             "\"min_ns\": %llu, \"max_ns\": %llu,\n ",
          n, errors, wall, (double)n / wall, sum / (double)n, (unsigned long long)s[0],
          (unsigned long long)s[n - 1]);
  write_percentiles(f, s, n);
  if (peer_fd >= 0) {
    qsort(peer_s, (size_t)n, sizeof(uint64_t), cmp_u64);
    qsort(ratios, (size_t)pairs, sizeof(double), cmp_double);
    fprintf(f, ",\n \"peer\": {\"n\": %ld, \"errors\": %ld, ", n, peer_errors);
    write_percentiles(f, peer_s, n);
    /* the quartiles of the ratios, nearest-rank as pct() */
    double q[3];
    for (int i = 0; i < 3; i++) {
      long r = (long)ceil((i + 1) * 0.25 * (double)pairs) - 1;
      q[i] = ratios[r < 0 ? 0 : r];
    }
    fprintf(f, "},\n \"paired\": {\"block\": %ld, \"pairs\": %ld, \"ratio_p25\": %.4f, "
               "\"ratio_p50\": %.4f, \"ratio_p75\": %.4f}",
            block, pairs, q[0], q[1], q[2]);
  }
  fprintf(f, ",\n \"curve\": [");
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
  if (peer_fd >= 0 && peer_errors == n) {
    fprintf(stderr, "rtt: every reply of the peer was an error\n");
    return 1;
  }
  return 0;
}
