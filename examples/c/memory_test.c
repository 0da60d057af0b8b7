/* memory_test.c - the C API's memory (millrace.h, "Memory"), checked against libmillrace.a
 * (linked into api-test): a runtime is one block, in a caller's buffer of any size and
 * alignment or from a heap that may refuse; too little memory is MILLRACE_NO_CAPACITY with
 * nothing written, never a crash; MILLRACE_RUNTIME_BYTES bounds millrace_runtime_bytes; and
 * once made, a runtime never calls an allocator. */
#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "memory_test.h"
#include "millrace.h"

#define MS 1000000ull

enum { MACHINES = 4, MANY = 16 };

static const millrace_capacity_t capacity = {
    .machines = MACHINES, .inputs = 16, .effects = 8, .timers = 8,
    .effects_per_resolution = 4, .queues = 8, .observers = 4};

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

/* Spawns `count` tickers, observes each, posts 0 to each and steps past their timers;
 * the number of replies and outputs seen, or 0 when a call failed. */
static unsigned exercise(millrace_runtime_t *runtime, int count) {
    const millrace_machine_config_t config = {.resolve = ticker_resolve};
    unsigned events = 0;

    for (int index = 0; index < count; index++) {
        millrace_machine_t machine;
        if (millrace_spawn(runtime, &config, &machine) != MILLRACE_OK ||
            millrace_observe(runtime, machine, count_event, &events) != MILLRACE_OK ||
            millrace_post(runtime, machine, 0) != MILLRACE_OK) {
            return 0;
        }
    }
    millrace_step(runtime, 0, 0);
    millrace_step(runtime, 2 * MS, 0);
    return events;
}

/* A heap that counts its calls and refuses once `left` allocations were made. */
struct heap {
    unsigned allocations;
    unsigned frees;
    unsigned left;
};

static struct heap heap;
static alignas(16) unsigned char heap_memory[2 << 10];

static void *heap_allocate(void *context, size_t size, size_t alignment) {
    (void)context;
    heap.allocations++;
    if (heap.left == 0 || size > sizeof heap_memory || alignment > 16) {
        return NULL;
    }
    heap.left--;
    return heap_memory;
}

static void heap_deallocate(void *context, void *memory) {
    (void)context;
    if (memory == heap_memory) {
        heap.frees++;
    }
}

static const millrace_allocator_t counting = {heap_allocate, heap_deallocate, NULL};

static void test_create_in_arguments(void) {
    static alignas(8) unsigned char buffer[64];
    const millrace_capacity_t too_big = {.machines = MILLRACE_CAPACITY_MAX + 1};
    millrace_runtime_t *runtime = NULL;
    millrace_memory_stats_t stats;

    check(millrace_create_in(NULL, 1024, NULL, &runtime) == MILLRACE_INVALID,
          "create_in with a NULL buffer: invalid");
    check(millrace_create_in(buffer, sizeof buffer, NULL, NULL) == MILLRACE_INVALID,
          "create_in with a NULL out: invalid");
    check(millrace_create_in(buffer, sizeof buffer, &too_big, &runtime) == MILLRACE_INVALID,
          "create_in with a capacity over the maximum: invalid");
    check(millrace_create_in(buffer, sizeof buffer, NULL, &runtime) == MILLRACE_NO_CAPACITY &&
              runtime == NULL,
          "create_in with 64 bytes for the default capacities: no capacity, nothing written");
    check(millrace_memory_stats(NULL, &stats) == MILLRACE_INVALID,
          "memory stats of NULL: invalid");
    check(millrace_set_allocator(&(millrace_allocator_t){NULL, heap_deallocate, NULL}) ==
              MILLRACE_INVALID,
          "an allocator without an allocate function: invalid");
}

