/* hiredis (Debian's libhiredis-dev, RESP2) through the client matrix's scenario
 * (docs/clients.md) over the daemon's Unix socket:
 *
 *   hiredis_client SOCKET PREFIX [millraced|redis]
 *   hiredis_client SOCKET --scale MACHINES COUNT
 *
 * Prints one line per step (PASS/FAIL, "hiredis", the step, the reason) and exits 1 when a step
 * failed. Every reply is awaited at most TIMEOUT_S seconds. The second form pipelines COUNT
 * `SEND tN flip` to random `toggle` machines t0 ... t(MACHINES - 1) that exist already, checks
 * every reply, then reads back the state of each machine sent to (IntegrationTests'
 * LookaheadTests, where the daemon decodes requests ahead). */
#include <hiredis/hiredis.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TIMEOUT_S 5
#define NAMES 20

static const char *sock, *prefix;
static int redis_target, failed;
static char names[NAMES][96], reason[400];
static redisContext *main_ctx;

/* Returns 0 after noting why a step failed, for `return fail(...)`. */
static int fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  return 0;
}

/* A short text of a reply for the reasons. */
static const char *show(const redisReply *r) {
  static char buf[200];
  if (!r) return "no reply (connection error or timeout)";
  switch (r->type) {
  case REDIS_REPLY_ERROR: snprintf(buf, sizeof buf, "error \"%s\"", r->str); break;
  case REDIS_REPLY_STATUS: snprintf(buf, sizeof buf, "+%s", r->str); break;
  case REDIS_REPLY_STRING: snprintf(buf, sizeof buf, "\"%s\"", r->str); break;
  case REDIS_REPLY_INTEGER: snprintf(buf, sizeof buf, ":%lld", r->integer); break;
  case REDIS_REPLY_NIL: snprintf(buf, sizeof buf, "nil"); break;
  default: {
    int n = snprintf(buf, sizeof buf, "array of %zu [", r->elements);
    for (size_t i = 0; i < r->elements && n < (int)sizeof buf - 40; i++) {
      const redisReply *e = r->element[i];
      n += snprintf(buf + n, sizeof buf - n, "%s%s", i ? " " : "",
                    e->type == REDIS_REPLY_STRING || e->type == REDIS_REPLY_STATUS ? e->str
                    : e->type == REDIS_REPLY_ARRAY ? "[...]" : "?");
    }
    snprintf(buf + n, sizeof buf - n, "]");
  }
  }
  return buf;
}

static redisContext *connect_ctx(void) {
  struct timeval tv = {TIMEOUT_S, 0};
  redisContext *c = redisConnectUnixWithTimeout(sock, tv);
  if (c && !c->err) redisSetTimeout(c, tv);
  return c;
}

/* The argv of SPAWN counter N / SEND N I / STATE N as the target spells them (counter.lua). */
static int mcmd(const char **argv, const char *verb, const char *name, const char *input) {
  if (!redis_target) {
    int n = 0;
    argv[n++] = verb;
    if (!strcmp(verb, "SPAWN")) argv[n++] = "counter";
    argv[n++] = name;
    if (input) argv[n++] = input;
    return n;
  }
  if (!strcmp(verb, "STATE")) return argv[0] = "GET", argv[1] = name, 2;
  argv[0] = "FCALL", argv[1] = !strcmp(verb, "SPAWN") ? "spawn" : "send", argv[2] = "1";
  argv[3] = name, argv[4] = input;
  return input ? 5 : 4;
}

static redisReply *machine(redisContext *c, const char *verb, const char *name, const char *input) {
  const char *argv[5];
  return redisCommandArgv(c, mcmd(argv, verb, name, input), argv, NULL);
}

static int is_str(const redisReply *r, const char *s) {
  return r && (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS) && !strcmp(r->str, s);
}

/* An array of strings equal to the NULL-terminated `want`. */
static int is_strings(const redisReply *r, const char *const *want) {
  size_t n = 0;
  while (want[n]) n++;
  if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != n) return 0;
  for (size_t i = 0; i < n; i++)
    if (r->element[i]->type != REDIS_REPLY_STRING || strcmp(r->element[i]->str, want[i])) return 0;
  return 1;
}

