/* scenario.c - see scenario.h. */
#include "scenario.h"

#include <stdio.h>

#include "check.h"

/* When each act happens, in ticks; a request answers 10 ticks after it starts. */
static const uint32_t scenario_ticks[] = {0, 3, 5, 7, 13, 20, 33, 36, 46};

size_t scenario_acts(void) {
    return sizeof scenario_ticks / sizeof *scenario_ticks;
}

uint64_t scenario_time(const struct scenario *scenario, size_t act) {
    return scenario_ticks[act] * scenario->tick_ns;
}

/* Prints each reply and output with the time in ticks, and counts them. */
static void scenario_observe(void *context, millrace_machine_t machine,
                             const millrace_event_t *event) {
    struct scenario *scenario = context;
    double tick = (double)millrace_now(scenario->runtime) / (double)scenario->tick_ns;

    (void)machine;
    switch (event->kind) {
    case MILLRACE_EVENT_HANDLED:
        scenario->replies[event->input]++;
        printf("     t=%4.1f  %s: %s -> %s\n", tick, auth_input_name(event->input),
               auth_state_name(event->from), auth_state_name(event->to));
        break;
    case MILLRACE_EVENT_REJECTED:
        scenario->replies[event->input]++;
        scenario->failures++;
        printf("     t=%4.1f  %s: rejected in %s\n", tick, auth_input_name(event->input),
               auth_state_name(event->from));
        break;
    case MILLRACE_EVENT_OUTPUT:
        scenario->outputs[event->output]++;
        printf("     t=%4.1f  emit %s\n", tick, auth_output_name(event->output));
        break;
    }
}

#ifdef MILLRACE_EXAMPLE_STATIC
/* On a microcontroller (mk/arm.mk builds it so): the runtime in a static array sized at
 * compile time for the capacities below (4 machines of up to 8 queued inputs and 4 effects,
 * 32 inputs and 16 effects in all, 8 timers, 8 effects per resolution, 8 queues, 4
 * observers), and a heap that refuses and counts, to show that the library never asks it. */
static unsigned char memory[MILLRACE_RUNTIME_BYTES(4, 32, 16, 8, 8, 8, 4)];
static unsigned heap_calls;

static void *refuse(void *context, size_t size, size_t alignment) {
    (void)context;
    (void)size;
    (void)alignment;
    heap_calls++;
    return NULL;
}

static void give_back(void *context, void *block) {
    (void)context;
    (void)block;
    heap_calls++;
}
#endif

int scenario_start(struct scenario *scenario, uint64_t tick_ns) {
    const millrace_capacity_t capacity = {
        .machines = 4, .inputs_per_machine = 8, .effects_per_machine = 4, .inputs = 32,
        .effects = 16, .timers = 8, .effects_per_resolution = 8, .queues = 8, .observers = 4};
    int result;

    *scenario = (struct scenario){.tick_ns = tick_ns};
#ifdef MILLRACE_EXAMPLE_STATIC
    millrace_set_allocator(&(millrace_allocator_t){refuse, give_back, NULL});
    result = millrace_create_in(memory, sizeof memory, &capacity, &scenario->runtime);
#else
    result = millrace_create(&capacity, &scenario->runtime);
#endif
    if (result == MILLRACE_OK) {
        result = auth_spawn(scenario->runtime, &scenario->auth, 10 * tick_ns, &scenario->machine);
    }
    if (result == MILLRACE_OK) {
        result = millrace_observe(scenario->runtime, scenario->machine, scenario_observe, scenario);
    }
    if (result != MILLRACE_OK) {
        printf("FAIL scenario set-up: result %d\n", result);
        return 1;
    }
    return 0;
}

static void scenario_post(struct scenario *scenario, int32_t input) {
    check(millrace_post(scenario->runtime, scenario->machine, input) == MILLRACE_OK,
          "post %s accepted", auth_input_name(input));
}

