/* api_test.c - the C API's error cases and edge rules, checked against libmillrace.a:
 * bad arguments, unknown and removed machines, a full input queue, exhausted machine slots,
 * effect buffer, effect slots and timers, cancel of an unknown id, cancellation winning over
 * a queued delivery, calls made from inside callbacks, and step budgets.
 * Prints each check and "N passed, N failed"; exits non-zero on failure. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "memory_test.h"
#include "millrace.h"

#define MS 1000000ull
#define TIMER_ID 7
#define UNKNOWN_ID 999

/* What the probe machine does with each input. */
enum probe_input {
    PROBE_NOOP,          /* handled, nothing else */
    PROBE_REJECT,        /* records cancel(TIMER_ID), then rejects */
    PROBE_AFTER,         /* after(1 ms, PROBE_TICK, id TIMER_ID) */
    PROBE_TICK,          /* counts a tick */
    PROBE_CANCEL,        /* cancel(TIMER_ID) */
    PROBE_CANCEL_UNKNOWN, /* cancel(UNKNOWN_ID) */
    PROBE_BAD_EFFECTS,   /* records invalid effects, keeping the results */
    PROBE_FLOOD,         /* records sends until the effect buffer refuses one */
    PROBE_AFTER_THREE,   /* three afters */
    PROBE_REENTER,       /* calls step, destroy and set_diagnostic_observer from inside */
    PROBE_REMOVE_SELF,   /* removes its own machine, then emits */
    PROBE_SEND_THREE,    /* sends PROBE_NOOP three times */
};

enum { RESULTS = 8 };

/* The probe's context: where it is, and what it saw. */
struct probe {
    millrace_runtime_t *runtime;
    millrace_machine_t machine;
    int results[RESULTS];
    size_t result_count;
    unsigned ticks;
    unsigned replies;
    unsigned outputs;
    uint64_t last_tag;
    unsigned diagnostics[4];
    millrace_diagnostic_t last_diagnostic;
};

static void probe_keep(struct probe *probe, int result) {
    if (probe->result_count < RESULTS) {
        probe->results[probe->result_count++] = result;
    }
}

static void probe_on_diagnostic(void *context, const millrace_diagnostic_t *diagnostic) {
    struct probe *probe = context;

    probe->diagnostics[diagnostic->kind]++;
    probe->last_diagnostic = *diagnostic;
}

static int probe_resolve(void *context, int32_t input, int32_t *state,
                         millrace_effects_t *effects) {
    struct probe *probe = context;

    (void)state;
    switch (input) {
    case PROBE_NOOP:
        return MILLRACE_HANDLED;
    case PROBE_REJECT:
        millrace_effects_cancel(effects, TIMER_ID);
        return MILLRACE_REJECTED;
    case PROBE_AFTER:
        probe_keep(probe, millrace_effects_after(effects, 1 * MS, PROBE_TICK, 0, TIMER_ID));
        return MILLRACE_HANDLED;
    case PROBE_TICK:
        probe->ticks++;
        return MILLRACE_HANDLED;
    case PROBE_CANCEL:
        millrace_effects_cancel(effects, TIMER_ID);
        return MILLRACE_HANDLED;
    case PROBE_CANCEL_UNKNOWN:
        probe_keep(probe, millrace_effects_cancel(effects, UNKNOWN_ID));
        return MILLRACE_HANDLED;
    case PROBE_BAD_EFFECTS:
        probe_keep(probe, millrace_effects_after(effects, 1 * MS, PROBE_TICK, 1, 0));
        probe_keep(probe, millrace_effects_every(effects, 0, PROBE_TICK, 0, 0));
        probe_keep(probe, millrace_effects_after(effects, UINT64_MAX, PROBE_TICK, 0, 0));
        probe_keep(probe, millrace_effects_cancel(effects, 0));
        return MILLRACE_HANDLED;
    case PROBE_FLOOD:
        for (int result = MILLRACE_OK; result == MILLRACE_OK;) {
            result = millrace_effects_emit(effects, 1);
            probe_keep(probe, result);
        }
        return MILLRACE_HANDLED;
    case PROBE_AFTER_THREE:
        for (int index = 0; index < 3; index++) {
            millrace_effects_after(effects, 1 * MS, PROBE_TICK, 0, TIMER_ID);
        }
        return MILLRACE_HANDLED;
    case PROBE_REENTER:
        probe_keep(probe, (int)millrace_step(probe->runtime, 10 * MS, 0));
        probe_keep(probe, millrace_destroy(probe->runtime));
        probe_keep(probe, millrace_set_diagnostic_observer(probe->runtime, NULL, NULL));
        return MILLRACE_HANDLED;
    case PROBE_REMOVE_SELF:
        probe_keep(probe, millrace_remove(probe->runtime, probe->machine));
        millrace_effects_emit(effects, 1);
        return MILLRACE_HANDLED;
    case PROBE_SEND_THREE:
        for (int index = 0; index < 3; index++) {
            millrace_effects_send(effects, PROBE_NOOP);
        }
        return MILLRACE_HANDLED;
    default:
        return MILLRACE_REJECTED;
    }
}

