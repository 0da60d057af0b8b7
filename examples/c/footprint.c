/* footprint.c - where a runtime's bytes go (`make footprint`): millrace_memory_stats() of the
 * default capacities and of the auth scenario's, each pool and one record of each kind,
 * checked against DESIGN.md's budget of a machine's record (64 bytes on a 64-bit target, 48
 * on a 32-bit one, beyond its queue slots). Prints "N passed, N failed". */
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "millrace.h"

/* The budget of one machine's record. */
enum { RECORD_BUDGET = UINTPTR_MAX == 0xFFFFFFFFu ? 48 : 64 };

static void show(const char *what, const millrace_capacity_t *capacity) {
    millrace_runtime_t *runtime = NULL;
    millrace_memory_stats_t stats = {0};

    if (!check(millrace_create(capacity, &runtime) == MILLRACE_OK &&
                   millrace_memory_stats(runtime, &stats) == MILLRACE_OK,
               "%s: created", what)) {
        return;
    }
    printf("%s: %zu bytes in one block\n", what, stats.bytes);
    printf("  machine records %6zu  (%zu each)\n", stats.machine_bytes, stats.machine_record);
    printf("  queued inputs   %6zu\n", stats.input_bytes);
    printf("  in-flight effects %4zu\n", stats.effect_bytes);
    printf("  timer heap      %6zu\n", stats.timer_bytes);
    printf("  effect queues   %6zu\n", stats.queue_bytes);
    printf("  observers       %6zu\n", stats.observer_bytes);
    printf("  effect buffer   %6zu\n", stats.resolution_bytes);
    printf("  header and alignment %zu\n",
           stats.bytes - stats.machine_bytes - stats.input_bytes - stats.effect_bytes -
               stats.timer_bytes - stats.queue_bytes - stats.observer_bytes -
               stats.resolution_bytes);
    check(stats.machine_record <= RECORD_BUDGET, "%s: a machine's record is %zu bytes (budget %d)",
          what, stats.machine_record, RECORD_BUDGET);
    millrace_destroy(runtime);
}

int main(void) {
    const millrace_capacity_t auth = {.machines = 1, .inputs_per_machine = 4,
                                      .effects_per_machine = 2, .timers = 2,
                                      .effects_per_resolution = 4, .queues = 2, .observers = 1};

    show("default capacities", NULL);
    show("the auth machine alone", &auth);
    return check_summary();
}
