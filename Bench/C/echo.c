/*
 * echo.c: the raw libuv RESP server, the floor of the socket budget in DESIGN.md section 6.
 *
 *   echo SOCKET_PATH
 *
 * Listens on a Unix domain stream socket and answers every RESP2 request, in request order:
 *   PING (any case, array-of-bulk-strings form or inline form)  ->  +PONG\r\n
 *   QUIT                                                        ->  +OK\r\n, then closes
 *   anything else                                               ->  +OK\r\n
 * A malformed frame, or one over 64 KiB, gets "-ERR protocol" and the connection is closed.
 *
 * It does what a good RESP server has to do and nothing more, so it is the lower bound for
 * millraced: one read buffer per connection, frames parsed in place (pipelining and partial
 * reads: a frame split across reads waits for the rest), all replies of one read gathered into
 * one write per loop turn: replies accumulate while the turn's reads are parsed and are flushed by
 * a uv_check handle after the poll phase (what redis-server does in beforeSleep), with
 * uv_try_write; only what the socket does not take at once is copied into a heap write request.
 * No allocation per request in the common case.
 *
 * Build: cc -O2 -o echo echo.c -luv   (or `make` in this folder). Stops on SIGINT / SIGTERM.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#define FRAME_MAX (64 * 1024)      /* longest accepted frame */
#define BUF_CAP (FRAME_MAX + 4096) /* per-connection read buffer */

#define OUT_CAP (3 * BUF_CAP + 64) /* replies to one read: at most 3 bytes per input byte */

typedef struct conn {
  uv_pipe_t pipe;
  char *buf;      /* BUF_CAP bytes; [0, len) holds unparsed input */
  size_t len;
  char *out;      /* OUT_CAP bytes: replies not yet written */
  size_t outn;
  struct conn *next_pending; /* in the list of connections with replies to flush */
  int pending;
  int closing;
} conn_t;

typedef struct {
  uv_write_t req;
  uv_buf_t out;
  char data[]; /* the replies of one read */
} write_t;

static uv_loop_t *loop;
static uv_pipe_t server;
static uv_signal_t sigint_h, sigterm_h;
static uv_check_t flusher;   /* after each poll phase: write what the reads of this turn produced */
static conn_t *pending_head;
static const char *sock_path;

static const char PONG[] = "+PONG\r\n";
static const char OK[] = "+OK\r\n";
static const char PROTO[] = "-ERR protocol bad or too long frame\r\n";

enum { REPLY_PONG, REPLY_OK, REPLY_QUIT, REPLY_NONE };

static void on_close(uv_handle_t *h) {
  conn_t *c = (conn_t *)h;
  free(c->buf);
  free(c->out);
  free(c);
}

static void unlist(conn_t *c) {
  if (!c->pending) return;
  for (conn_t **p = &pending_head; *p; p = &(*p)->next_pending)
    if (*p == c) { *p = c->next_pending; break; }
  c->pending = 0;
}

static void close_conn(conn_t *c) {
  if (c->closing) return;
  c->closing = 1;
  unlist(c);
  uv_read_stop((uv_stream_t *)&c->pipe);
  uv_close((uv_handle_t *)&c->pipe, on_close);
}

static void on_write(uv_write_t *req, int status) {
  (void)status; /* a failed write surfaces as a read error/EOF and closes the connection */
  free(req);
}

static int word_is(const char *p, size_t n, const char *w) {
  size_t wl = strlen(w);
  if (n != wl) return 0;
  for (size_t i = 0; i < n; i++)
    if (toupper((unsigned char)p[i]) != w[i]) return 0;
  return 1;
}

static int classify(const char *p, size_t n) {
  if (word_is(p, n, "PING")) return REPLY_PONG;
  if (word_is(p, n, "QUIT")) return REPLY_QUIT;
  return REPLY_OK;
}

/* Parses a decimal integer ending in \r\n starting at p (within [p, end)).
 * Returns bytes consumed including \r\n, 0 if incomplete, -1 if malformed. */
