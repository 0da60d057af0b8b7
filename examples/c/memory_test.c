/* memory_test.c - the C API's memory (millrace.h, "Memory"), checked against libmillrace.a
 * (linked into api-test): runtimes in callers' buffers of every size and heaps that fail
 * after every number of allocations, where each allocating call must answer MILLRACE_OK or
 * MILLRACE_NO_CAPACITY - never crash, never leak - and a runtime in a buffer must never call
 * the heap. */
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "memory_test.h"
#include "millrace.h"

#define MS 1000000ull

enum { MACHINES = 4, MANY = 32, BUFFER_BYTES = 16 << 10 };

static const millrace_capacity_t capacity = {
    .machines = MACHINES, .inputs_per_machine = 4, .effects_per_machine = 2, .timers = 8,
    .effects_per_resolution = 4};

/* Input 0 arms a 1 ms timer that sends 1 and emits the state; input 1 counts. */
static int ticker_resolve(void *context, int32_t input, int32_t *state,
                          millrace_effects_t *effects) {
    (void)context;
    if (input == 0) {
        millrace_effects_after(effects, MS, 1, 0, 0);
        millrace_effects_emit(effects, *state);
    } else {
        (*state)++;
    }
    return MILLRACE_HANDLED;
}

static void count_event(void *context, millrace_machine_t machine,
                        const millrace_event_t *event) {
    (void)machine;
    (void)event;
    (*(unsigned *)context)++;
}

static void count_diagnostic(void *context, const millrace_diagnostic_t *diagnostic) {
    (void)diagnostic;
    (*(unsigned *)context)++;
}

/* What `exercise` saw. */
struct outcome {
    unsigned refused;    /* allocating calls that answered MILLRACE_NO_CAPACITY */
    unsigned unexpected; /* answers that are neither MILLRACE_OK nor MILLRACE_NO_CAPACITY */
    unsigned events;
};

static void note(struct outcome *outcome, int result) {
    if (result == MILLRACE_NO_CAPACITY) {
        outcome->refused++;
    } else if (result != MILLRACE_OK) {
        outcome->unexpected++;
    }
}

/* What a program does with a runtime, then destroys it: a diagnostic observer; `count`
 * machines (at most MANY) of two kinds (the second with a latest queue), each observed and
 * posted to; a step through their timers; a remove and a spawn again. Every allocating call
 * may be refused. */
static void exercise_many(millrace_runtime_t *runtime, int count, struct outcome *outcome) {
    static const millrace_queue_t latest = {.policy = MILLRACE_LATEST, .max = 1};
    millrace_machine_config_t config = {.resolve = ticker_resolve};
    millrace_machine_t machines[MANY] = {0};
    unsigned diagnostics = 0;

    note(outcome, millrace_set_diagnostic_observer(runtime, count_diagnostic, &diagnostics));
    for (int index = 0; index < count && index < MANY; index++) {
        config.queues = index % 2 ? &latest : NULL;
        config.queue_count = index % 2 ? 1 : 0;
        note(outcome, millrace_spawn(runtime, &config, &machines[index]));
        if (machines[index] != MILLRACE_MACHINE_NONE) {
            note(outcome, millrace_observe(runtime, machines[index], count_event,
                                           &outcome->events));
            /* Posting never allocates. */
            if (millrace_post(runtime, machines[index], 0) != MILLRACE_OK) {
                outcome->unexpected++;
            }
        }
    }
    millrace_step(runtime, 2 * MS, 0);
    if (machines[0] != MILLRACE_MACHINE_NONE) {
        if (millrace_remove(runtime, machines[0]) != MILLRACE_OK) {
            outcome->unexpected++;
        }
        config.queues = NULL;
        config.queue_count = 0;
        note(outcome, millrace_spawn(runtime, &config, &machines[0]));
    }
    if (millrace_destroy(runtime) != MILLRACE_OK) {
        outcome->unexpected++;
    }
}

/* `exercise_many` with MACHINES machines, as `capacity` allows. */
static void exercise(millrace_runtime_t *runtime, struct outcome *outcome) {
    exercise_many(runtime, MACHINES, outcome);
}

/* ---- a heap that counts, with a limit on the bytes it lends ---- */

struct heap {
    unsigned allocations; /* calls to allocate */
    unsigned live;        /* blocks allocated and not freed */
    size_t bytes;         /* bytes lent now */
    size_t limit;         /* the most it lends at once */
};

static struct heap heap;

enum { HEADER = 16 };

