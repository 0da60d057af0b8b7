/*
 * scalegen.c: the load generator and probes of `make scale` (Bench/scale/scale.sh, issue 22).
 * Raw RESP2 over a Unix socket, no library: the same client for millraced and redis-server.
 *
 *   scalegen run -s SOCK [-c CONNS] [-d DEPTH] [-n COUNT | -D SECONDS] [-b BASE] [-r RANGE]
 *                [-S SEED] [-e EXPECT] [-T TIMEOUT] -- WORD...
 *       Sends COUNT requests (or as many as fit in SECONDS) over CONNS connections, each with
 *       up to DEPTH requests in flight: a connection's replies are read in one go and as many
 *       requests written back in one write. In a WORD, %i is the request's sequence number
 *       (BASE, BASE+1, ...) and %r a random number in [0, RANGE). Every reply is checked
 *       against EXPECT: ok (+OK), pong (+PONG), array2 (an array of two, SEND's [from, to]),
 *       int (an integer), bulk (a bulk string), any (anything but an error).
 *       Prints one JSON object: requests, seconds (first write to last reply), per_second,
 *       errors, unexpected, first_unexpected, timed_out. Exit 0 when every reply was as
 *       expected and the run finished in TIMEOUT seconds, else 1.
 *
 *   scalegen bystander -s SOCK -o FILE [-i INTERVAL_US]
 *       Sends PING every INTERVAL_US (default 1000), one in flight, on its own connection,
 *       until SIGTERM or SIGINT. FILE gets one line per reply, "SEND_NS LATENCY_NS" (send
 *       time in CLOCK_REALTIME ns, so that the driver's $EPOCHREALTIME marks line up), and
 *       "NS down" / "NS up" when the server goes away and comes back (it reconnects every
 *       millisecond). A PING whose connection drops is not a sample; one still waiting at the
 *       stop is written with the time it has waited so far.
 *
 *   scalegen ready -s SOCK -t T0_NS [-p PID] [-T TIMEOUT] [-I SECTION] [-w LINE]...
 *       From T0_NS (CLOCK_REALTIME ns, when the server was exec'd) tries to connect and PING
 *       every millisecond; once PONG comes, sends INFO [SECTION] every 5 ms until every LINE
 *       is in the reply (a line "LINE" or "LINE,...": "machines:1000", "db0:keys=1000").
 *       Gives up at once when the server PID exits. Prints {"ping_seconds", "ready_seconds",
 *       "timed_out", "exited"}, both times from T0_NS (-1 when not reached).
 *
 *   scalegen pick -s SOCK -n COUNT -r RANGE [-S SEED] [-P PREFIX] [-i INPUT] -o FILE
 *       COUNT distinct random names PREFIX<k>, k in [0, RANGE): with -i, sends SEND name INPUT
 *       to each and writes "name to-state" from the reply; without, writes "name state" from
 *       STATE. Prints {"picked", "errors"}.
 *
 *   scalegen check -s SOCK -f FILE
 *       STATE for every "name state" line of FILE; prints {"checked", "mismatches",
 *       "first_mismatch"}; exit 1 on a mismatch.
 *
 *   scalegen stop -p PID [-T TIMEOUT]
 *       SIGTERM, then the time until the process has exited (pidfd, so not only for a child);
 *       SIGKILL after TIMEOUT. Prints {"seconds", "timed_out"}.
 *
 * Build: cc -O2 -Wall -Wextra -o scalegen scalegen.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../C/resp_len.h"

/* ---------- small helpers ---------- */

static uint64_t clock_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static uint64_t mono_ns(void) { return clock_ns(CLOCK_MONOTONIC); }
static uint64_t real_ns(void) { return clock_ns(CLOCK_REALTIME); }

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("scalegen: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(2);
}