static void probe_observe(void *context, millrace_machine_t machine,
                          const millrace_event_t *event) {
    struct probe *probe = context;

    (void)machine;
    if (event->kind == MILLRACE_EVENT_OUTPUT) {
        probe->outputs++;
    } else {
        probe->replies++;
        probe->last_tag = event->tag;
    }
}

static const millrace_machine_config_t probe_config = {.resolve = probe_resolve};

static void count_nothing(void *context, millrace_machine_t machine,
                          const millrace_event_t *event) {
    (void)context;
    (void)machine;
    (void)event;
}

/* The timer machine: input n < TIMER_TICK starts `after(10 ms, TIMER_TICK + n)` on queue 1
 * with id n + 1; TIMER_EVERY starts `every(10 ms, TIMER_TICK)` on queue 0 with id
 * TIMER_EVERY; TIMER_CANCEL + n cancels id n; TIMER_TICK + n notes when tick n came. */
enum { TIMER_TICK = 100, TIMER_EVERY = 50, TIMER_CANCEL = 200, TICKS = 8 };

struct timers {
    millrace_runtime_t *runtime;
    millrace_machine_t machine;
    unsigned count;
    int32_t ticks[TICKS];
    uint64_t at[TICKS];
};

static int timer_resolve(void *context, int32_t input, int32_t *state,
                         millrace_effects_t *effects) {
    struct timers *timers = context;

    (void)state;
    if (input >= TIMER_CANCEL) {
        millrace_effects_cancel(effects, (uint64_t)(input - TIMER_CANCEL));
    } else if (input >= TIMER_TICK) {
        if (timers->count < TICKS) {
            timers->ticks[timers->count] = input - TIMER_TICK;
            timers->at[timers->count++] = millrace_now(timers->runtime);
        }
    } else if (input == TIMER_EVERY) {
        millrace_effects_every(effects, 10 * MS, TIMER_TICK, 0, TIMER_EVERY);
    } else {
        millrace_effects_after(effects, 10 * MS, TIMER_TICK + input, 1, (uint64_t)input + 1);
    }
    return MILLRACE_HANDLED;
}

/* A runtime with a timer machine whose queue 1 has `policy` and a maximum of 1; posts
 * `inputs` (ending with -1) at time 0 and steps there. */
static void timers_start(struct timers *timers, int32_t policy, const int32_t *inputs) {
    const millrace_queue_t queues[2] = {{.policy = MILLRACE_MERGE}, {.policy = policy, .max = 1}};
    const millrace_machine_config_t config = {
        .resolve = timer_resolve, .context = timers, .queues = queues, .queue_count = 2};

    memset(timers, 0, sizeof *timers);
    millrace_create(NULL, &timers->runtime);
    millrace_spawn(timers->runtime, &config, &timers->machine);
    for (; *inputs >= 0; inputs++) {
        millrace_post(timers->runtime, timers->machine, *inputs);
    }
    millrace_step(timers->runtime, 0, 0);
}

/* Creates a runtime with `capacity` and spawns an observed probe machine with an input ring
 * of `inputs` (0: the default) in it. */
static void probe_start(struct probe *probe, millrace_capacity_t capacity, uint32_t inputs) {
    millrace_machine_config_t config = probe_config;

    memset(probe, 0, sizeof *probe);
    config.context = probe;
    config.input_capacity = inputs;
    millrace_create(&capacity, &probe->runtime);
    millrace_set_diagnostic_observer(probe->runtime, probe_on_diagnostic, probe);
    millrace_spawn(probe->runtime, &config, &probe->machine);
    millrace_observe(probe->runtime, probe->machine, probe_observe, probe);
}

static millrace_runtime_stats_t probe_runtime_stats(const struct probe *probe) {
    millrace_runtime_stats_t stats = {0};
    millrace_runtime_stats(probe->runtime, &stats);
    return stats;
}

static millrace_machine_stats_t probe_stats(const struct probe *probe) {
    millrace_machine_stats_t stats = {0};

    millrace_machine_stats(probe->runtime, probe->machine, &stats);
    return stats;
}

/* Posts `input` and steps at the runtime's current time. */
static void probe_run(struct probe *probe, int32_t input) {
    millrace_post(probe->runtime, probe->machine, input);
    millrace_step(probe->runtime, millrace_now(probe->runtime), 0);
}

