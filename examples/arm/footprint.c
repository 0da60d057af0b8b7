/* footprint.c - the RAM the auth scenario takes on a microcontroller, run under QEMU by
 * `make footprint-arm` (mk/arm.mk), whose script adds the code sizes from the link map.
 *
 * The runtime lives in a static array (millrace_create_in) with the capacities the auth
 * machine needs and no more; the program runs the auth machine through a login and a
 * request, then prints the runtime's block and where it goes. A machine beyond the first is
 * measured by two more runtimes with the same pools, one of 1 machine and one of 31, and
 * dividing what the second takes more by 30: a machine's record, which is all a machine
 * costs beyond its queue slots (its effect queues' entries, its queued inputs and in-flight
 * effects are records of the runtime's pools, sized by the capacity, not per machine). Prints
 * "name value" lines for the script. */
#include <stdio.h>

#include "auth.h"
#include "millrace.h"

enum { MORE = 30 };

/* The auth machine alone: 1 machine, 4 queued inputs, 2 effects in flight, 2 timers, 4
 * effects per resolution, 2 queues, one observer. */
static const millrace_capacity_t capacity = {
    .machines = 1, .inputs_per_machine = 4, .effects_per_machine = 2, .timers = 2,
    .effects_per_resolution = 4, .queues = 2, .observers = 1};
static unsigned char memory[MILLRACE_RUNTIME_BYTES(1, 4, 2, 2, 4, 2, 1)];

/* Runtimes of 1 and of 1 + MORE machines with the same pools. */
static const millrace_capacity_t single = {
    .machines = 1, .inputs = 4, .effects = 4, .timers = 1, .effects_per_resolution = 4,
    .queues = 2 * (1 + MORE), .observers = 1};
static const millrace_capacity_t many = {
    .machines = 1 + MORE, .inputs = 4, .effects = 4, .timers = 1, .effects_per_resolution = 4,
    .queues = 2 * (1 + MORE), .observers = 1};
static unsigned char many_memory[MILLRACE_RUNTIME_BYTES(1 + MORE, 4, 4, 1, 4, 2 * (1 + MORE),
                                                        1)];

static unsigned replies;

static void count(void *context, millrace_machine_t machine, const millrace_event_t *event) {
    (void)context;
    (void)machine;
    (void)event;
    replies++;
}

/* The block of a runtime of `with` once `spawns` auth machines run in it, or 0 on any
 * failure. */
static size_t block_after(const millrace_capacity_t *with, unsigned spawns) {
    static struct auth auths[1 + MORE];
    millrace_runtime_t *runtime = NULL;
    millrace_machine_t machine;
    millrace_memory_stats_t stats = {0};

    if (millrace_create_in(many_memory, sizeof many_memory, with, &runtime) != MILLRACE_OK) {
        return 0;
    }
    for (unsigned index = 0; index < spawns; index++) {
        if (auth_spawn(runtime, &auths[index], 10 * 1000000ull, &machine) != MILLRACE_OK) {
            return 0;
        }
    }
    millrace_memory_stats(runtime, &stats);
    millrace_destroy(runtime);
    return stats.bytes;
}

int main(void) {
    static struct auth auth;
    millrace_runtime_t *runtime = NULL;
    millrace_machine_t machine;
    millrace_memory_stats_t stats = {0};
    size_t one;
    size_t more;

    if (millrace_create_in(memory, sizeof memory, &capacity, &runtime) != MILLRACE_OK ||
        auth_spawn(runtime, &auth, 10 * 1000000ull, &machine) != MILLRACE_OK ||
        millrace_observe(runtime, machine, count, NULL) != MILLRACE_OK) {
        printf("FAIL the auth runtime does not fit its %u-byte array\n",
               (unsigned)sizeof memory);
        return 1;
    }
    millrace_post(runtime, machine, AUTH_LOGIN);
    millrace_step(runtime, 0, 0);
    millrace_step(runtime, 20 * 1000000ull, 0);
    millrace_post(runtime, machine, AUTH_LOGOUT);
    millrace_step(runtime, 20 * 1000000ull, 0);
    millrace_memory_stats(runtime, &stats);
    millrace_destroy(runtime);
    one = block_after(&single, 1);
    more = block_after(&many, 1 + MORE);
    if (replies < 3 || one == 0 || more <= one) {
        printf("FAIL the auth runs: %u replies, %u and %u bytes\n", replies, (unsigned)one,
               (unsigned)more);
        return 1;
    }
    printf("buffer_bytes %u\n", (unsigned)sizeof memory);
    printf("runtime_bytes %u\n", (unsigned)stats.bytes);
    printf("header_bytes %u\n",
           (unsigned)(stats.bytes - stats.machine_bytes - stats.input_bytes - stats.effect_bytes -
                      stats.timer_bytes - stats.queue_bytes - stats.observer_bytes -
                      stats.resolution_bytes));
    printf("queue_entry_bytes %u\n", (unsigned)(stats.queue_bytes / 2));
    printf("observer_bytes %u\n", (unsigned)stats.observer_bytes);
    printf("machine_bytes %u\n", (unsigned)((more - one + MORE / 2) / MORE));
    printf("1 passed, 0 failed\n");
    return 0;
}