static void sleep_ns(uint64_t ns) {
  struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
  nanosleep(&ts, NULL);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng_next(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}
static void rng_seed(uint64_t seed) { rng_state = seed ? seed * 0x9E3779B97F4A7C15ull : 1; }
static uint64_t rng_below(uint64_t n) { return n ? rng_next() % n : 0; }

/* Writes s as a JSON string body (quotes, backslashes and control bytes escaped). */
static void json_text(FILE *f, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
}

/* A blocking connection to a Unix socket, or -1 (errno set). */
static int connect_unix(const char *path) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof addr.sun_path) die("socket path too long: %s", path);
  strcpy(addr.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

/* ---------- growable byte buffer ---------- */

typedef struct {
  char *p;
  size_t len, cap, off; /* off: bytes already consumed (written or parsed) */
} buf_t;

static void buf_reserve(buf_t *b, size_t more) {
  if (b->off > 0 && b->off == b->len) b->off = b->len = 0;
  if (b->len + more <= b->cap) return;
  if (b->off > 0) { /* compact before growing */
    memmove(b->p, b->p + b->off, b->len - b->off);
    b->len -= b->off;
    b->off = 0;
    if (b->len + more <= b->cap) return;
  }
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->len + more) cap *= 2;
  b->p = realloc(b->p, cap);
  if (!b->p) die("out of memory");
  b->cap = cap;
}
static void buf_add(buf_t *b, const void *s, size_t n) {
  buf_reserve(b, n);
  memcpy(b->p + b->len, s, n);
  b->len += n;
}

/* Appends the RESP array of argv to b. */
static void resp_command(buf_t *b, int argc, char **argv, const size_t *lens) {
  char head[32];
  buf_add(b, head, (size_t)snprintf(head, sizeof head, "*%d\r\n", argc));
  for (int i = 0; i < argc; i++) {
    buf_add(b, head, (size_t)snprintf(head, sizeof head, "$%zu\r\n", lens[i]));
    buf_add(b, argv[i], lens[i]);
    buf_add(b, "\r\n", 2);
  }
}

/* ---------- RESP2 replies ---------- */

typedef struct {
  char type;          /* + - : $ * */
  const char *text;   /* +, -, :, $: the line or the bulk (NULL for a null bulk) */
  size_t text_len;
  long count;         /* *: elements (-1 for a null array) */
  const char *elem[2]; /* *: the first two elements when they are bulk or simple strings */
  size_t elem_len[2];
} reply_t;

/* The string of the complete simple or bulk value at p[0..n), into *s / *len; 0 if another
 * type. */
static int resp_string(const char *p, size_t n, const char **s, size_t *len) {
  const char *nl = memchr(p, '\r', n);
  if (!nl) return 0;
  if (p[0] == '+') { *s = p + 1; *len = (size_t)(nl - p - 1); return 1; }
  if (p[0] == '$') {
    long l = strtol(p + 1, NULL, 10);
    if (l < 0) return 0;
    *s = nl + 2; *len = (size_t)l;
    return 1;
  }
  return 0;
}

/* Parses one complete reply at p[0..n) into r; returns its length, 0 if incomplete, -1 if
 * malformed. The pointers in r point into p. */
static long resp_parse(const char *p, size_t n, reply_t *r) {
  long total = resp_len(p, n, 0);
  if (total <= 0) return total;
  memset(r, 0, sizeof *r);
  r->type = p[0];
  const char *nl = memchr(p, '\r', (size_t)total);
  switch (p[0]) {
  case '+': case '-': case ':':
    r->text = p + 1;
    r->text_len = (size_t)(nl - p - 1);
    break;
  case '$':
    if (!resp_string(p, (size_t)total, &r->text, &r->text_len)) r->text = NULL;
    break;
  case '*': {
    r->count = strtol(p + 1, NULL, 10);
    long off = (nl - p) + 2;
    for (long i = 0; i < r->count && i < 2; i++) {
      resp_string(p + off, (size_t)(total - off), &r->elem[i], &r->elem_len[i]);
      off += resp_len(p + off, (size_t)(total - off), 1);
    }
    break;
  }
  }
  return total;
}

/* The reply as one line of text, for messages. */
static void reply_describe(const char *p, long len, char *out, size_t cap) {
  size_t k = 0;
  for (long i = 0; i < len && k + 4 < cap; i++) {
    char c = p[i];
    if (c == '\r') { out[k++] = '\\'; out[k++] = 'r'; }
    else if (c == '\n') { out[k++] = '\\'; out[k++] = 'n'; }
    else out[k++] = c;
  }
  out[k] = 0;
}