static void *heap_allocate(void *context, size_t size, size_t alignment) {
    static alignas(16) unsigned char space[64 << 10];
    static size_t used;
    unsigned char *memory;

    (void)context;
    heap.allocations++;
    if (size > heap.limit - heap.bytes || alignment > HEADER) {
        return NULL;
    }
    /* A bump allocator over a static array, a block's size in a header before it: the test
     * needs no heap of its own. It starts over when a run's blocks are all freed. */
    if (heap.live == 0) {
        used = 0;
    }
    size = (size + HEADER - 1) / HEADER * HEADER;
    if (size + HEADER > sizeof space - used) {
        return NULL;
    }
    memory = space + used + HEADER;
    memcpy(memory - HEADER, &size, sizeof size);
    used += size + HEADER;
    heap.live++;
    heap.bytes += size;
    return memory;
}

static void heap_deallocate(void *context, void *memory) {
    size_t size;

    (void)context;
    memcpy(&size, (unsigned char *)memory - HEADER, sizeof size);
    heap.live--;
    heap.bytes -= size;
}

static const millrace_allocator_t counting = {heap_allocate, heap_deallocate, NULL};

/* ---- the tests ---- */

static void test_create_in_arguments(void) {
    static alignas(16) unsigned char buffer[64];
    millrace_runtime_t *runtime = NULL;
    millrace_memory_stats_t stats;
    const millrace_capacity_t too_big = {.timers = MILLRACE_CAPACITY_MAX + 1};

    check(millrace_create_in(NULL, 1024, NULL, &runtime) == MILLRACE_INVALID,
          "create_in: a NULL buffer is invalid");
    check(millrace_create_in(buffer, sizeof buffer, NULL, NULL) == MILLRACE_INVALID,
          "create_in: a NULL runtime is invalid");
    check(millrace_create_in(buffer, sizeof buffer, &too_big, &runtime) == MILLRACE_INVALID,
          "create_in: a capacity out of range is invalid");
    check(millrace_create_in(buffer, sizeof buffer, NULL, &runtime) == MILLRACE_NO_CAPACITY &&
              runtime == NULL,
          "create_in: 64 bytes hold no runtime: no capacity, nothing written");
    check(millrace_create(NULL, &runtime) == MILLRACE_OK &&
              millrace_memory_stats(runtime, &stats) == MILLRACE_INVALID &&
              millrace_destroy(runtime) == MILLRACE_OK,
          "memory_stats of a heap runtime is invalid");
    check(millrace_set_allocator(&(millrace_allocator_t){NULL, heap_deallocate, NULL}) ==
              MILLRACE_INVALID,
          "set_allocator: an allocator without allocate is invalid");
}

/* The smallest buffer in which `exercise` is refused nothing, found by growing it. */
static size_t smallest_whole(unsigned char *buffer) {
    for (size_t size = 256; size <= BUFFER_BYTES; size += 16) {
        millrace_runtime_t *runtime = NULL;
        struct outcome outcome = {0};

        if (millrace_create_in(buffer, size, &capacity, &runtime) != MILLRACE_OK) {
            continue;
        }
        exercise(runtime, &outcome);
        if (outcome.refused == 0 && outcome.unexpected == 0) {
            return size;
        }
    }
    return 0;
}

static void test_buffers_of_every_size(void) {
    static alignas(16) unsigned char buffer[BUFFER_BYTES];
    size_t whole = smallest_whole(buffer);
    unsigned created = 0;
    unsigned partial = 0;
    unsigned unexpected = 0;
    millrace_runtime_t *runtime = NULL;
    millrace_memory_stats_t stats = {0};
    struct outcome outcome = {0};
    int result;

    check(whole > 0, "a %lu-byte buffer holds a runtime of %d machines, their kinds, "
                     "observers and timers", (unsigned long)whole, MACHINES);
    /* Every size up to it, 4 bytes apart: each call answers OK or NO_CAPACITY. */
    for (size_t size = 0; size <= whole; size += 4) {
        struct outcome each = {0};
        int result = millrace_create_in(buffer, size, &capacity, &runtime);

        if (result == MILLRACE_OK) {
            created++;
            exercise(runtime, &each);
            partial += each.refused > 0;
            unexpected += each.unexpected;
        } else if (result != MILLRACE_NO_CAPACITY) {
            unexpected++;
        }
    }
    check(unexpected == 0, "buffers of every size up to it: every call answers OK or "
                           "NO_CAPACITY (%u others)", unexpected);
    check(created > 0 && partial > 0 && partial < created,
          "the smaller ones create the runtime but refuse a later spawn or observer "
          "(%u of %u created)", partial, created);

    /* The whole run again, in a buffer of that size, with a heap that counts. */
    memset(&heap, 0, sizeof heap);
    heap.limit = SIZE_MAX;
    millrace_set_allocator(&counting);
    result = millrace_create_in(buffer, whole, &capacity, &runtime);
    millrace_memory_stats(runtime, &stats);
    check(result == MILLRACE_OK && stats.size == whole && stats.used > 0 &&
              stats.used <= stats.high_water && stats.high_water <= whole,
          "memory_stats: %lu of %lu bytes in use after create, at most %lu",
          (unsigned long)stats.used, (unsigned long)stats.size, (unsigned long)stats.high_water);
    exercise(runtime, &outcome);
    check(outcome.refused == 0 && outcome.unexpected == 0 && outcome.events > 0,
          "the run is refused nothing and observers see its %u events", outcome.events);
    check(heap.allocations == 0, "a runtime in a buffer never calls the heap (%u calls)",
          heap.allocations);
    millrace_set_allocator(NULL);
    check(millrace_create_in(buffer, whole, &capacity, &runtime) == MILLRACE_OK &&
              millrace_memory_stats(runtime, &stats) == MILLRACE_OK &&
              millrace_destroy(runtime) == MILLRACE_OK,
          "the buffer is the caller's again after destroy: a new runtime fits in it");
}