static void test_bad_arguments(void) {
    const millrace_capacity_t too_big = {.timers = MILLRACE_CAPACITY_MAX + 1};
    millrace_runtime_t *runtime = NULL;
    millrace_machine_t machine = MILLRACE_MACHINE_NONE;
    millrace_machine_config_t config = probe_config;
    millrace_queue_t queue = {.policy = MILLRACE_LATEST, .max = 0};
    millrace_runtime_stats_t runtime_stats;
    int32_t state;

    check(millrace_create(NULL, NULL) == MILLRACE_INVALID, "create with NULL out: invalid");
    check(millrace_create(&too_big, &runtime) == MILLRACE_INVALID && runtime == NULL,
          "create with a capacity over MILLRACE_CAPACITY_MAX: invalid");
    {
        const millrace_capacity_t big_default = {.machines = 1000, .inputs_per_machine = 100};
        check(millrace_create(&big_default, &runtime) == MILLRACE_INVALID && runtime == NULL &&
                  millrace_runtime_bytes(&big_default) == 0,
              "create whose default input pool (machines x inputs) is over the maximum: invalid");
    }
    {
        const millrace_capacity_t long_rings = {.inputs_per_machine = MILLRACE_INPUTS_MAX + 1};
        const millrace_capacity_t many_effects = {.effects_per_machine = MILLRACE_EFFECTS_MAX + 1};
        check(millrace_create(&long_rings, &runtime) == MILLRACE_INVALID && runtime == NULL,
              "create with input rings over MILLRACE_INPUTS_MAX: invalid");
        check(millrace_create(&many_effects, &runtime) == MILLRACE_INVALID && runtime == NULL,
              "create with effect slots over MILLRACE_EFFECTS_MAX: invalid");
    }
#if UINTPTR_MAX == 0xFFFFFFFFu
    {
        /* On a 32-bit target: values that do not fit its int are refused, not a trap. */
        const millrace_capacity_t huge_machines = {.machines = 0x80000000u};
        const millrace_capacity_t huge_pool = {.machines = MILLRACE_CAPACITY_MAX,
                                               .inputs_per_machine = MILLRACE_INPUTS_MAX};
        check(millrace_create(&huge_machines, &runtime) == MILLRACE_INVALID && runtime == NULL,
              "create with 2^31 machines on a 32-bit target: invalid");
        check(millrace_create(&huge_pool, &runtime) == MILLRACE_INVALID && runtime == NULL,
              "create with a default input pool over 2^31 on a 32-bit target: invalid");
    }
#endif
    check(millrace_create(NULL, &runtime) == MILLRACE_OK, "create with NULL capacity: defaults");
    check(millrace_spawn(NULL, &config, &machine) == MILLRACE_INVALID, "spawn on NULL runtime");
    check(millrace_spawn(runtime, NULL, &machine) == MILLRACE_INVALID, "spawn with NULL config");
    check(millrace_spawn(runtime, &config, NULL) == MILLRACE_INVALID, "spawn with NULL out");
    config.resolve = NULL;
    check(millrace_spawn(runtime, &config, &machine) == MILLRACE_INVALID,
          "spawn with NULL resolver");
    config = probe_config;
    config.queue_count = 1;
    check(millrace_spawn(runtime, &config, &machine) == MILLRACE_INVALID,
          "spawn with NULL queues and a queue count");
    config.queues = &queue;
    check(millrace_spawn(runtime, &config, &machine) == MILLRACE_INVALID,
          "spawn with a latest queue of max 0");
    /* From 2^31 up a maximum does not fit a 32-bit int: refused, not a trap. */
    queue = (millrace_queue_t){.policy = MILLRACE_LATEST, .max = 0x80000000u};
    check(millrace_spawn(runtime, &config, &machine) == MILLRACE_INVALID,
          "spawn with a latest queue of max 2^31");
    queue = (millrace_queue_t){.policy = 42, .max = 1};
    check(millrace_spawn(runtime, &config, &machine) == MILLRACE_INVALID,
          "spawn with an unknown policy");
    config.queue_count = MILLRACE_QUEUES_MAX + 1;
    check(millrace_spawn(runtime, &config, &machine) == MILLRACE_INVALID,
          "spawn with more than MILLRACE_QUEUES_MAX queues");
    config = probe_config;
    config.input_capacity = MILLRACE_INPUTS_MAX + 1;
    check(millrace_spawn(runtime, &config, &machine) == MILLRACE_INVALID,
          "spawn with an input ring over MILLRACE_INPUTS_MAX");
    config.input_capacity = MILLRACE_INPUTS_MAX;
    check(millrace_spawn(runtime, &config, &machine) == MILLRACE_OK &&
              millrace_remove(runtime, machine) == MILLRACE_OK,
          "spawn with an input ring of exactly MILLRACE_INPUTS_MAX");
    machine = MILLRACE_MACHINE_NONE;
    config.input_capacity = MILLRACE_CAPACITY_MAX + 1;
    check(millrace_spawn(runtime, &config, &machine) == MILLRACE_INVALID,
          "spawn with an input ring over MILLRACE_CAPACITY_MAX");
    check(machine == MILLRACE_MACHINE_NONE, "a refused spawn writes no id");

    check(millrace_post(NULL, machine, 0) == MILLRACE_INVALID, "post to NULL runtime");
    check(millrace_state(runtime, machine, NULL) == MILLRACE_INVALID, "state into NULL");
    check(millrace_state(NULL, machine, &state) == MILLRACE_INVALID, "state of NULL runtime");
    check(millrace_observe(runtime, machine, NULL, NULL) == MILLRACE_INVALID,
          "observe with NULL observer");
    check(millrace_machine_stats(runtime, machine, NULL) == MILLRACE_INVALID,
          "machine stats into NULL");
    check(millrace_runtime_stats(NULL, &runtime_stats) == MILLRACE_INVALID &&
              millrace_runtime_stats(runtime, NULL) == MILLRACE_INVALID,
          "runtime stats with NULL arguments");
    check(millrace_remove(NULL, machine) == MILLRACE_INVALID, "remove on NULL runtime");
    check(millrace_set_diagnostic_observer(NULL, NULL, NULL) == MILLRACE_INVALID,
          "diagnostic observer on NULL runtime");
    check(millrace_step(NULL, 0, 0) == 0 && millrace_now(NULL) == 0 &&
              millrace_next_deadline(NULL) == MILLRACE_NO_DEADLINE,
          "step, now and next_deadline accept NULL");
    check(millrace_effects_send(NULL, 0) == MILLRACE_INVALID &&
              millrace_effects_emit(NULL, 0) == MILLRACE_INVALID &&
              millrace_effects_after(NULL, 1, 0, 0, 0) == MILLRACE_INVALID &&
              millrace_effects_every(NULL, 1, 0, 0, 0) == MILLRACE_INVALID &&
              millrace_effects_cancel(NULL, 1) == MILLRACE_INVALID,
          "effects on a NULL handle");
    check(millrace_effect_id(NULL, 3) == 0 &&
              millrace_effect_id("req", 3) == millrace_effect_id("req", 3) &&
              millrace_effect_id("req", 3) != millrace_effect_id("res", 3) &&
              millrace_effect_id("", 0) != 0,
          "effect ids: stable, distinct, never 0 for a name");
    check(millrace_destroy(runtime) == MILLRACE_OK && millrace_destroy(NULL) == MILLRACE_OK,
          "destroy, and destroy NULL");
}