/* Reads until one complete reply is in b; returns its length, -2 when a signal interrupted the
 * wait, or -1 on EOF, error, malformed reply or deadline (monotonic ns, 0 = none). */
static long read_reply(int fd, buf_t *b, uint64_t deadline, reply_t *r) {
  for (;;) {
    long l = resp_parse(b->p + b->off, b->len - b->off, r);
    if (l != 0) return l;
    int wait_ms = -1;
    if (deadline) {
      uint64_t now = mono_ns();
      if (now >= deadline) return -1;
      wait_ms = (int)((deadline - now) / 1000000ull) + 1;
    }
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    int ready = poll(&pfd, 1, wait_ms);
    if (ready < 0 && errno == EINTR) return -2;
    if (ready <= 0) continue;
    buf_reserve(b, 65536);
    ssize_t got = read(fd, b->p + b->len, b->cap - b->len);
    if (got <= 0) return -1;
    b->len += (size_t)got;
  }
}

static int write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* ---------- run: pipelined load over many connections ---------- */

enum expect { EXPECT_OK, EXPECT_PONG, EXPECT_ARRAY2, EXPECT_INT, EXPECT_BULK, EXPECT_ANY };

typedef struct {
  int fd;
  long inflight;
  buf_t in, out;
  int want_write;
} conn_t;

static struct {
  int argc;
  char **argv;      /* the template words */
  long base, range; /* %i = base + sequence, %r = random below range */
  long next;        /* the next sequence number */
} tmpl;

static void add_request(buf_t *b) {
  char *argv[16];
  size_t lens[16];
  static char words[16][256];
  long seq = tmpl.base + tmpl.next++;
  for (int i = 0; i < tmpl.argc; i++) {
    const char *w = tmpl.argv[i];
    size_t k = 0;
    for (const char *c = w; *c && k < sizeof words[i] - 24; c++) {
      if (c[0] == '%' && (c[1] == 'i' || c[1] == 'r')) {
        long v = c[1] == 'i' ? seq : (long)rng_below((uint64_t)tmpl.range);
        k += (size_t)snprintf(words[i] + k, 24, "%ld", v);
        c++;
      } else {
        words[i][k++] = *c;
      }
    }
    argv[i] = words[i];
    lens[i] = k;
  }
  resp_command(b, tmpl.argc, argv, lens);
}

static int reply_matches(const reply_t *r, enum expect e) {
  switch (e) {
  case EXPECT_OK: return r->type == '+' && r->text_len == 2 && !memcmp(r->text, "OK", 2);
  case EXPECT_PONG: return r->type == '+' && r->text_len == 4 && !memcmp(r->text, "PONG", 4);
  case EXPECT_ARRAY2: return r->type == '*' && r->count == 2;
  case EXPECT_INT: return r->type == ':';
  case EXPECT_BULK: return r->type == '$' && r->text != NULL;
  case EXPECT_ANY: return r->type != '-';
  }
  return 0;
}

/* Writes what c->out holds without blocking; -1 if the connection failed. */
static int conn_flush(conn_t *c) {
  while (c->out.off < c->out.len) {
    ssize_t w = write(c->fd, c->out.p + c->out.off, c->out.len - c->out.off);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
    if (w <= 0) return -1;
    c->out.off += (size_t)w;
  }
  return 0;
}

/* The state of one `run`. */
static struct {
  long depth, count; /* count < 0: until stop_sending */
  long sent;
  uint64_t stop_sending;
  int ep, failed;
} run;

/* Tops c up to DEPTH requests in flight, writes them, and asks epoll for EPOLLOUT while some
 * bytes could not be written. */
static void top_up(conn_t *c) {
  int more = 0;
  while (c->inflight < run.depth && (run.count < 0 || run.sent < run.count)) {
    if ((run.sent & 63) == 0 && mono_ns() >= run.stop_sending) break;
    add_request(&c->out);
    c->inflight++, run.sent++, more = 1;
  }
  if (more && conn_flush(c) < 0) run.failed = 1;
  int want_write = c->out.off < c->out.len;
  if (want_write != c->want_write) {
    struct epoll_event ev = {.events = EPOLLIN | (want_write ? EPOLLOUT : 0), .data.ptr = c};
    epoll_ctl(run.ep, EPOLL_CTL_MOD, c->fd, &ev);
    c->want_write = want_write;
  }
}