static void scenario_expect(struct scenario *scenario, int32_t expected, const char *why) {
    int32_t state = -1;

    millrace_state(scenario->runtime, scenario->machine, &state);
    check(state == expected, "%s (state %s)", why, auth_state_name(state));
}

void scenario_act(struct scenario *scenario, size_t act) {
    switch (act) {
    case 0:
        scenario_post(scenario, AUTH_LOGIN);
        break;
    case 1:
        scenario_expect(scenario, AUTH_LOGGING_IN, "login starts logging in");
        break;
    case 2:
        scenario_post(scenario, AUTH_LOGIN);
        break;
    case 3:
        check(scenario->failures == 1 && scenario->replies[AUTH_LOGIN] == 2,
              "a second login while logging in is rejected, with a reply");
        scenario_post(scenario, AUTH_FORCE_LOGOUT);
        break;
    case 4:
        scenario_expect(scenario, AUTH_LOGGING_OUT, "forceLogout logs out");
        check(scenario->replies[AUTH_LOGIN_OK] == 0,
              "latest queue: the logout request cancelled loginOK (due at t=10)");
        break;
    case 5:
        scenario_expect(scenario, AUTH_LOGGED_OUT, "logoutOK arrives 10 ticks after forceLogout");
        scenario_post(scenario, AUTH_LOGIN);
        break;
    case 6:
        scenario_expect(scenario, AUTH_LOGGED_IN, "loginOK arrives 10 ticks after login");
        check(scenario->outputs[AUTH_WELCOME] == 1, "loginOK emits welcome");
        scenario_post(scenario, AUTH_LOGOUT);
        break;
    case 7:
        scenario_post(scenario, AUTH_STOP);
        break;
    case 8:
        scenario_expect(scenario, AUTH_LOGGING_OUT, "stop cancelled logoutOK (due at t=43)");
        check(scenario->outputs[AUTH_STOPPED] == 1, "stop emits stopped");
        check(millrace_next_deadline(scenario->runtime) == MILLRACE_NO_DEADLINE,
              "no timer left armed");
        break;
    }
}

int scenario_finish(struct scenario *scenario) {
    millrace_machine_stats_t machine;
    millrace_runtime_stats_t runtime;

    if (check(millrace_machine_stats(scenario->runtime, scenario->machine, &machine) == MILLRACE_OK,
              "machine statistics")) {
        check(machine.posted == 8 && machine.handled == 7 && machine.rejected == 1,
              "8 inputs posted: 7 handled, 1 rejected");
        check(machine.dropped == 0, "nothing dropped");
        check(machine.queue_high_water == 1 && machine.effects_high_water == 1,
              "high-water marks: 1 queued input, 1 timer in flight");
    }
    if (check(millrace_runtime_stats(scenario->runtime, &runtime) == MILLRACE_OK,
              "runtime statistics")) {
        check(runtime.machines == 1 && runtime.dispatched == 8 && runtime.timers == 0 &&
                  runtime.timers_high_water == 1 && runtime.diagnostics == 0,
              "runtime: 1 machine, 8 inputs dispatched, timers 0 now and 1 at most");
        check(runtime.effects_started == 4 && runtime.effects_cancelled == 2,
              "4 timers started, 2 cancelled (latest queue, stop)");
        check(runtime.effects_overflowed == 0, "no effect overflowed");
    }
#ifdef MILLRACE_EXAMPLE_STATIC
    {
        millrace_memory_stats_t stats = {0};

        millrace_memory_stats(scenario->runtime, &stats);
        check(stats.bytes > 0 && stats.bytes <= sizeof memory,
              "the runtime in a static array of %lu bytes takes %lu (%lu per machine)",
              (unsigned long)sizeof memory, (unsigned long)stats.bytes,
              (unsigned long)stats.machine_record);
    }
#endif
    millrace_destroy(scenario->runtime);
#ifdef MILLRACE_EXAMPLE_STATIC
    check(heap_calls == 0, "the library never called the heap (%u calls)", heap_calls);
#endif
    return check_summary();
}