static void test_unknown_and_removed_machines(void) {
    struct probe probe;
    millrace_machine_t removed;
    millrace_machine_t reused;
    millrace_machine_stats_t stats;
    int32_t state;

    probe_start(&probe, (millrace_capacity_t){.machines = 1}, 0);
    check(millrace_post(probe.runtime, MILLRACE_MACHINE_NONE, 0) == MILLRACE_NO_MACHINE,
          "post to MILLRACE_MACHINE_NONE: no machine");
    check(millrace_post(probe.runtime, ((uint64_t)1 << 32) | 77, 0) == MILLRACE_NO_MACHINE,
          "post to a slot beyond the capacity: no machine");
    removed = probe.machine;
    check(millrace_remove(probe.runtime, removed) == MILLRACE_OK, "remove");
    check(millrace_post(probe.runtime, removed, 0) == MILLRACE_NO_MACHINE &&
              millrace_state(probe.runtime, removed, &state) == MILLRACE_NO_MACHINE &&
              millrace_machine_stats(probe.runtime, removed, &stats) == MILLRACE_NO_MACHINE &&
              millrace_observe(probe.runtime, removed, probe_observe, &probe) ==
                  MILLRACE_NO_MACHINE &&
              millrace_remove(probe.runtime, removed) == MILLRACE_NO_MACHINE,
          "a removed machine: post, state, stats, observe, remove all answer no machine");
    check(millrace_spawn(probe.runtime, &probe_config, &reused) == MILLRACE_OK &&
              reused != removed && millrace_post(probe.runtime, removed, 0) == MILLRACE_NO_MACHINE,
          "its slot is reused under a new id; the old id stays dead");
    millrace_destroy(probe.runtime);
}

static void test_full_queue(void) {
    struct probe probe;
    millrace_machine_stats_t stats;

    probe_start(&probe, (millrace_capacity_t){0}, 2);
    check(millrace_post(probe.runtime, probe.machine, PROBE_NOOP) == MILLRACE_OK &&
              millrace_post(probe.runtime, probe.machine, PROBE_NOOP) == MILLRACE_OK,
          "two posts fill a ring of 2");
    check(millrace_post(probe.runtime, probe.machine, PROBE_NOOP) == MILLRACE_QUEUE_FULL,
          "the third post: queue full");
    stats = probe_stats(&probe);
    check(stats.dropped == 1 && stats.queued == 2 && stats.queue_high_water == 2,
          "counted as dropped; high-water mark 2");
    check(millrace_next_deadline(probe.runtime) == millrace_now(probe.runtime),
          "queued inputs: the next deadline is now");
    check(millrace_step(probe.runtime, 0, 1) == 1 &&
              millrace_next_deadline(probe.runtime) == millrace_now(probe.runtime),
          "a step with budget 1 resolves one input and asks to step again");
    check(millrace_step(probe.runtime, 0, SIZE_MAX) == 1 &&
              millrace_next_deadline(probe.runtime) == MILLRACE_NO_DEADLINE,
          "the next step (budget SIZE_MAX: no limit) resolves the rest; then nothing is due");
    check(millrace_post_tagged(probe.runtime, probe.machine, PROBE_NOOP, 42) == MILLRACE_OK &&
              millrace_step(probe.runtime, 0, 0) == 1 && probe.last_tag == 42,
          "a tagged post's reply carries the tag");
    probe_run(&probe, PROBE_SEND_THREE);
    check(probe.diagnostics[MILLRACE_DIAG_INPUT_QUEUE_FULL] == 1 &&
              probe.last_diagnostic.source == MILLRACE_SOURCE_SEND &&
              probe.last_diagnostic.machine == probe.machine,
          "a send into a full queue is reported (input queue full, source send)");
    millrace_destroy(probe.runtime);
}