static int cmd_run(int argc, char **argv) {
  const char *sock = NULL;
  long conns = 1, seed = 1;
  double seconds = 0, timeout = 600;
  enum expect expect = EXPECT_ANY;
  run.depth = 1000;
  run.count = -1;
  tmpl.range = 1;
  int opt;
  while ((opt = getopt(argc, argv, "s:c:d:n:D:b:r:S:e:T:")) != -1) {
    switch (opt) {
    case 's': sock = optarg; break;
    case 'c': conns = atol(optarg); break;
    case 'd': run.depth = atol(optarg); break;
    case 'n': run.count = atol(optarg); break;
    case 'D': seconds = atof(optarg); break;
    case 'b': tmpl.base = atol(optarg); break;
    case 'r': tmpl.range = atol(optarg); break;
    case 'S': seed = atol(optarg); break;
    case 'T': timeout = atof(optarg); break;
    case 'e':
      if (!strcmp(optarg, "ok")) expect = EXPECT_OK;
      else if (!strcmp(optarg, "pong")) expect = EXPECT_PONG;
      else if (!strcmp(optarg, "array2")) expect = EXPECT_ARRAY2;
      else if (!strcmp(optarg, "int")) expect = EXPECT_INT;
      else if (!strcmp(optarg, "bulk")) expect = EXPECT_BULK;
      else if (!strcmp(optarg, "any")) expect = EXPECT_ANY;
      else die("unknown -e %s", optarg);
      break;
    default: die("run: bad option");
    }
  }
  if (!sock || optind >= argc || (run.count < 0 && seconds <= 0) || conns < 1 || run.depth < 1)
    die("usage: run -s SOCK [-c CONNS] [-d DEPTH] (-n COUNT | -D SECONDS) ... -- WORD...");
  if (argc - optind > 16) die("at most 16 words");
  tmpl.argc = argc - optind;
  tmpl.argv = argv + optind;
  rng_seed((uint64_t)seed);
  signal(SIGPIPE, SIG_IGN);

  conn_t *cs = calloc((size_t)conns, sizeof *cs);
  run.ep = epoll_create1(EPOLL_CLOEXEC);
  if (!cs || run.ep < 0) die("setup: %s", strerror(errno));
  for (long i = 0; i < conns; i++) {
    cs[i].fd = connect_unix(sock);
    if (cs[i].fd < 0) die("connect %s: %s", sock, strerror(errno));
    fcntl(cs[i].fd, F_SETFL, fcntl(cs[i].fd, F_GETFL) | O_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &cs[i]};
    epoll_ctl(run.ep, EPOLL_CTL_ADD, cs[i].fd, &ev);
  }

  long done = 0, errors = 0, unexpected = 0;
  char first_bad[256] = "";
  int timed_out = 0;
  uint64_t start = mono_ns(), last = start;
  run.stop_sending = seconds > 0 ? start + (uint64_t)(seconds * 1e9) : UINT64_MAX;
  uint64_t deadline = start + (uint64_t)(timeout * 1e9);

  for (long i = 0; i < conns; i++) top_up(&cs[i]);
  struct epoll_event evs[256];
  while (!run.failed && done < run.sent) {
    uint64_t now = mono_ns();
    if (now >= deadline) { timed_out = 1; break; }
    int n = epoll_wait(run.ep, evs, 256, (int)((deadline - now) / 1000000ull) + 1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die("epoll_wait: %s", strerror(errno));
    for (int k = 0; k < n && !run.failed; k++) {
      conn_t *c = evs[k].data.ptr;
      if ((evs[k].events & EPOLLOUT) && conn_flush(c) < 0) { run.failed = 1; break; }
      if (!(evs[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) { top_up(c); continue; }
      buf_reserve(&c->in, 1 << 16);
      ssize_t got = read(c->fd, c->in.p + c->in.len, c->in.cap - c->in.len);
      if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (got <= 0) {
        snprintf(first_bad, sizeof first_bad, "connection closed by the server (%ld in flight)",
                 c->inflight);
        run.failed = 1;
        break;
      }
      c->in.len += (size_t)got;
      reply_t r;
      long l;
      while ((l = resp_parse(c->in.p + c->in.off, c->in.len - c->in.off, &r)) > 0) {
        if (r.type == '-') errors++;
        if (!reply_matches(&r, expect) && unexpected++ == 0)
          reply_describe(c->in.p + c->in.off, l, first_bad, sizeof first_bad);
        c->in.off += (size_t)l;
        c->inflight--, done++;
      }
      if (l < 0) {
        snprintf(first_bad, sizeof first_bad, "malformed reply");
        run.failed = 1;
        break;
      }
      last = mono_ns();
      top_up(c);
    }
  }
  double secs = (double)(last - start) / 1e9;
  printf("{\"requests\": %ld, \"sent\": %ld, \"seconds\": %.6f, \"per_second\": %.1f, "
         "\"errors\": %ld, \"unexpected\": %ld, \"first_unexpected\": \"",
         done, run.sent, secs, secs > 0 ? (double)done / secs : 0.0, errors, unexpected);
  json_text(stdout, first_bad, strlen(first_bad));
  printf("\", \"timed_out\": %s, \"failed\": %s}\n", timed_out ? "true" : "false",
         run.failed ? "true" : "false");
  for (long i = 0; i < conns; i++) close(cs[i].fd);
  return (timed_out || run.failed || unexpected || done < run.sent) ? 1 : 0;
}

/* ---------- bystander: one PING every interval ---------- */

static volatile sig_atomic_t stopping;
static void on_stop(int sig) { (void)sig; stopping = 1; }

static int cmd_bystander(int argc, char **argv) {
  const char *sock = NULL, *path = NULL;
  long interval_us = 1000;
  int opt;
  while ((opt = getopt(argc, argv, "s:o:i:")) != -1) {
    switch (opt) {
    case 's': sock = optarg; break;
    case 'o': path = optarg; break;
    case 'i': interval_us = atol(optarg); break;
    default: die("bystander: bad option");
    }
  }
  if (!sock || !path || interval_us < 1) die("usage: bystander -s SOCK -o FILE [-i US]");
  FILE *out = fopen(path, "w");
  if (!out) die("%s: %s", path, strerror(errno));
  struct sigaction sa = {.sa_handler = on_stop}; /* no SA_RESTART: poll returns EINTR */
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);

  static const char ping[] = "*1\r\n$4\r\nPING\r\n";
  const uint64_t interval = (uint64_t)interval_us * 1000ull;
  buf_t in = {0};
  int fd = -1, up = 0;
  uint64_t next = mono_ns();
  while (!stopping) {
    if (fd < 0) {
      fd = connect_unix(sock);
      if (fd < 0) {
        if (up) { fprintf(out, "%llu down\n", (unsigned long long)real_ns()); up = 0; }
        sleep_ns(interval);
        continue;
      }
      fprintf(out, "%llu up\n", (unsigned long long)real_ns());
      up = 1;
      in.len = in.off = 0;
      next = mono_ns();
    }
    uint64_t now = mono_ns();
    if (next > now) sleep_ns(next - now);
    if (stopping) break;
    uint64_t sent_real = real_ns(), sent = mono_ns();
    reply_t r;
    long l = -1;
    if (write_all(fd, ping, sizeof ping - 1) == 0) {
      do l = read_reply(fd, &in, 0, &r);
      while (l == -2 && !stopping);
    }
    uint64_t got = mono_ns();
    if (l > 0) {
      in.off += (size_t)l;
      fprintf(out, "%llu %llu\n", (unsigned long long)sent_real,
              (unsigned long long)(got - sent));
    } else if (stopping) {
      /* still waiting at the stop: at least this long */
      fprintf(out, "%llu %llu\n", (unsigned long long)sent_real,
              (unsigned long long)(got - sent));
    } else {
      close(fd);
      fd = -1;
      fprintf(out, "%llu down\n", (unsigned long long)real_ns());
      up = 0;
      continue;
    }
    next += interval;
    if (next < got) next = got; /* behind: no burst, the next PING goes now */
  }
  fclose(out);
  return 0;
}

/* ---------- ready: time from exec until PING, then until INFO shows the lines ---------- */

/* Whether text (INFO's reply) has a line equal to want or starting with want and ','. */
static int info_has(const char *text, size_t n, const char *want) {
  size_t w = strlen(want);
  const char *p = text, *end = text + n;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    size_t len = (size_t)(eol - p);
    if (len > 0 && p[len - 1] == '\r') len--;
    if (len >= w && !memcmp(p, want, w) && (len == w || p[w] == ',')) return 1;
    p = eol + 1;
  }
  return 0;
}

/* Whether the process behind pidfd has exited (a zombie counts); never with pidfd < 0. */
static int exited(int pidfd) {
  struct pollfd p = {.fd = pidfd, .events = POLLIN};
  return pidfd >= 0 && poll(&p, 1, 0) > 0;
}

static int cmd_ready(int argc, char **argv) {
  const char *sock = NULL, *section = NULL, *wants[8];
  int nwant = 0, pidfd = -1, gone = 0;
  double timeout = 60;
  uint64_t t0 = 0;
  int opt;
  while ((opt = getopt(argc, argv, "s:t:p:T:I:w:")) != -1) {
    switch (opt) {
    case 's': sock = optarg; break;
    case 'p':
      pidfd = (int)syscall(SYS_pidfd_open, (pid_t)atol(optarg), 0);
      if (pidfd < 0) gone = 1; /* already reaped */
      break;
    case 't': t0 = strtoull(optarg, NULL, 10); break;
    case 'T': timeout = atof(optarg); break;
    case 'I': section = optarg; break;
    case 'w': if (nwant < 8) wants[nwant++] = optarg; break;
    default: die("ready: bad option");
    }
  }
  if (!sock || !t0) die("usage: ready -s SOCK -t T0_NS [-T TIMEOUT] [-I SECTION] [-w LINE]...");
  signal(SIGPIPE, SIG_IGN);
  /* the deadline on the monotonic clock, counted from t0 */
  int64_t left = (int64_t)(timeout * 1e9) - ((int64_t)real_ns() - (int64_t)t0);
  uint64_t deadline = mono_ns() + (uint64_t)(left > 0 ? left : 0);
  double ping_s = -1, ready_s = -1;
  buf_t in = {0}, cmd = {0};
  int fd = -1;
  while (!gone && mono_ns() < deadline) {
    if (exited(pidfd)) { gone = 1; break; }
    if (fd < 0) {
      fd = connect_unix(sock);
      if (fd < 0) { sleep_ns(1000000); continue; }
      in.len = in.off = 0;
    }
    reply_t r;
    long l;
    if (write_all(fd, "*1\r\n$4\r\nPING\r\n", 14) < 0 ||
        (l = read_reply(fd, &in, deadline, &r)) <= 0) {
      close(fd);
      fd = -1;
      sleep_ns(1000000);
      continue;
    }
    in.off += (size_t)l;
    if (r.type == '+') { ping_s = (double)(real_ns() - t0) / 1e9; break; }
    sleep_ns(1000000); /* -LOADING or the like: again */
  }
  char *info_argv[2] = {"INFO", (char *)section};
  size_t info_lens[2] = {4, section ? strlen(section) : 0};
  resp_command(&cmd, section ? 2 : 1, info_argv, info_lens);
  while (ping_s >= 0 && mono_ns() < deadline) {
    if (nwant == 0) { ready_s = ping_s; break; }
    if (exited(pidfd)) { gone = 1; break; }
    reply_t r;
    long l;
    if (write_all(fd, cmd.p, cmd.len) < 0 || (l = read_reply(fd, &in, deadline, &r)) <= 0) break;
    int all = r.type == '$' && r.text;
    for (int i = 0; all && i < nwant; i++) all = info_has(r.text, r.text_len, wants[i]);
    in.off += (size_t)l;
    if (all) { ready_s = (double)(real_ns() - t0) / 1e9; break; }
    sleep_ns(5000000);
  }
  if (fd >= 0) close(fd);
  printf("{\"ping_seconds\": %.6f, \"ready_seconds\": %.6f, \"timed_out\": %s, "
         "\"exited\": %s}\n", ping_s, ready_s, ready_s < 0 && !gone ? "true" : "false",
         gone ? "true" : "false");
  return ready_s < 0 ? 1 : 0;
}

/* ---------- pick / check: machines' states before and after a restart ---------- */

static int cmd_pick(int argc, char **argv) {
  const char *sock = NULL, *prefix = "dev:", *input = NULL, *path = NULL;
  long count = 1000, range = 0, seed = 1;
  int opt;
  while ((opt = getopt(argc, argv, "s:n:r:S:P:i:o:")) != -1) {
    switch (opt) {
    case 's': sock = optarg; break;
    case 'n': count = atol(optarg); break;
    case 'r': range = atol(optarg); break;
    case 'S': seed = atol(optarg); break;
    case 'P': prefix = optarg; break;
    case 'i': input = optarg; break;
    case 'o': path = optarg; break;
    default: die("pick: bad option");
    }
  }
  if (!sock || !path || range < 1) die("usage: pick -s SOCK -n COUNT -r RANGE ... -o FILE");
  if (count > range) count = range;
  rng_seed((uint64_t)seed);
  /* COUNT distinct indices: rejection against a bitmap of RANGE bits */
  unsigned char *seen = calloc((size_t)range / 8 + 1, 1);
  long *picked = malloc((size_t)count * sizeof *picked);
  if (!seen || !picked) die("out of memory");
  for (long i = 0; i < count;) {
    long k = (long)rng_below((uint64_t)range);
    if (seen[k / 8] & (1 << (k % 8))) continue;
    seen[k / 8] |= (unsigned char)(1 << (k % 8));
    picked[i++] = k;
  }
  int fd = connect_unix(sock);
  if (fd < 0) die("connect %s: %s", sock, strerror(errno));
  FILE *out = fopen(path, "w");
  if (!out) die("%s: %s", path, strerror(errno));
  buf_t cmd = {0}, in = {0};
  char name[200];
  long errors = 0;
  uint64_t deadline = mono_ns() + 120ull * 1000000000ull;
  for (long start = 0; start < count; start += 500) { /* 500 in flight at a time */
    long end = start + 500 < count ? start + 500 : count;
    cmd.len = cmd.off = 0;
    for (long i = start; i < end; i++) {
      snprintf(name, sizeof name, "%s%ld", prefix, picked[i]);
      char *av[3] = {input ? "SEND" : "STATE", name, (char *)input};
      size_t lens[3] = {strlen(av[0]), strlen(name), input ? strlen(input) : 0};
      resp_command(&cmd, input ? 3 : 2, av, lens);
    }
    if (write_all(fd, cmd.p, cmd.len) < 0) die("write: %s", strerror(errno));
    for (long i = start; i < end; i++) {
      reply_t r;
      long l = read_reply(fd, &in, deadline, &r);
      if (l <= 0) die("no reply from %s", sock);
      const char *s = NULL;
      size_t n = 0;
      if (input && r.type == '*' && r.count == 2) s = r.elem[1], n = r.elem_len[1];
      if (!input && r.type == '$' && r.text) s = r.text, n = r.text_len;
      if (s) fprintf(out, "%s%ld %.*s\n", prefix, picked[i], (int)n, s);
      else errors++;
      in.off += (size_t)l;
    }
  }
  fclose(out);
  close(fd);
  printf("{\"picked\": %ld, \"errors\": %ld}\n", count - errors, errors);
  return errors ? 1 : 0;
}

static int cmd_check(int argc, char **argv) {
  const char *sock = NULL, *path = NULL;
  int opt;
  while ((opt = getopt(argc, argv, "s:f:")) != -1) {
    switch (opt) {
    case 's': sock = optarg; break;
    case 'f': path = optarg; break;
    default: die("check: bad option");
    }
  }
  if (!sock || !path) die("usage: check -s SOCK -f FILE");
  FILE *f = fopen(path, "r");
  if (!f) die("%s: %s", path, strerror(errno));
  long cap = 1024, n = 0;
  char (*names)[130] = malloc((size_t)cap * sizeof *names), (*states)[130] = malloc((size_t)cap * sizeof *states);
  while (names && states && fscanf(f, "%129s %129s", names[n], states[n]) == 2) {
    if (++n == cap) {
      cap *= 2;
      names = realloc(names, (size_t)cap * sizeof *names);
      states = realloc(states, (size_t)cap * sizeof *states);
    }
  }
  fclose(f);
  if (!names || !states) die("out of memory");
  int fd = connect_unix(sock);
  if (fd < 0) die("connect %s: %s", sock, strerror(errno));
  buf_t cmd = {0}, in = {0};
  for (long i = 0; i < n; i++) {
    char *av[2] = {"STATE", names[i]};
    size_t lens[2] = {5, strlen(names[i])};
    resp_command(&cmd, 2, av, lens);
  }
  if (write_all(fd, cmd.p, cmd.len) < 0) die("write: %s", strerror(errno));
  long mismatches = 0;
  char first[512] = "";
  uint64_t deadline = mono_ns() + 120ull * 1000000000ull;
  for (long i = 0; i < n; i++) {
    reply_t r;
    long l = read_reply(fd, &in, deadline, &r);
    if (l <= 0) die("no reply from %s", sock);
    int same = r.type == '$' && r.text && r.text_len == strlen(states[i]) &&
               !memcmp(r.text, states[i], r.text_len);
    if (!same && mismatches++ == 0) {
      char got[256];
      reply_describe(in.p + in.off, l, got, sizeof got);
      snprintf(first, sizeof first, "%s: expected %s, got %s", names[i], states[i], got);
    }
    in.off += (size_t)l;
  }
  close(fd);
  printf("{\"checked\": %ld, \"mismatches\": %ld, \"first_mismatch\": \"", n, mismatches);
  json_text(stdout, first, strlen(first));
  printf("\"}\n");
  return mismatches ? 1 : 0;
}

/* ---------- stop: SIGTERM and the time until the process is gone ---------- */

static int cmd_stop(int argc, char **argv) {
  pid_t pid = 0;
  double timeout = 30;
  int opt;
  while ((opt = getopt(argc, argv, "p:T:")) != -1) {
    switch (opt) {
    case 'p': pid = (pid_t)atol(optarg); break;
    case 'T': timeout = atof(optarg); break;
    default: die("stop: bad option");
    }
  }
  if (pid <= 0) die("usage: stop -p PID [-T TIMEOUT]");
  int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (pfd < 0) die("pidfd_open %d: %s", (int)pid, strerror(errno));
  uint64_t start = mono_ns();
  if (kill(pid, SIGTERM) < 0) die("kill %d: %s", (int)pid, strerror(errno));
  struct pollfd p = {.fd = pfd, .events = POLLIN};
  int ready;
  do ready = poll(&p, 1, (int)(timeout * 1000));
  while (ready < 0 && errno == EINTR);
  double secs = (double)(mono_ns() - start) / 1e9;
  if (ready == 0) kill(pid, SIGKILL);
  printf("{\"seconds\": %.6f, \"timed_out\": %s}\n", secs, ready == 0 ? "true" : "false");
  return ready == 0 ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc < 2) die("usage: scalegen run|bystander|ready|pick|check|stop ... (see scalegen.c)");
  const char *cmd = argv[1];
  argc--, argv++;
  if (!strcmp(cmd, "run")) return cmd_run(argc, argv);
  if (!strcmp(cmd, "bystander")) return cmd_bystander(argc, argv);
  if (!strcmp(cmd, "ready")) return cmd_ready(argc, argv);
  if (!strcmp(cmd, "pick")) return cmd_pick(argc, argv);
  if (!strcmp(cmd, "check")) return cmd_check(argc, argv);
  if (!strcmp(cmd, "stop")) return cmd_stop(argc, argv);
  die("unknown command %s", cmd);
  return 2;
}