static int is_pair(const redisReply *r, long from, long to) {
  char a[24], b[24];
  snprintf(a, sizeof a, "%ld", from), snprintf(b, sizeof b, "%ld", to);
  return is_strings(r, (const char *const[]){a, b, NULL});
}

/* Frees the reply and returns whether it passed; else notes `what` and the reply. */
static int check(redisReply *r, int ok, const char *what) {
  if (!ok) fail("%s: got %s", what, show(r));
  if (r) freeReplyObject(r);
  return ok;
}

static int step_connect(void) {
  main_ctx = connect_ctx();
  if (!main_ctx || main_ctx->err) return fail("connect: %s", main_ctx ? main_ctx->errstr : "no memory");
  redisReply *r = redisCommand(main_ctx, "PING");
  return check(r, r && r->type == REDIS_REPLY_STATUS && is_str(r, "PONG"), "PING");
}

static int step_spawn(void) {
  for (int i = 0; i < NAMES; i++) {
    redisReply *r = machine(main_ctx, "SPAWN", names[i], NULL);
    if (!check(r, r && r->type == REDIS_REPLY_STATUS && is_str(r, "OK"), names[i])) return 0;
  }
  return 1;
}

static char *name_of(const char *suffix) {
  static char buf[96];
  snprintf(buf, sizeof buf, "%s.%s", prefix, suffix);
  return buf;
}

static int step_send(void) {
  redisReply *r = machine(main_ctx, "SEND", name_of("m"), "inc");
  return check(r, is_pair(r, 0, 1), "SEND inc, want [0 1]");
}

static int step_state(void) {
  redisReply *r = machine(main_ctx, "STATE", name_of("m"), NULL);
  return check(r, r && r->type == REDIS_REPLY_STRING && is_str(r, "1"), "STATE, want \"1\"");
}

static int error_step(const char *name, const char *input, const char *want, size_t len) {
  redisReply *r = machine(main_ctx, "SEND", name, input);
  return check(r, r && r->type == REDIS_REPLY_ERROR && !strncmp(r->str, want, len), want);
}

static int step_nomachine(void) { return error_step(name_of("none"), "inc", "NOMACHINE", 9); }
static int step_rejected(void) { return error_step(name_of("rej"), "dec", "REJECTED dec in 0", 18); }

static int step_pipeline(void) {
  const char *argv[5];
  int argc = mcmd(argv, "SEND", name_of("pipe"), "inc"), ok = 1;
  for (int i = 0; i < 100; i++) redisAppendCommandArgv(main_ctx, argc, argv, NULL);
  for (int i = 0; i < 100; i++) { /* all of them, so that no later step reads one */
    redisReply *r = NULL;
    if (redisGetReply(main_ctx, (void **)&r) != REDIS_OK) return fail("reply %d: %s", i, main_ctx->errstr);
    char what[40];
    snprintf(what, sizeof what, "reply %d, want [%d %d]", i, i, i + 1);
    ok = check(r, ok ? is_pair(r, i, i + 1) : 1, what) && ok;
  }
  if (!ok) return 0;
  redisReply *r = machine(main_ctx, "STATE", name_of("pipe"), NULL);
  return check(r, is_str(r, "100"), "STATE after, want \"100\"");
}

static int step_transaction(void) {
  redisReply *r = redisCommand(main_ctx, "MULTI");
  if (!check(r, is_str(r, "OK"), "MULTI")) return 0;
  for (int i = 0; i < 2; i++) {
    r = machine(main_ctx, "SEND", name_of("tx"), "inc");
    if (!check(r, r && r->type == REDIS_REPLY_STATUS && is_str(r, "QUEUED"), "SEND in MULTI")) {
      if ((r = redisCommand(main_ctx, "DISCARD"))) freeReplyObject(r); /* leave MULTI */
      return 0;
    }
  }
  r = redisCommand(main_ctx, "EXEC");
  int ok = r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 && is_pair(r->element[0], 0, 1) &&
           is_pair(r->element[1], 1, 2);
  return check(r, ok, "EXEC, want [[0 1] [1 2]]");
}

/* SUBSCRIBE or PSUBSCRIBE `channel` on a new connection, SEND inc to `machine_name` on the main
 * one, and the message must be `want` (NULL-terminated). */