static void test_machines_exhausted(void) {
    struct probe probe;
    millrace_machine_t second;
    millrace_machine_t third;
    millrace_runtime_stats_t stats;

    probe_start(&probe, (millrace_capacity_t){.machines = 2}, 0);
    check(millrace_spawn(probe.runtime, &probe_config, &second) == MILLRACE_OK,
          "spawn the second of 2 machines");
    check(millrace_spawn(probe.runtime, &probe_config, &third) == MILLRACE_NO_CAPACITY,
          "spawn a third: no capacity");
    millrace_runtime_stats(probe.runtime, &stats);
    check(stats.spawns_refused == 1 && stats.machines == 2 && stats.machines_high_water == 2,
          "counted as a refused spawn; high-water mark 2");
    millrace_remove(probe.runtime, second);
    check(millrace_spawn(probe.runtime, &probe_config, &third) == MILLRACE_OK,
          "after a remove, a spawn succeeds");
    millrace_destroy(probe.runtime);
}

static void test_pools_exhausted(void) {
    const millrace_capacity_t few = {.machines = 4, .inputs = 3, .queues = 3, .observers = 1};
    const millrace_queue_t two[2] = {{.policy = MILLRACE_MERGE},
                                     {.policy = MILLRACE_LATEST, .max = 1}};
    millrace_machine_config_t queued = probe_config;
    millrace_runtime_t *runtime = NULL;
    millrace_machine_t first;
    millrace_machine_t second;
    millrace_machine_t third;
    millrace_runtime_stats_t stats;
    millrace_machine_stats_t machine_stats;

    queued.queues = two;
    queued.queue_count = 2;
    check(millrace_create(&few, &runtime) == MILLRACE_OK &&
              millrace_spawn(runtime, &queued, &first) == MILLRACE_OK &&
              millrace_spawn(runtime, &probe_config, &second) == MILLRACE_OK,
          "two machines take the three queue entries (two queues, then the default one)");
    check(millrace_spawn(runtime, &probe_config, &third) == MILLRACE_NO_CAPACITY,
          "a third finds no queue entry: no capacity, with machine records left");
    millrace_runtime_stats(runtime, &stats);
    check(stats.spawns_refused == 1 && stats.machines == 2, "counted as a refused spawn");
    millrace_remove(runtime, first);
    check(millrace_spawn(runtime, &probe_config, &third) == MILLRACE_OK,
          "a removed machine's queue entries serve the next spawn");
    check(millrace_observe(runtime, second, count_nothing, NULL) == MILLRACE_OK &&
              millrace_observe(runtime, third, count_nothing, NULL) == MILLRACE_NO_CAPACITY,
          "the observer pool of 1 holds one registration: the second is refused");
    check(millrace_post(runtime, second, PROBE_NOOP) == MILLRACE_OK &&
              millrace_post(runtime, second, PROBE_NOOP) == MILLRACE_OK &&
              millrace_post(runtime, third, PROBE_NOOP) == MILLRACE_OK,
          "three posts fill the input pool of 3");
    millrace_machine_stats(runtime, third, &machine_stats);
    check(millrace_post(runtime, third, PROBE_NOOP) == MILLRACE_QUEUE_FULL &&
              machine_stats.queued == 1,
          "a fourth finds the pool full before its machine's limit of 8: queue full");
    check(millrace_step(runtime, 0, 0) == 3 && millrace_post(runtime, third, PROBE_NOOP) == MILLRACE_OK,
          "once resolved, the cells serve again");
    millrace_destroy(runtime);
}