static void test_heap_that_runs_out(void) {
    unsigned refused_create = 0;
    unsigned partial = 0;
    unsigned unexpected = 0;
    unsigned leaked = 0;
    size_t whole = 0;

    millrace_set_allocator(&counting);
    /* Heaps of every size, 16 bytes apart, until a run needs no refusal. */
    for (size_t limit = 0; limit <= BUFFER_BYTES && whole == 0; limit += 16) {
        millrace_runtime_t *runtime = NULL;
        struct outcome outcome = {0};
        int result;

        memset(&heap, 0, sizeof heap);
        heap.limit = limit;
        result = millrace_create(&capacity, &runtime);
        if (result == MILLRACE_OK) {
            exercise(runtime, &outcome);
            partial += outcome.refused > 0;
            unexpected += outcome.unexpected;
            whole = outcome.refused == 0 ? limit : 0;
        } else if (result == MILLRACE_NO_CAPACITY) {
            refused_create++;
        } else {
            unexpected++;
        }
        leaked += heap.live;
    }
    millrace_set_allocator(NULL);
    check(whole > 0, "a run needs a heap of %lu bytes", (unsigned long)whole);
    check(unexpected == 0 && refused_create > 0 && partial > 0,
          "heaps of every size below: create refused %u times, a later call %u times, "
          "nothing else (%u others)", refused_create, partial, unexpected);
    check(leaked == 0, "and every refused call gives back what it had allocated (%u blocks "
                       "left)", leaked);
}

/* MILLRACE_RUNTIME_BYTES holds the runs above, and one of many machines, without being far
 * above what they need. */
static void test_runtime_bytes(void) {
    enum { FEW_BYTES = MILLRACE_RUNTIME_BYTES(MACHINES, 4 * MACHINES, 2 * MACHINES, 8, 4, 2, 1,
                                              MACHINES + 1),
           MANY_BYTES = MILLRACE_RUNTIME_BYTES(MANY, 2 * MANY, 2 * MANY, MANY, 4, 2, 1, MANY + 1) };
    static alignas(16) unsigned char few[FEW_BYTES];
    static alignas(16) unsigned char many[MANY_BYTES];
    const millrace_capacity_t many_capacity = {
        .machines = MANY, .inputs_per_machine = 2, .effects_per_machine = 2, .timers = MANY,
        .effects_per_resolution = 4};
    millrace_runtime_t *runtime = NULL;
    struct outcome outcome = {0};
    size_t whole = smallest_whole(few);

    check(millrace_create_in(few, sizeof few, &capacity, &runtime) == MILLRACE_OK,
          "MILLRACE_RUNTIME_BYTES for %d machines: %lu bytes", MACHINES,
          (unsigned long)sizeof few);
    exercise(runtime, &outcome);
    check(outcome.refused == 0 && outcome.unexpected == 0 && sizeof few >= whole &&
              sizeof few <= 2 * whole,
          "hold their run, at most twice the %lu bytes it needs", (unsigned long)whole);
    memset(&outcome, 0, sizeof outcome);
    check(millrace_create_in(many, sizeof many, &many_capacity, &runtime) == MILLRACE_OK,
          "MILLRACE_RUNTIME_BYTES for %d machines: %lu bytes", MANY, (unsigned long)sizeof many);
    exercise_many(runtime, MANY, &outcome);
    check(outcome.refused == 0 && outcome.unexpected == 0 && outcome.events >= 2 * MANY,
          "hold a run of %d observed machines with their timers", MANY);
}

void memory_tests(void) {
    test_create_in_arguments();
    test_buffers_of_every_size();
    test_heap_that_runs_out();
    test_runtime_bytes();
}