static int pubsub(const char *kind, const char *channel, const char *machine_name, const char *const *want) {
  redisContext *s = connect_ctx();
  if (!s || s->err) return fail("connect: %s", s ? s->errstr : "no memory");
  int ok = 0;
  redisReply *r = redisCommand(s, "%s %s", kind, channel);
  if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 3 && is_str(r->element[0], kind) &&
      is_str(r->element[1], channel) && r->element[2]->type == REDIS_REPLY_INTEGER &&
      r->element[2]->integer == 1) {
    freeReplyObject(r);
    r = machine(main_ctx, "SEND", machine_name, "inc");
    if (check(r, is_pair(r, 0, 1), "SEND inc, want [0 1]")) {
      r = NULL;
      if (redisGetReply(s, (void **)&r) != REDIS_OK) fail("no message: %s", s->errstr);
      else ok = check(r, is_strings(r, want), "message");
    }
  } else {
    check(r, 0, kind);
  }
  redisFree(s);
  return ok;
}

static int step_pubsub(void) {
  char name[96];
  snprintf(name, sizeof name, "%s", name_of("sub"));
  return pubsub("subscribe", name, name, (const char *const[]){"message", name, "inc 0 1", NULL});
}

static int step_psubscribe(void) {
  char name[96], pattern[96];
  snprintf(name, sizeof name, "%s", name_of("psub"));
  snprintf(pattern, sizeof pattern, "%s", name_of("ps*"));
  return pubsub("psubscribe", pattern, name,
                (const char *const[]){"pmessage", pattern, name, "inc 0 1", NULL});
}

/* SCAN with MATCH PREFIX.* COUNT 5 until the cursor is "0": every spawned name, nothing else. */
static int step_scan(void) {
  char cursor[64] = "0", pattern[96];
  int seen[NAMES] = {0}, calls = 0;
  snprintf(pattern, sizeof pattern, "%s", name_of("*"));
  do {
    redisReply *r = redisCommand(main_ctx, "SCAN %s MATCH %s COUNT 5", cursor, pattern);
    if (!(r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
          r->element[0]->type == REDIS_REPLY_STRING && r->element[1]->type == REDIS_REPLY_ARRAY))
      return check(r, 0, "SCAN, want [cursor [names...]]");
    snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
    for (size_t i = 0; i < r->element[1]->elements; i++) {
      const char *got = r->element[1]->element[i]->str;
      int j = 0;
      while (j < NAMES && (!got || strcmp(got, names[j]))) j++;
      if (j == NAMES) {
        fail("SCAN returned %s, not one of ours", got ? got : "a non-string");
        freeReplyObject(r);
        return 0;
      }
      seen[j] = 1;
    }
    freeReplyObject(r);
  } while (strcmp(cursor, "0") && ++calls < 1000);
  if (calls == 1000) return fail("no cursor 0 after 1000 calls");
  for (int j = 0; j < NAMES; j++)
    if (!seen[j]) return fail("SCAN never returned %s", names[j]);
  return 1;
}

/* A kind with data (examples/machines/login.json, millraced only): arguments after the input,
   the context in STATE ... WITHCONTEXT, an argument that does not fit refused. */
static int step_data(void) {
  char n[96];
  snprintf(n, sizeof n, "%s-login", prefix); /* outside the pattern of the scan step */
  redisReply *r = redisCommand(main_ctx, "SPAWN login %s", n);
  if (!check(r, is_str(r, "OK"), "SPAWN login")) return 0;
  r = redisCommand(main_ctx, "SEND %s login %s %s", n, "ann lee", "1234");
  if (!check(r, is_strings(r, (const char *const[]){"idle", "session", NULL}), "SEND login")) return 0;
  r = redisCommand(main_ctx, "STATE %s WITHCONTEXT", n);
  const char *const context[] = {"session", "attempts", "0", "user", "ann lee", NULL};
  if (!check(r, is_strings(r, context), "STATE WITHCONTEXT")) return 0;
  r = redisCommand(main_ctx, "SEND %s logout now", n);
  return check(
      r, r && r->type == REDIS_REPLY_ERROR &&
             !strcmp(r->str, "NOINPUT kind login: input logout takes no arguments; got 1"),
      "SEND logout now");
}