static void test_policies(void) {
    struct timers timers;
    millrace_runtime_stats_t stats;

    timers_start(&timers, MILLRACE_OLDEST_SUSPEND, (const int32_t[]){0, 1, 2, -1});
    millrace_step(timers.runtime, 100 * MS, 0);
    millrace_runtime_stats(timers.runtime, &stats);
    check(timers.count == 3 && timers.ticks[0] == 0 && timers.ticks[1] == 1 &&
              timers.ticks[2] == 2 && timers.at[0] == 10 * MS && timers.at[1] == 20 * MS &&
              timers.at[2] == 30 * MS && stats.effects_started == 3,
          "oldest(1, suspend): the second and third wait, FIFO, each starting when the one "
          "before is delivered (ticks at 10, 20 and 30 ms)");
    millrace_destroy(timers.runtime);

    timers_start(&timers, MILLRACE_OLDEST_SUSPEND,
                 (const int32_t[]){0, 1, 2, TIMER_CANCEL + 2, -1});
    millrace_step(timers.runtime, 100 * MS, 0);
    millrace_runtime_stats(timers.runtime, &stats);
    check(timers.count == 2 && timers.ticks[0] == 0 && timers.ticks[1] == 2 &&
              timers.at[1] == 20 * MS && stats.effects_cancelled == 1,
          "a waiting timer cancelled by id never starts; the next waiting one takes its turn");
    millrace_destroy(timers.runtime);

    timers_start(&timers, MILLRACE_OLDEST_DISCARD, (const int32_t[]){0, 1, -1});
    millrace_step(timers.runtime, 100 * MS, 0);
    millrace_runtime_stats(timers.runtime, &stats);
    check(timers.count == 1 && timers.ticks[0] == 0 && stats.discarded == 1 &&
              stats.effects_started == 1,
          "oldest(1, discard): the second is dropped and counted as discarded");
    millrace_destroy(timers.runtime);

    timers_start(&timers, MILLRACE_LATEST, (const int32_t[]){0, -1});
    millrace_post(timers.runtime, timers.machine, 1);
    millrace_step(timers.runtime, 5 * MS, 0);
    millrace_step(timers.runtime, 100 * MS, 0);
    millrace_runtime_stats(timers.runtime, &stats);
    check(timers.count == 1 && timers.ticks[0] == 1 && timers.at[0] == 15 * MS &&
              stats.effects_cancelled == 1,
          "latest(1): a new timer cancels the one in flight (only the second ticks, at 15 ms)");
    millrace_destroy(timers.runtime);
}

static void test_same_instant(void) {
    struct timers timers;

    timers_start(&timers, MILLRACE_MERGE, (const int32_t[]){0, 1, 2, 3, -1});
    millrace_step(timers.runtime, 100 * MS, 0);
    check(timers.count == 4 && timers.ticks[0] == 0 && timers.ticks[1] == 1 &&
              timers.ticks[2] == 2 && timers.ticks[3] == 3 && timers.at[3] == 10 * MS,
          "timers due at the same instant fire in the order they were armed (%d %d %d %d)",
          (int)timers.ticks[0], (int)timers.ticks[1], (int)timers.ticks[2], (int)timers.ticks[3]);
    millrace_destroy(timers.runtime);
}

static void test_every(void) {
    struct timers timers;

    timers_start(&timers, MILLRACE_MERGE, (const int32_t[]){TIMER_EVERY, -1});
    check(millrace_step(timers.runtime, 35 * MS, 0) == 3 && timers.count == 3 &&
              timers.at[0] == 10 * MS && timers.at[1] == 20 * MS && timers.at[2] == 30 * MS &&
              millrace_now(timers.runtime) == 35 * MS &&
              millrace_next_deadline(timers.runtime) == 40 * MS,
          "every(10 ms) stepped late to 35 ms: each period fires at its own instant");
    millrace_post(timers.runtime, timers.machine, TIMER_CANCEL + TIMER_EVERY);
    millrace_step(timers.runtime, 35 * MS, 0);
    check(millrace_next_deadline(timers.runtime) == MILLRACE_NO_DEADLINE &&
              millrace_step(timers.runtime, 100 * MS, 0) == 0 && timers.count == 3,
          "cancelled, it fires no more");
    millrace_destroy(timers.runtime);
}

/* The order machines resolve in: each input appends its machine's letter. */
static char turns[16];
static size_t turn_count;

static int note_turn(void *context, int32_t input, int32_t *state, millrace_effects_t *effects) {
    (void)input;
    (void)state;
    (void)effects;
    if (turn_count + 1 < sizeof turns) {
        turns[turn_count++] = *(const char *)context;
    }
    return MILLRACE_HANDLED;
}

/* An observer that removes the machine it observes at its first reply. */
struct remover {
    millrace_runtime_t *runtime;
    unsigned events;
    unsigned late_events;
};

static void remove_at_reply(void *context, millrace_machine_t machine,
                            const millrace_event_t *event) {
    struct remover *remover = context;

    (void)event;
    remover->events++;
    millrace_remove(remover->runtime, machine);
}

static void count_late(void *context, millrace_machine_t machine, const millrace_event_t *event) {
    struct remover *remover = context;

    (void)machine;
    (void)event;
    remover->late_events++;
}

/* An observer that registers `count_late` on its machine at its first event. */
static void observe_more(void *context, millrace_machine_t machine,
                         const millrace_event_t *event) {
    struct remover *remover = context;

    (void)event;
    if (remover->events++ == 0) {
        millrace_observe(remover->runtime, machine, count_late, remover);
    }
}