static long parse_int_line(const char *p, const char *end, long *out) {
  const char *q = p;
  int neg = 0;
  long v = 0;
  if (q < end && *q == '-') { neg = 1; q++; }
  const char *digits = q;
  while (q < end && *q >= '0' && *q <= '9') {
    v = v * 10 + (*q - '0');
    if (v > FRAME_MAX * 2L) return -1;
    q++;
  }
  if (q == end) return (q - p > 24) ? -1 : 0;
  if (q == digits || *q != '\r') return -1;
  if (q + 1 == end) return 0;
  if (q[1] != '\n') return -1;
  *out = neg ? -v : v;
  return (q + 2) - p;
}

/* One frame at buf[0..len). Returns bytes consumed (>0), 0 if incomplete, -1 on error.
 * *kind is set to the reply the frame needs. */
static long parse_frame(const char *buf, size_t len, int *kind) {
  const char *p = buf, *end = buf + len;
  if (len == 0) return 0;
  if (*p == '*') {
    long n;
    long k = parse_int_line(p + 1, end, &n);
    if (k <= 0) return k;
    p += 1 + k;
    if (n <= 0) { *kind = REPLY_NONE; return p - buf; } /* *0 / *-1: nothing to answer */
    if (n > 1024 * 1024) return -1;
    *kind = REPLY_OK;
    for (long i = 0; i < n; i++) {
      if (p == end) return 0;
      if (*p != '$') return -1;
      long blen;
      k = parse_int_line(p + 1, end, &blen);
      if (k <= 0) return k;
      if (blen < 0 || blen > FRAME_MAX) return -1;
      p += 1 + k;
      if ((size_t)(end - p) < (size_t)blen + 2) return 0;
      if (p[blen] != '\r' || p[blen + 1] != '\n') return -1;
      if (i == 0) *kind = classify(p, (size_t)blen);
      p += blen + 2;
    }
    return p - buf;
  }
  /* inline: one line, words split on spaces */
  const char *nl = memchr(p, '\n', len);
  if (!nl) return 0;
  const char *le = nl;
  if (le > p && le[-1] == '\r') le--;
  const char *w = p;
  while (w < le && (*w == ' ' || *w == '\t')) w++;
  if (w == le) { *kind = REPLY_NONE; return (nl + 1) - buf; } /* empty line */
  const char *we = w;
  while (we < le && *we != ' ' && *we != '\t') we++;
  *kind = classify(w, (size_t)(we - w));
  return (nl + 1) - buf;
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *b) {
  (void)suggested;
  conn_t *c = (conn_t *)h;
  b->base = c->buf + c->len;
  b->len = BUF_CAP - c->len;
}

/* Writes c->out[0..outn): directly if the socket takes it, the rest through a queued uv_write.
 * uv_try_write fails with UV_EAGAIN while earlier writes are queued, so order is kept. */
static void flush(conn_t *c) {
  size_t n = c->outn;
  c->outn = 0;
  if (n == 0 || c->closing) return;
  uv_buf_t b = uv_buf_init(c->out, (unsigned)n);
  int r = uv_try_write((uv_stream_t *)&c->pipe, &b, 1);
  if (r == (int)n) return;
  if (r < 0 && r != UV_EAGAIN) { close_conn(c); return; }
  size_t done = r > 0 ? (size_t)r : 0;
  write_t *w = malloc(sizeof(write_t) + n - done);
  if (!w) { close_conn(c); return; }
  memcpy(w->data, c->out + done, n - done);
  w->out = uv_buf_init(w->data, (unsigned)(n - done));
  if (uv_write(&w->req, (uv_stream_t *)&c->pipe, &w->out, 1, on_write) != 0) {
    free(w);
    close_conn(c);
  }
}