/* The --scale form: COUNT pipelined SENDs to random machines of MACHINES, then their states. */
static int scale(long machines, long count) {
  redisContext *c = connect_ctx();
  char name[32];
  long *flips = calloc((size_t)machines, sizeof *flips);
  long *sent = malloc((size_t)count * sizeof *sent);
  int ok = c && !c->err && flips && sent;
  if (!ok) fail("connect: %s", c ? c->errstr : "no memory");
  srand(1);
  for (long i = 0; ok && i < count; i++) {
    sent[i] = rand() % machines;
    flips[sent[i]]++;
    snprintf(name, sizeof name, "t%ld", sent[i]);
    ok = redisAppendCommand(c, "SEND %s flip", name) == REDIS_OK || fail("append: %s", c->errstr);
  }
  for (long i = 0; ok && i < count; i++) {
    redisReply *r = NULL;
    if (redisGetReply(c, (void **)&r) != REDIS_OK) ok = fail("reply %ld: %s", i, c->errstr);
    else if (r->type != REDIS_REPLY_ARRAY || r->elements != 2)
      ok = fail("SEND t%ld flip (%ld of %ld): %s", sent[i], i, count, show(r));
    if (r) freeReplyObject(r);
  }
  long touched = 0;
  for (long m = 0; ok && m < machines; m++) {
    if (!flips[m]) continue;
    snprintf(name, sizeof name, "t%ld", m);
    ok = redisAppendCommand(c, "STATE %s", name) == REDIS_OK || fail("append: %s", c->errstr);
    touched++;
  }
  for (long m = 0; ok && m < machines; m++) {
    if (!flips[m]) continue;
    redisReply *r = NULL;
    const char *want = flips[m] % 2 ? "on" : "off";
    if (redisGetReply(c, (void **)&r) != REDIS_OK) ok = fail("state of t%ld: %s", m, c->errstr);
    else if (!is_str(r, want)) ok = fail("t%ld after %ld flips: %s", m, flips[m], show(r));
    if (r) freeReplyObject(r);
  }
  if (ok) printf("PASS  %-22s scale %ld SENDs, %ld machines read back\n", "hiredis", count, touched);
  else printf("FAIL  %-22s %-11s %s\n", "hiredis", "scale", reason);
  free(flips);
  free(sent);
  if (c) redisFree(c);
  return !ok;
}

int main(int argc, char **argv) {
  if (argc == 5 && !strcmp(argv[2], "--scale")) {
    sock = argv[1];
    return scale(atol(argv[3]), atol(argv[4]));
  }
  if (argc < 3) {
    fprintf(stderr, "usage: %s SOCKET PREFIX [millraced|redis]\n", argv[0]);
    return 2;
  }
  sock = argv[1], prefix = argv[2], redis_target = argc > 3 && !strcmp(argv[3], "redis");
  const char *suffixes[] = {"m", "rej", "pipe", "tx", "sub", "psub"};
  for (int i = 0; i < NAMES; i++) {
    if (i < 6) snprintf(names[i], sizeof names[i], "%s.%s", prefix, suffixes[i]);
    else snprintf(names[i], sizeof names[i], "%s.s%02d", prefix, i - 5);
  }
  static const struct { const char *name; int (*run)(void); } steps[] = {
      {"connect", step_connect},     {"spawn", step_spawn},         {"send", step_send},
      {"state", step_state},         {"nomachine", step_nomachine}, {"rejected", step_rejected},
      {"pipeline", step_pipeline},   {"transaction", step_transaction},
      {"pubsub", step_pubsub},       {"psubscribe", step_psubscribe}, {"scan", step_scan},
  };
  size_t count = sizeof steps / sizeof steps[0] + !redis_target;
  for (size_t i = 0; i < count; i++) {
    int data = i == sizeof steps / sizeof steps[0];
    reason[0] = 0;
    if (!main_ctx && i > 0) fail("no connection");
    int ok = (main_ctx || i == 0) && !(main_ctx && main_ctx->err) &&
             (data ? step_data() : steps[i].run());
    if (!ok && !reason[0]) fail("connection: %s", main_ctx ? main_ctx->errstr : "none");
    const char *name = data ? "data" : steps[i].name;
    if (ok) printf("PASS  %-22s %s\n", "hiredis", name);
    else printf("FAIL  %-22s %-11s %s\n", "hiredis", name, reason), failed = 1;
    fflush(stdout);
  }
  if (main_ctx) redisFree(main_ctx);
  return failed;
}