static void test_turns_and_observers(void) {
    static const char names[2] = {'a', 'b'};
    millrace_runtime_t *runtime = NULL;
    millrace_machine_t machines[2];
    struct remover remover = {0};
    millrace_machine_t observed;

    millrace_create(NULL, &runtime);
    for (int index = 0; index < 2; index++) {
        const millrace_machine_config_t config = {.resolve = note_turn,
                                                  .context = (void *)&names[index]};
        millrace_spawn(runtime, &config, &machines[index]);
    }
    for (int index = 0; index < 3; index++) {
        millrace_post(runtime, machines[0], 0);
    }
    for (int index = 0; index < 3; index++) {
        millrace_post(runtime, machines[1], 0);
    }
    turn_count = 0;
    check(millrace_step(runtime, 0, 0) == 6 && turn_count == 6 &&
              memcmp(turns, "ababab", 6) == 0,
          "machines with inputs queued take turns, one input each (%.6s)", turns);

    remover.runtime = runtime;
    millrace_spawn(runtime, &probe_config, &observed);
    millrace_observe(runtime, observed, remove_at_reply, &remover);
    millrace_observe(runtime, observed, count_late, &remover);
    millrace_post(runtime, observed, PROBE_SEND_THREE);
    check(millrace_step(runtime, 0, 0) == 1 && remover.events == 1 && remover.late_events == 0 &&
              millrace_post(runtime, observed, PROBE_NOOP) == MILLRACE_NO_MACHINE,
          "an observer that removes its machine at a reply: the observers after it see nothing, "
          "the input's effects do not apply, the machine is gone");

    remover = (struct remover){.runtime = runtime};
    millrace_spawn(runtime, &probe_config, &observed);
    millrace_observe(runtime, observed, observe_more, &remover);
    millrace_observe(runtime, observed, count_nothing, NULL);
    millrace_post(runtime, observed, PROBE_NOOP);
    millrace_step(runtime, 0, 0);
    check(remover.events == 1 && remover.late_events == 0,
          "an observer registered during a reply (by the first of two) sees later events only, "
          "not that reply");
    millrace_post(runtime, observed, PROBE_NOOP);
    millrace_step(runtime, 0, 0);
    check(remover.events == 2 && remover.late_events == 1, "and it sees the next one");
    millrace_destroy(runtime);
}

static void test_timer_into_full_queue(void) {
    struct probe probe;

    probe_start(&probe, (millrace_capacity_t){0}, 1);
    probe_run(&probe, PROBE_AFTER);
    millrace_post(probe.runtime, probe.machine, PROBE_NOOP);
    millrace_step(probe.runtime, 0, 0);
    millrace_post(probe.runtime, probe.machine, PROBE_NOOP);
    millrace_step(probe.runtime, 2 * MS, 1);
    check(probe.diagnostics[MILLRACE_DIAG_INPUT_QUEUE_FULL] == 1 &&
              probe.last_diagnostic.source == MILLRACE_SOURCE_TIMER && probe.ticks == 0,
          "a timer firing into a full queue is reported (input queue full, source timer)");
    millrace_step(probe.runtime, 10 * MS, 0);
    check(probe.ticks == 0 && probe_runtime_stats(&probe).timers == 0 &&
              millrace_next_deadline(probe.runtime) == MILLRACE_NO_DEADLINE,
          "and its after ends there: nothing left armed or in flight");
    millrace_destroy(probe.runtime);
}

static void test_remove_with_timers(void) {
    struct timers timers;
    millrace_runtime_stats_t stats;
    millrace_machine_t other;

    timers_start(&timers, MILLRACE_MERGE, (const int32_t[]){TIMER_EVERY, 0, -1});
    millrace_runtime_stats(timers.runtime, &stats);
    check(stats.timers == 2, "a machine with two timers armed");
    check(millrace_remove(timers.runtime, timers.machine) == MILLRACE_OK, "removed");
    millrace_runtime_stats(timers.runtime, &stats);
    check(stats.timers == 0 && stats.effects_cancelled == 2 &&
              millrace_next_deadline(timers.runtime) == MILLRACE_NO_DEADLINE,
          "its timers are cancelled and counted; nothing is due");
    check(millrace_spawn(timers.runtime, &probe_config, &other) == MILLRACE_OK &&
              millrace_step(timers.runtime, 100 * MS, 0) == 0 && timers.count == 0,
          "a machine in its slot receives none of its timers");
    millrace_destroy(timers.runtime);
}

