/* scenario.h - the auth scenario both drivers run: a simulated clock (sim.c, the embedded
 * build) and libuv with real time (uv.c, the normal build). The scenario is a list of acts at
 * fixed times, in ticks; a request takes 10 ticks. Each act checks what should have happened
 * by then, then posts inputs; the driver steps the runtime in between. */
#ifndef MILLRACE_EXAMPLE_SCENARIO_H
#define MILLRACE_EXAMPLE_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "auth.h"

/* The runtime, the machine and what its observer saw. */
struct scenario {
    millrace_runtime_t *runtime;
    millrace_machine_t machine;
    struct auth auth;
    uint64_t tick_ns;
    unsigned replies[AUTH_INPUT_COUNT];
    unsigned failures;
    unsigned outputs[AUTH_OUTPUT_COUNT];
};

/* How many acts the scenario has, and the time of act `act` in nanoseconds. */
size_t scenario_acts(void);
uint64_t scenario_time(const struct scenario *scenario, size_t act);

/* Creates the runtime and the auth machine and observes it. Returns 0, or 1 after printing
 * why it failed. */
int scenario_start(struct scenario *scenario, uint64_t tick_ns);

/* Performs act `act`: its checks, then its posts. */
void scenario_act(struct scenario *scenario, size_t act);

/* Checks the statistics, destroys the runtime, prints "N passed, N failed" and returns the
 * exit status. */
int scenario_finish(struct scenario *scenario);

#endif
