/*
 * uvtimers.c: the raw libuv timer peer of DESIGN.md section 6 ("arm / cancel a timer",
 * "1 M timers fire"), what Millrace's timers are compared with.
 *
 *   uvtimers [-r BATCHES] [-o OUT.json]
 *
 * arm     time of uv_timer_start on 1,000 initialised, idle timers (distinct timeouts in
 *         1..2 s, so the heap really orders them), per timer; BATCHES batches, p50 and p90.
 * cancel  time of uv_timer_stop on 1,000 armed timers, per timer; same batches.
 * fire    1,000,000 timers armed with timeouts spread over 0..999 ms (arm time per timer is
 *         reported too), the loop left alone until all are due, then one uv_run(NOWAIT) that
 *         fires them all: its time divided by 1,000,000 is the cost of one fire (heap pop +
 *         callback). The callback only counts; the count is checked.
 * No allocation inside any timed region: all handles are allocated before.
 *
 * Build: cc -O2 -o uvtimers uvtimers.c -luv -lm   (or `make` in this folder).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#define BATCH 1000
#define MILLION 1000000

static uint64_t fired;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void on_timer(uv_timer_t *t) {
  (void)t;
  fired++;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p) {
  qsort(v, (size_t)n, sizeof(double), cmp_d);
  int i = (int)(p / 100.0 * n + 0.5) - 1;
  if (i < 0) i = 0;
  if (i >= n) i = n - 1;
  return v[i];
}

int main(int argc, char **argv) {
  int batches = 2000;
  const char *out = NULL;
  int opt;
  while ((opt = getopt(argc, argv, "r:o:")) != -1) {
    if (opt == 'r') batches = atoi(optarg);
    else if (opt == 'o') out = optarg;
    else {
      fprintf(stderr, "usage: uvtimers [-r BATCHES] [-o OUT.json]\n");
      return 2;
    }
  }
  if (batches < 10) batches = 10;

  uv_loop_t *loop = uv_default_loop();
  uv_timer_t *small = calloc(BATCH, sizeof(uv_timer_t));
  double *arm = calloc((size_t)batches, sizeof(double));
  double *cancel = calloc((size_t)batches, sizeof(double));
  for (int i = 0; i < BATCH; i++) uv_timer_init(loop, &small[i]);

  for (int b = 0; b < batches + 50; b++) { /* the first 50 batches warm up */
    uint64_t t0 = now_ns();
    for (int i = 0; i < BATCH; i++) uv_timer_start(&small[i], on_timer, 1000 + (uint64_t)((i * 7919) % 1000), 0);
    uint64_t t1 = now_ns();
    for (int i = 0; i < BATCH; i++) uv_timer_stop(&small[i]);
    uint64_t t2 = now_ns();
    if (b >= 50) {
      arm[b - 50] = (double)(t1 - t0) / BATCH;
      cancel[b - 50] = (double)(t2 - t1) / BATCH;
    }
  }
  double arm50 = pct(arm, batches, 50), arm90 = pct(arm, batches, 90);
  double can50 = pct(cancel, batches, 50), can90 = pct(cancel, batches, 90);

  uv_timer_t *big = calloc(MILLION, sizeof(uv_timer_t));
  if (!big) { fprintf(stderr, "uvtimers: out of memory\n"); return 1; }
  for (int i = 0; i < MILLION; i++) uv_timer_init(loop, &big[i]);
  uv_update_time(loop);
  uint64_t a0 = now_ns();
  for (int i = 0; i < MILLION; i++) uv_timer_start(&big[i], on_timer, (uint64_t)((i * 7919u) % 1000u), 0);
  uint64_t a1 = now_ns();
  struct timespec nap = {1, 50 * 1000 * 1000};
  nanosleep(&nap, NULL); /* every deadline is now past */
  fired = 0;
  uint64_t f0 = now_ns();
  uv_run(loop, UV_RUN_NOWAIT);
  uint64_t f1 = now_ns();
  if (fired != MILLION) {
    fprintf(stderr, "uvtimers: %llu of %d timers fired\n", (unsigned long long)fired, MILLION);
    return 1;
  }

  FILE *f = out ? fopen(out, "w") : stdout;
  if (!f) { perror(out); return 2; }
  fprintf(f,
          "{\"libuv\": \"%s\", \"batches\": %d,\n"
          " \"arm_ns\": {\"p50\": %.2f, \"p90\": %.2f},\n"
          " \"cancel_ns\": {\"p50\": %.2f, \"p90\": %.2f},\n"
          " \"arm_1M_ns\": %.2f, \"fire_1M_ns\": %.2f, \"fired\": %llu}\n",
          uv_version_string(), batches, arm50, arm90, can50, can90, (double)(a1 - a0) / MILLION,
          (double)(f1 - f0) / MILLION, (unsigned long long)fired);
  if (f != stdout) fclose(f);

  for (int i = 0; i < BATCH; i++) uv_close((uv_handle_t *)&small[i], NULL);
  for (int i = 0; i < MILLION; i++) uv_close((uv_handle_t *)&big[i], NULL);
  uv_run(loop, UV_RUN_DEFAULT);
  uv_loop_close(loop);
  free(big);
  free(small);
  free(arm);
  free(cancel);
  return 0;
}