static void test_effects_exhausted(void) {
    struct probe probe;
    millrace_machine_stats_t stats;

    probe_start(&probe, (millrace_capacity_t){.effects_per_resolution = 3}, 0);
    probe_run(&probe, PROBE_FLOOD);
    check(probe.result_count == 4 && probe.results[2] == MILLRACE_OK &&
              probe.results[3] == MILLRACE_NO_CAPACITY,
          "the fourth effect of a resolution with a buffer of 3: no capacity");
    check(probe.outputs == 3, "the three recorded effects still apply");
    check(probe.diagnostics[MILLRACE_DIAG_EFFECT_BUFFER_FULL] == 1 &&
              probe.last_diagnostic.dropped == 1 && probe_runtime_stats(&probe).effects_overflowed == 1,
          "reported (effect buffer full, 1 dropped) and counted");
    millrace_destroy(probe.runtime);

    probe_start(&probe, (millrace_capacity_t){.effects_per_machine = 2}, 0);
    probe_run(&probe, PROBE_AFTER_THREE);
    check(probe.diagnostics[MILLRACE_DIAG_EFFECT_SLOTS_FULL] == 1,
          "a third timer with 2 effect slots: reported (effect slots full)");
    millrace_step(probe.runtime, 5 * MS, 0);
    stats = probe_stats(&probe);
    check(probe.ticks == 2 && probe_runtime_stats(&probe).effects_started == 2 &&
              probe_runtime_stats(&probe).effects_overflowed == 1 && stats.effects_high_water == 2,
          "the two that fit fire; one overflow counted; high-water mark 2");
    millrace_destroy(probe.runtime);

    probe_start(&probe, (millrace_capacity_t){.timers = 2}, 0);
    probe_run(&probe, PROBE_AFTER_THREE);
    check(probe.diagnostics[MILLRACE_DIAG_TIMERS_FULL] == 1,
          "a third timer with a timer table of 2: reported (timers full)");
    millrace_step(probe.runtime, 5 * MS, 0);
    {
        millrace_runtime_stats_t runtime_stats;
        millrace_runtime_stats(probe.runtime, &runtime_stats);
        check(probe.ticks == 2 && runtime_stats.timers_high_water == 2 &&
                  runtime_stats.timers == 0 && runtime_stats.diagnostics == 1,
              "the two that fit fire; timer high-water mark 2, none left");
    }
    millrace_destroy(probe.runtime);
}

static void test_bad_effects(void) {
    struct probe probe;

    probe_start(&probe, (millrace_capacity_t){0}, 0);
    probe_run(&probe, PROBE_BAD_EFFECTS);
    check(probe.result_count == 4, "the resolver tried four bad effects");
    check(probe.results[0] == MILLRACE_INVALID, "after on an undeclared queue: invalid");
    check(probe.results[1] == MILLRACE_INVALID, "every with period 0: invalid");
    check(probe.results[2] == MILLRACE_INVALID, "after beyond INT64_MAX ns: invalid");
    check(probe.results[3] == MILLRACE_INVALID, "cancel of id 0: invalid");
    check(millrace_next_deadline(probe.runtime) == MILLRACE_NO_DEADLINE &&
              probe_runtime_stats(&probe).effects_started == 0,
          "none of them started anything");
    millrace_destroy(probe.runtime);
}

static void test_cancel(void) {
    struct probe probe;

    probe_start(&probe, (millrace_capacity_t){0}, 0);
    probe_run(&probe, PROBE_AFTER);
    probe_run(&probe, PROBE_CANCEL_UNKNOWN);
    check(probe.results[1] == MILLRACE_OK, "cancel of an unknown id: recorded, not an error");
    probe_run(&probe, PROBE_REJECT);
    millrace_step(probe.runtime, 2 * MS, 0);
    check(probe.ticks == 1 && probe_runtime_stats(&probe).effects_cancelled == 0,
          "it cancelled nothing, nor did a rejected input's cancel: the timer fired");

    probe_run(&probe, PROBE_AFTER);
    millrace_post(probe.runtime, probe.machine, PROBE_CANCEL);
    millrace_step(probe.runtime, 3 * MS, 0);
    check(probe.ticks == 1 && probe_runtime_stats(&probe).effects_cancelled == 1 &&
              probe_runtime_stats(&probe).discarded == 1,
          "cancellation wins: a delivery queued behind the cancel is discarded");
    millrace_destroy(probe.runtime);
}

static void test_callbacks(void) {
    struct probe probe;

    probe_start(&probe, (millrace_capacity_t){0}, 0);
    probe_run(&probe, PROBE_REENTER);
    check(probe.results[0] == 0, "step from a resolver: 0, nothing happens");
    check(probe.results[1] == MILLRACE_BUSY, "destroy from a resolver: busy");
    check(probe.results[2] == MILLRACE_BUSY, "set_diagnostic_observer from a resolver: busy");
    check(millrace_now(probe.runtime) == 0, "the inner step did not move time");

    probe.replies = probe.outputs = 0;
    probe_run(&probe, PROBE_REMOVE_SELF);
    check(probe.results[3] == MILLRACE_OK && probe.replies == 0 && probe.outputs == 0,
          "a machine removing itself: no reply, its effects not applied");
    check(millrace_post(probe.runtime, probe.machine, 0) == MILLRACE_NO_MACHINE,
          "and it is gone");
    millrace_destroy(probe.runtime);
}

int main(void) {
    test_bad_arguments();
    test_unknown_and_removed_machines();
    test_full_queue();
    test_machines_exhausted();
    test_pools_exhausted();
    test_policies();
    test_every();
    test_same_instant();
    test_remove_with_timers();
    test_turns_and_observers();
    test_timer_into_full_queue();
    test_effects_exhausted();
    test_bad_effects();
    test_cancel();
    test_callbacks();
    memory_tests();
    return check_summary();
}