static void test_buffers_of_every_size(void) {
    static alignas(16) unsigned char buffer[2048 + 16];
    size_t need = millrace_runtime_bytes(&capacity);
    unsigned wrong = 0;
    unsigned events;
    millrace_runtime_t *runtime = NULL;
    millrace_memory_stats_t stats = {0};

    check(need > 0 && need <= 2048, "the capacities need %lu bytes", (unsigned long)need);
    for (size_t offset = 0; offset < 16; offset++) {
        size_t fitted = 0; /* the smallest size that held it */
        for (size_t size = 0; size <= need; size++) {
            int result;
            runtime = NULL;
            memset(buffer, 0xA5, sizeof buffer);
            result = millrace_create_in(buffer + offset, size, &capacity, &runtime);
            if (result == MILLRACE_OK) {
                fitted = fitted == 0 ? size : fitted;
                millrace_destroy(runtime);
            } else if (fitted != 0 || result != MILLRACE_NO_CAPACITY || runtime != NULL ||
                       buffer[offset] != 0xA5) {
                wrong++;
            }
        }
        if (fitted == 0 || fitted + 7 < need) {
            wrong++;
        }
        if (millrace_create_in(buffer + offset, need, &capacity, &runtime) != MILLRACE_OK ||
            exercise(runtime, MACHINES) != 3 * MACHINES) {
            wrong++;
        }
        millrace_destroy(runtime);
    }
    check(wrong == 0, "at every alignment, a buffer is refused (no capacity, nothing written) "
                      "until it holds the runtime at that alignment, at most 7 bytes short of "
                      "millrace_runtime_bytes(), whose size holds a working runtime");

    check(millrace_create_in(buffer, SIZE_MAX, &capacity, &runtime) == MILLRACE_OK &&
              millrace_destroy(runtime) == MILLRACE_OK,
          "a size above PTRDIFF_MAX is a large buffer, not a negative one (the runtime takes "
          "only what it needs)");
    heap = (struct heap){.left = 0};
    millrace_set_allocator(&counting);
    millrace_create_in(buffer, need, &capacity, &runtime);
    events = exercise(runtime, MACHINES);
    millrace_memory_stats(runtime, &stats);
    check(events == 3 * MACHINES && heap.allocations == 0,
          "a runtime in a buffer never calls the heap (%u calls)", heap.allocations);
    check(stats.bytes < need && stats.machine_record > 0 &&
              stats.machine_bytes == MACHINES * stats.machine_record &&
              stats.machine_bytes + stats.input_bytes + stats.effect_bytes + stats.timer_bytes +
                      stats.queue_bytes + stats.observer_bytes + stats.resolution_bytes <
                  stats.bytes,
          "memory stats: the pools add up to less than the block (%lu bytes, %lu per machine)",
          (unsigned long)stats.bytes, (unsigned long)stats.machine_record);
    check(millrace_destroy(runtime) == MILLRACE_OK && heap.frees == 0,
          "destroying it gives nothing to the heap");
    millrace_set_allocator(NULL);
}

static void test_heap(void) {
    millrace_runtime_t *runtime = NULL;

    heap = (struct heap){.left = 0};
    millrace_set_allocator(&counting);
    check(millrace_create(&capacity, &runtime) == MILLRACE_NO_CAPACITY && runtime == NULL &&
              heap.allocations == 1,
          "a heap that refuses: create answers no capacity, nothing written");
    heap = (struct heap){.left = 1};
    check(millrace_create(&capacity, &runtime) == MILLRACE_OK && heap.allocations == 1 &&
              exercise(runtime, MACHINES) == 3 * MACHINES && heap.allocations == 1,
          "create takes one block, and nothing after");
    millrace_set_allocator(NULL);
    check(millrace_destroy(runtime) == MILLRACE_OK && heap.frees == 1,
          "destroy gives the block back to the allocator it came from, though another is set");
}

/* MILLRACE_RUNTIME_BYTES is a constant expression at least millrace_runtime_bytes(). */
static void test_runtime_bytes(void) {
    static alignas(8) unsigned char few[MILLRACE_RUNTIME_BYTES(MACHINES, 16, 8, 8, 4, 8, 4)];
    static unsigned char many[MILLRACE_RUNTIME_BYTES(MANY, 2 * MANY, 2 * MANY, MANY, 4,
                                                     2 * MANY, MANY)];
    const millrace_capacity_t many_capacity = {
        .machines = MANY, .inputs = 2 * MANY, .effects = 2 * MANY, .timers = MANY,
        .effects_per_resolution = 4, .queues = 2 * MANY, .observers = MANY};
    millrace_runtime_t *runtime = NULL;
    unsigned short_of = 0;

    check(sizeof few >= millrace_runtime_bytes(&capacity) &&
              millrace_create_in(few, sizeof few, &capacity, &runtime) == MILLRACE_OK &&
              exercise(runtime, MACHINES) == 3 * MACHINES,
          "MILLRACE_RUNTIME_BYTES for %d machines: %lu bytes, %lu needed", MACHINES,
          (unsigned long)sizeof few, (unsigned long)millrace_runtime_bytes(&capacity));
    millrace_destroy(runtime);
    check(millrace_create_in(many, sizeof many, &many_capacity, &runtime) == MILLRACE_OK &&
              exercise(runtime, MANY) == 3 * MANY,
          "MILLRACE_RUNTIME_BYTES for %d machines (any alignment): %lu bytes, %lu needed", MANY,
          (unsigned long)sizeof many, (unsigned long)millrace_runtime_bytes(&many_capacity));
    millrace_destroy(runtime);
    for (uint32_t machines = 1; machines <= 300; machines += 13) {
        const millrace_capacity_t varied = {
            .machines = machines, .inputs = 3 * machines, .effects = 2 * machines,
            .timers = machines + 1, .effects_per_resolution = machines % 7 + 1,
            .queues = machines * 3, .observers = machines / 2 + 1};
        if (millrace_runtime_bytes(&varied) >
            MILLRACE_RUNTIME_BYTES(machines, 3 * machines, 2 * machines, machines + 1,
                                   machines % 7 + 1, machines * 3, machines / 2 + 1)) {
            short_of++;
        }
    }
    check(short_of == 0, "MILLRACE_RUNTIME_BYTES bounds millrace_runtime_bytes() for 24 "
                         "capacities of 1 to 300 machines");
}

void memory_tests(void) {
    test_create_in_arguments();
    test_buffers_of_every_size();
    test_heap();
    test_runtime_bytes();
}