static void read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *b) {
  (void)b;
  conn_t *c = (conn_t *)s;
  if (nread < 0) { close_conn(c); return; }
  if (nread == 0) return;
  c->len += (size_t)nread;

  /* room for the replies to everything buffered: at most 3 bytes per input byte */
  if (c->outn + 3 * c->len + sizeof(PROTO) > OUT_CAP) flush(c);
  if (c->closing) return;
  char *out = c->out;
  size_t outn = c->outn, off = 0;
  int quit = 0, bad = 0;
  while (off < c->len) {
    int kind = REPLY_NONE;
    long k = parse_frame(c->buf + off, c->len - off, &kind);
    if (k < 0) { bad = 1; break; }
    if (k == 0) break;
    off += (size_t)k;
    if (kind == REPLY_PONG) { memcpy(out + outn, PONG, 7); outn += 7; }
    else if (kind == REPLY_OK || kind == REPLY_QUIT) { memcpy(out + outn, OK, 5); outn += 5; }
    if (kind == REPLY_QUIT) { quit = 1; break; }
  }
  if (!bad && !quit && c->len - off > FRAME_MAX) bad = 1; /* incomplete frame too long */
  if (bad) { memcpy(out + outn, PROTO, sizeof(PROTO) - 1); outn += sizeof(PROTO) - 1; }

  c->outn = outn;
  if (bad || quit) {
    flush(c);
    close_conn(c);
    return;
  }
  if (outn && !c->pending) {
    c->pending = 1;
    c->next_pending = pending_head;
    pending_head = c;
  }
  if (off) {
    memmove(c->buf, c->buf + off, c->len - off);
    c->len -= off;
  }
}

static void flush_all(uv_check_t *h) {
  (void)h;
  while (pending_head) {
    conn_t *c = pending_head;
    pending_head = c->next_pending;
    c->pending = 0;
    flush(c);
  }
}

static void on_connection(uv_stream_t *srv, int status) {
  if (status < 0) return;
  conn_t *c = calloc(1, sizeof(conn_t));
  if (!c) return;
  c->buf = malloc(BUF_CAP);
  c->out = malloc(OUT_CAP);
  uv_pipe_init(loop, &c->pipe, 0);
  if (!c->buf || !c->out || uv_accept(srv, (uv_stream_t *)&c->pipe) != 0) { close_conn(c); return; }
  uv_read_start((uv_stream_t *)&c->pipe, alloc_cb, read_cb);
}

static void close_walk(uv_handle_t *h, void *arg) {
  (void)arg;
  if (!uv_is_closing(h)) {
    if (h->type == UV_NAMED_PIPE && h != (uv_handle_t *)&server) close_conn((conn_t *)h);
    else uv_close(h, NULL);
  }
}

static void on_signal(uv_signal_t *h, int signum) {
  (void)h; (void)signum;
  uv_walk(loop, close_walk, NULL);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s SOCKET_PATH\n", argv[0]);
    return 2;
  }
  sock_path = argv[1];
  signal(SIGPIPE, SIG_IGN);
  loop = uv_default_loop();
  uv_pipe_init(loop, &server, 0);
  unlink(sock_path);
  int r = uv_pipe_bind(&server, sock_path);
  if (r == 0) r = uv_listen((uv_stream_t *)&server, 511, on_connection);
  if (r != 0) {
    fprintf(stderr, "echo: %s: %s\n", sock_path, uv_strerror(r));
    return 1;
  }
  uv_check_init(loop, &flusher);
  uv_check_start(&flusher, flush_all);
  uv_unref((uv_handle_t *)&flusher);
  uv_signal_init(loop, &sigint_h);
  uv_signal_start(&sigint_h, on_signal, SIGINT);
  uv_signal_init(loop, &sigterm_h);
  uv_signal_start(&sigterm_h, on_signal, SIGTERM);
  fprintf(stderr, "echo: listening on %s\n", sock_path);
  uv_run(loop, UV_RUN_DEFAULT);
  unlink(sock_path);
  uv_loop_close(loop);
  return 0;
}
