/*
 * millrace.h - the C API of Millrace, an embeddable runtime for state machines.
 *
 * A runtime hosts machines. A machine holds an int32_t state and resolves one int32_t input
 * at a time through a C callback that either handles it (possibly changing the state and
 * recording effects) or rejects it (the state is restored and the effects are discarded).
 * Effects are recorded on an opaque handle: send an input back, emit an output, start a
 * one-shot (after) or periodic (every) timer on one of the machine's queues, or cancel timers
 * by id. Every input yields exactly one reply (success or failure) to the machine's
 * observers, after the state changed and before any of its effects start.
 *
 * Built from Embedded Swift (Sources/MillraceC, an engine of its own sized for
 * microcontrollers, not the generic Swift core) into libmillrace.a, which links with libc
 * alone: linked with --gc-sections, a program keeps memset from it, and malloc and free only
 * if it calls millrace_create(). The libuv attachment at the end lives in millrace_uv.c,
 * outside the library.
 *
 * Memory. A runtime is one block of memory, sized by its capacities and laid out once: its
 * header, then fixed pools of machine records, queued inputs, in-flight effects, armed timers,
 * effect queues, observer registrations and the effect buffer of a resolution. It is the
 * caller's buffer (millrace_create_in(), sized at compile time with MILLRACE_RUNTIME_BYTES()
 * or at run time with millrace_runtime_bytes()) or one allocation from the heap
 * (millrace_create()). Nothing else ever allocates: spawning, observing, posting, stepping,
 * resolving, replying and recording or applying effects take records from the pools and give
 * them back. Running out of a pool is reported (a result code, a statistic, a diagnostic),
 * never a crash; `make footprint` shows what each part takes.
 *
 * Threads. A runtime is single-threaded and has no lock: every function taking a runtime,
 * and every callback it makes, runs on the one thread that drives it. Separate runtimes share
 * nothing and may be driven from separate threads. To feed a runtime from another thread,
 * hand inputs over with your own queue (or a uv_async_t) and post them on the driving thread.
 *
 * Callbacks. The resolver, observers and the diagnostic observer run inside
 * millrace_step(). They may post, spawn, remove, observe and read states and statistics;
 * they must not call millrace_step() (it returns 0), millrace_destroy() or
 * millrace_set_diagnostic_observer() (both return MILLRACE_BUSY and do nothing).
 *
 * Errors. Functions that can fail return an int result code (millrace_result_t); outputs go
 * through pointer arguments that are written only on MILLRACE_OK.
 */
#ifndef MILLRACE_H
#define MILLRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------- */
/* Result codes                                                                             */

/* What a function did. Every library function returning int returns one of these
 * (millrace_uv_attach() may also return a negative libuv error code). */
typedef enum millrace_result {
    /* Done. */
    MILLRACE_OK = 0,
    /* millrace_post(): the machine's input queue is full; nothing changed (counted as
     * dropped in the machine's statistics). */
    MILLRACE_QUEUE_FULL = 1,
    /* The machine id names no live machine: never spawned, or removed. */
    MILLRACE_NO_MACHINE = 2,
    /* A fixed pool is exhausted: every machine slot is taken (spawn), or the resolution's
     * effect buffer is full (effects functions). Counted in the statistics. */
    MILLRACE_NO_CAPACITY = 3,
    /* A bad argument: a NULL pointer where one is required, or a value out of range. */
    MILLRACE_INVALID = 4,
    /* Called from inside a callback of the same runtime, where it is not allowed. */
    MILLRACE_BUSY = 5,
    /* Not returned by this version of the library (it was by earlier ones); the value is
     * kept so that no other code changes meaning. */
    MILLRACE_UNSUPPORTED = 6,
} millrace_result_t;

/* What a resolver returns. Any value other than MILLRACE_HANDLED counts as rejected. */
enum {
    /* No transition exists: the runtime restores the state, discards the recorded effects
     * and cancels nothing. The reply is a failure. */
    MILLRACE_REJECTED = 0,
    /* A transition exists: the state may have changed and the recorded effects apply, in
     * the order recorded. The reply is a success (also when the state did not change). */
    MILLRACE_HANDLED = 1,
};

/* ---------------------------------------------------------------------------------------- */
/* Types                                                                                    */

/* A runtime. Opaque; created by millrace_create(), owned by the caller until
 * millrace_destroy(). */
typedef struct millrace_runtime millrace_runtime_t;

/* The effect buffer lent to a resolver. Opaque; valid only during the resolver call that
 * received it, on that thread. */
typedef struct millrace_effects millrace_effects_t;

/* Names a machine within its runtime: its slot and a generation, so that the id of a
 * removed machine never names a later one. 0 is never a valid id. */
typedef uint64_t millrace_machine_t;

/* The id that names no machine. */
#define MILLRACE_MACHINE_NONE ((millrace_machine_t)0)

/* Returned by millrace_next_deadline() when no timer is armed and no input is queued. */
#define MILLRACE_NO_DEADLINE 0xFFFFFFFFFFFFFFFFull /* UINT64_MAX */

/* The largest value any capacity, per-machine limit or policy maximum may take: pools are
 * indexed with 16 bits. */
#define MILLRACE_CAPACITY_MAX 65534u

/* The most queues one machine may declare. */
#define MILLRACE_QUEUES_MAX 256u

/* The most inputs one machine may have queued. */
#define MILLRACE_INPUTS_MAX MILLRACE_CAPACITY_MAX

/* The most in-flight effects of one machine. */
#define MILLRACE_EFFECTS_MAX MILLRACE_CAPACITY_MAX

/* The fixed capacities of a runtime: how many records each of its pools holds. A field left 0
 * takes the default shown; every value is at most MILLRACE_CAPACITY_MAX, defaults included. */
typedef struct millrace_capacity {
    /* Machines alive at once (default 16). */
    uint32_t machines;
    /* Inputs one machine may have queued, a limit for fairness: the inputs themselves are
     * records of the input pool (`inputs`); a spawn may choose its own limit (default 8). */
    uint32_t inputs_per_machine;
    /* In-flight effects (timers armed, fired and not yet delivered, or waiting on a queue)
     * per machine, a limit for fairness: the effects are records of the effect pool
     * (`effects`) (default 4). */
    uint32_t effects_per_machine;
    /* Timers armed at once (default `effects`: every in-flight effect can be armed). */
    uint32_t timers;
    /* Effects one resolution can record (default 16). */
    uint32_t effects_per_resolution;
    /* Inputs queued at once across all machines (default machines * inputs_per_machine). */
    uint32_t inputs;
    /* Effects in flight at once across all machines (default machines *
     * effects_per_machine). */
    uint32_t effects;
    /* Effect queues across all machines: a machine takes one per queue it declares, and one
     * when it declares none (default machines * 2). */
    uint32_t queues;
    /* Observer registrations across all machines (default machines). */
    uint32_t observers;
} millrace_capacity_t;

/* What an effect queue does when a timer starts on it and `max` are already in flight. */
typedef enum millrace_policy {
    /* The new timer joins them; `max` is ignored (bounded by effects_per_machine). */
    MILLRACE_MERGE = 0,
    /* The oldest timer in flight is cancelled to make room (max 1: Harvest's latest). */
    MILLRACE_LATEST = 1,
    /* The new timer waits, FIFO, and starts when one finishes (max 1: Harvest's concat). */
    MILLRACE_OLDEST_SUSPEND = 2,
    /* The new timer is dropped (counted in the runtime's statistics as discarded). */
    MILLRACE_OLDEST_DISCARD = 3,
} millrace_policy_t;

/* One effect queue of a machine: a millrace_policy_t and how many effects it runs at once
 * (1 ... MILLRACE_CAPACITY_MAX; ignored for MILLRACE_MERGE). */
typedef struct millrace_queue {
    int32_t policy;
    uint32_t max;
} millrace_queue_t;

/* Resolves one input of a machine, run-to-completion, on the runtime's thread.
 *
 * `context` is the pointer given at spawn. `*state` is the current state; change it to
 * transition. Record effects on `effects` (valid during this call only). Return
 * MILLRACE_HANDLED or MILLRACE_REJECTED. The resolver must not block, and must not call
 * millrace_step() or millrace_destroy() (see "Callbacks" above). */
typedef int (*millrace_resolve_fn)(void *context, int32_t input, int32_t *state,
                                   millrace_effects_t *effects);

/* How to spawn a machine. */
typedef struct millrace_machine_config {
    /* The resolver (required). */
    millrace_resolve_fn resolve;
    /* Passed to every call of `resolve`; owned by the caller, who keeps it valid until the
     * machine is removed or the runtime destroyed. May be NULL. */
    void *context;
    /* The state the machine starts in. */
    int32_t initial_state;
    /* The most inputs it may have queued; 0 takes the runtime's inputs_per_machine (at most
     * MILLRACE_INPUTS_MAX). */
    uint32_t input_capacity;
    /* The machine's effect queues: queue n has policy queues[n]; queue 0 is the default.
     * Copied at spawn. NULL with queue_count 0 means one MILLRACE_MERGE queue. */
    const millrace_queue_t *queues;
    /* How many entries `queues` holds (0 ... MILLRACE_QUEUES_MAX). */
    uint32_t queue_count;
} millrace_machine_config_t;

/* The kinds of events an observer receives. */
typedef enum millrace_event_kind {
    /* The input was handled: `from` and `to` are the states before and after. */
    MILLRACE_EVENT_HANDLED = 0,
    /* The input was rejected in state `from` (`to` equals `from`). */
    MILLRACE_EVENT_REJECTED = 1,
    /* The machine emitted `output`. */
    MILLRACE_EVENT_OUTPUT = 2,
} millrace_event_kind_t;

/* Their former names, kept for source compatibility (same values): the events now take the
   words of the resolver's MILLRACE_HANDLED and MILLRACE_REJECTED. */
#define MILLRACE_EVENT_SUCCESS MILLRACE_EVENT_HANDLED
#define MILLRACE_EVENT_FAILURE MILLRACE_EVENT_REJECTED

/* One reply or output. Fields that do not apply to the kind are 0. */
typedef struct millrace_event {
    /* A millrace_event_kind_t. */
    int32_t kind;
    int32_t input;
    int32_t from;
    int32_t to;
    int32_t output;
    /* The tag given to millrace_post_tagged() for this input; 0 otherwise. */
    uint64_t tag;
} millrace_event_t;

/* Receives every reply and output of one machine, in order, on the runtime's thread.
 * `event` is valid during the call only. See "Callbacks" for what it may do. */
typedef void (*millrace_observer_fn)(void *context, millrace_machine_t machine,
                                     const millrace_event_t *event);

/* What overflowed. */
typedef enum millrace_diagnostic_kind {
    /* An input produced inside the runtime (by `source`) found the queue full; dropped. */
    MILLRACE_DIAG_INPUT_QUEUE_FULL = 0,
    /* A timer found no free effect slot in its machine; not started. */
    MILLRACE_DIAG_EFFECT_SLOTS_FULL = 1,
    /* A timer found the runtime's timer table full; not started. */
    MILLRACE_DIAG_TIMERS_FULL = 2,
    /* A resolution recorded more than effects_per_resolution effects; `dropped` were lost. */
    MILLRACE_DIAG_EFFECT_BUFFER_FULL = 3,
} millrace_diagnostic_kind_t;

/* Where an input produced inside the runtime came from. */
typedef enum millrace_input_source {
    MILLRACE_SOURCE_SEND = 0,
    MILLRACE_SOURCE_TIMER = 1,
    MILLRACE_SOURCE_JOB = 2,
    MILLRACE_SOURCE_ROUTE = 3,
} millrace_input_source_t;

/* Something the runtime had to drop for lack of room. */
typedef struct millrace_diagnostic {
    /* A millrace_diagnostic_kind_t. */
    int32_t kind;
    /* A millrace_input_source_t, for MILLRACE_DIAG_INPUT_QUEUE_FULL; 0 otherwise. */
    int32_t source;
    /* For MILLRACE_DIAG_EFFECT_BUFFER_FULL, how many effects were dropped; 0 otherwise. */
    uint32_t dropped;
    /* The machine concerned. */
    millrace_machine_t machine;
} millrace_diagnostic_t;

/* Receives each diagnostic, on the runtime's thread, during millrace_step(). */
typedef void (*millrace_diagnostic_fn)(void *context, const millrace_diagnostic_t *diagnostic);

/* Counters and high-water marks of one machine. The machine keeps 32-bit counters (its
 * whole record is 48 bytes on a 32-bit target): they wrap modulo 2^32. Effect counts are per
 * runtime. */
typedef struct millrace_machine_stats {
    /* Inputs accepted into the queue, from any source. */
    uint32_t posted;
    /* Inputs resolved as handled / as rejected. */
    uint32_t handled;
    uint32_t rejected;
    /* Inputs refused because the queue was full, from any source. */
    uint32_t dropped;
    /* Inputs queued now, and the most ever queued at once. */
    uint32_t queued;
    uint32_t queue_high_water;
    /* The most in-flight effects ever held at once. */
    uint32_t effects_high_water;
} millrace_machine_stats_t;

/* Counters and high-water marks of a runtime's shared pools. */
typedef struct millrace_runtime_stats {
    /* Machines alive now, and the most ever alive at once. */
    uint32_t machines;
    uint32_t machines_high_water;
    /* Timers armed now, and the most ever armed at once. */
    uint32_t timers;
    uint32_t timers_high_water;
    /* Spawns refused because every machine slot was taken. */
    uint64_t spawns_refused;
    /* Inputs resolved (handled or rejected). */
    uint64_t dispatched;
    /* Timers started, cancelled (by id, by a latest queue, by removal), and lost for lack of
     * room (no effect slot, no timer, full effect buffer), across machines. */
    uint64_t effects_started;
    uint64_t effects_cancelled;
    uint64_t effects_overflowed;
    /* Timer deliveries skipped because the timer was cancelled meanwhile, and timers dropped
     * by a MILLRACE_OLDEST_DISCARD queue, across machines. */
    uint64_t discarded;
    /* Diagnostics reported (every overflow of any pool). */
    uint64_t diagnostics;
} millrace_runtime_stats_t;

/* ---------------------------------------------------------------------------------------- */
/* Runtime                                                                                  */

/* Creates a runtime with `capacity` (NULL: all defaults) in one block from the heap (see
 * millrace_set_allocator()) and stores it in `*runtime`. The runtime's clock starts at 0 ns.
 * Errors: MILLRACE_INVALID when `runtime` is NULL or a capacity, given or by default, exceeds
 * MILLRACE_CAPACITY_MAX; MILLRACE_NO_CAPACITY when the allocator refuses the block. */
int millrace_create(const millrace_capacity_t *capacity, millrace_runtime_t **runtime);

/* Destroys a runtime: its machines go with it (observers see nothing more) and a block from
 * the heap goes back to its allocator; a buffer is the caller's again. `runtime` is invalid
 * afterwards. NULL is accepted and ignored (MILLRACE_OK).
 * Errors: MILLRACE_BUSY when called from one of the runtime's callbacks (nothing happens). */
int millrace_destroy(millrace_runtime_t *runtime);

/* Sets (or, with a NULL `observer`, clears) the one diagnostic observer of the runtime;
 * `context` is passed to it and owned by the caller.
 * Errors: MILLRACE_INVALID when `runtime` is NULL; MILLRACE_BUSY inside a callback. */
int millrace_set_diagnostic_observer(millrace_runtime_t *runtime,
                                     millrace_diagnostic_fn observer, void *context);

/* Runs the runtime up to `now_ns` on its monotonic clock (nanoseconds from an origin the
 * caller chooses). Time moves to the earliest timer deadline not after `now_ns` (or to
 * `now_ns` when there is none), the timers due then fire, and every queued input - those
 * posted since the last step included - is resolved there; this repeats until no deadline up
 * to `now_ns` is left. So time passes as if continuously: an input resolved at a deadline
 * arms its timers from that deadline, and an input posted just before a step with the
 * current time is resolved at the current time. Time never moves backward: an earlier
 * `now_ns` only resolves queued inputs. Stops early, with time at the last instant reached,
 * once `budget` inputs were resolved (0, or anything above PTRDIFF_MAX such as SIZE_MAX: no
 * limit), so that a host loop can bound a batch; millrace_next_deadline() then says to step
 * again at once.
 * Returns the number of inputs resolved: 0 when `runtime` is NULL or when called from one of
 * its callbacks (nothing happens then). */
size_t millrace_step(millrace_runtime_t *runtime, uint64_t now_ns, size_t budget);

/* When millrace_step() must next be called: the runtime's current time when inputs are
 * queued (a step stopped at its budget, or inputs were posted), otherwise the earliest timer
 * deadline, or MILLRACE_NO_DEADLINE when there is neither (or `runtime` is NULL). A
 * bare-metal loop sleeps until this instant (or an interrupt posts an input), then steps. */
uint64_t millrace_next_deadline(const millrace_runtime_t *runtime);

/* The runtime's current time: the latest `now_ns` a step reached (0 for NULL). */
uint64_t millrace_now(const millrace_runtime_t *runtime);

/* Writes the runtime's counters and high-water marks to `*stats`.
 * Errors: MILLRACE_INVALID when an argument is NULL. */
int millrace_runtime_stats(const millrace_runtime_t *runtime, millrace_runtime_stats_t *stats);

/* ---------------------------------------------------------------------------------------- */
/* Memory                                                                                   */
/*                                                                                          */
/* A runtime is one block: the caller's buffer (millrace_create_in), the way QP/C and RTOS  */
/* kernels are used - a static array sized at compile time with MILLRACE_RUNTIME_BYTES(),   */
/* and a program that makes its runtimes only so links no malloc - or one allocation from   */
/* the heap (millrace_create). Either way the library allocates nothing afterwards.         */

/* An allocator for the heap. */
typedef struct millrace_allocator {
    /* `size` bytes aligned to `alignment` (a power of two), or NULL when there is no such
     * memory. */
    void *(*allocate)(void *context, size_t size, size_t alignment);
    /* Frees memory `allocate` returned. */
    void (*deallocate)(void *context, void *memory);
    /* Passed to both. */
    void *context;
} millrace_allocator_t;

/* Makes `allocator` the heap of later millrace_create() calls (NULL: the C library's malloc
 * and free, the default). A runtime gives its block back to the allocator it came from. Not
 * thread-safe: set it before creating runtimes on several threads.
 * Errors: MILLRACE_INVALID when a function of `allocator` is NULL (nothing changes). */
int millrace_set_allocator(const millrace_allocator_t *allocator);

/* The bytes a buffer must have to hold a runtime of `capacity` (NULL: all defaults) at any
 * alignment, or 0 when a capacity is out of range (see millrace_create()). */
size_t millrace_runtime_bytes(const millrace_capacity_t *capacity);

/* millrace_create() in the caller's `buffer` of `size` bytes, which holds the whole runtime
 * and is the caller's again after millrace_destroy(). Any alignment works (8 wastes nothing).
 * Errors: those of millrace_create(), MILLRACE_INVALID also when `buffer` is NULL;
 * MILLRACE_NO_CAPACITY when `size` is less than millrace_runtime_bytes(capacity) requires
 * at the buffer's alignment (nothing is written). */
int millrace_create_in(void *buffer, size_t size, const millrace_capacity_t *capacity,
                       millrace_runtime_t **runtime);

/* A buffer size, in bytes, that holds a runtime of at most `machines` machines, `inputs`
 * queued inputs and `effects` in-flight effects across them, `timers` armed timers,
 * `per_resolution` effects per resolution, `queues` effect queues and `observers` observer
 * registrations: the capacity's fields, each given explicitly (the defaults are derived from
 * others). A constant expression, for a static array, and an upper bound of
 * millrace_runtime_bytes() for 32- and 64-bit targets alike (a few hundred bytes over it for
 * the header and the alignment of each pool):
 *
 *     static unsigned char memory[MILLRACE_RUNTIME_BYTES(4, 32, 16, 16, 8, 8, 4)];
 */
#define MILLRACE__WORDS(count) ((size_t)(count) * sizeof(void *))
#define MILLRACE_RUNTIME_BYTES(machines, inputs, effects, timers, per_resolution, queues,   \
                               observers)                                                \
    (MILLRACE__WORDS(64) + 64 + (size_t)(machines) * (40 + MILLRACE__WORDS(2)) +          \
     (size_t)(inputs) * 16 + (size_t)(effects) * 48 + (size_t)(timers) * 2 +              \
     (size_t)(per_resolution) * 24 + (size_t)(queues) * 14 +                             \
     (size_t)(observers) * MILLRACE__WORDS(3))

/* Where a runtime's bytes go. */
typedef struct millrace_memory_stats {
    /* The runtime's block: its header and every pool below. */
    size_t bytes;
    /* Each pool: machine records, queued inputs, in-flight effects, the timer heap, effect
     * queues, observer registrations and the effect buffer of a resolution. */
    size_t machine_bytes;
    size_t input_bytes;
    size_t effect_bytes;
    size_t timer_bytes;
    size_t queue_bytes;
    size_t observer_bytes;
    size_t resolution_bytes;
    /* One machine's record (machine_bytes / the machine capacity). */
    size_t machine_record;
} millrace_memory_stats_t;

/* Writes where the runtime's bytes go to `*stats`.
 * Errors: MILLRACE_INVALID when an argument is NULL. */
int millrace_memory_stats(const millrace_runtime_t *runtime, millrace_memory_stats_t *stats);

/* ---------------------------------------------------------------------------------------- */
/* Machines                                                                                 */

/* Spawns a machine as `config` says and stores its id in `*machine`: it takes a machine
 * record and one queue entry per queue (one for no queues) from the runtime's pools.
 * Errors: MILLRACE_INVALID when an argument or `config->resolve` is NULL, `queues` is NULL
 * with a non-zero `queue_count`, `queue_count` exceeds MILLRACE_QUEUES_MAX,
 * `input_capacity` exceeds MILLRACE_INPUTS_MAX, or a queue has an unknown policy or a max
 * outside 1 ... MILLRACE_CAPACITY_MAX; MILLRACE_NO_CAPACITY when every machine record is
 * taken or the queue pool lacks the entries (counted as spawns_refused; nothing changes). */
int millrace_spawn(millrace_runtime_t *runtime, const millrace_machine_config_t *config,
                   millrace_machine_t *machine);

/* Removes a machine: cancels every timer it started, drops its queued inputs, forgets its
 * observers (they see nothing more) and gives its records back to the pools; later calls
 * naming it answer MILLRACE_NO_MACHINE. Allowed inside callbacks, also for the machine being
 * resolved (its reply and effects are then not delivered).
 * Errors: MILLRACE_INVALID when `runtime` is NULL; MILLRACE_NO_MACHINE. */
int millrace_remove(millrace_runtime_t *runtime, millrace_machine_t machine);

/* Queues `input` for `machine`; it is resolved, and replied to, by a later millrace_step(),
 * in arrival order. Never allocates. Allowed inside callbacks (the input is queued, never
 * resolved re-entrantly).
 * Errors: MILLRACE_INVALID when `runtime` is NULL; MILLRACE_NO_MACHINE;
 * MILLRACE_QUEUE_FULL (nothing changed; counted as dropped). */
int millrace_post(millrace_runtime_t *runtime, millrace_machine_t machine, int32_t input);

/* millrace_post() with a caller's `tag`, returned in the reply's event so that a host can
 * match replies to requests. Same errors. */
int millrace_post_tagged(millrace_runtime_t *runtime, millrace_machine_t machine,
                         int32_t input, uint64_t tag);

/* Writes the machine's current state to `*state`.
 * Errors: MILLRACE_INVALID when `runtime` or `state` is NULL; MILLRACE_NO_MACHINE. */
int millrace_state(const millrace_runtime_t *runtime, millrace_machine_t machine,
                   int32_t *state);

/* Registers `observer` for every later reply and output of `machine`, for the machine's
 * lifetime; observers are called in registration order. `context` is passed to it and owned
 * by the caller. Takes a registration from the runtime's observer pool.
 * Errors: MILLRACE_INVALID when `runtime` or `observer` is NULL; MILLRACE_NO_MACHINE;
 * MILLRACE_NO_CAPACITY when the observer pool is empty (nothing changes). */
int millrace_observe(millrace_runtime_t *runtime, millrace_machine_t machine,
                     millrace_observer_fn observer, void *context);

/* Writes the machine's counters and high-water marks to `*stats`.
 * Errors: MILLRACE_INVALID when `runtime` or `stats` is NULL; MILLRACE_NO_MACHINE. */
int millrace_machine_stats(const millrace_runtime_t *runtime, millrace_machine_t machine,
                           millrace_machine_stats_t *stats);

/* ---------------------------------------------------------------------------------------- */
/* Effects (only inside a resolver, on the handle it received)                              */
/*                                                                                          */
/* Effects apply after the reply, in the order recorded, and only if the resolver returns   */
/* MILLRACE_HANDLED. Timers run on one of the machine's queues (`queue`: its index in the   */
/* spawn's queue array) and may carry an `id` (0: none) that millrace_effects_cancel()      */
/* names; ids are per machine. Once cancelled, a timer never delivers another input, even   */
/* one already queued. Running out of effect slots or timers happens when the effect        */
/* starts, after the resolver returned: it is counted (effects_overflowed) and reported to  */
/* the diagnostic observer. Each function below fails with MILLRACE_INVALID when `effects`  */
/* is NULL (nothing is recorded) and with MILLRACE_NO_CAPACITY when the resolution's buffer */
/* (effects_per_resolution) is full (counted and reported as MILLRACE_DIAG_EFFECT_BUFFER_FULL). */

/* Feeds `input` back to the same machine, queued behind the inputs already waiting. */
int millrace_effects_send(millrace_effects_t *effects, int32_t input);

/* Delivers `output` to the machine's observers. */
int millrace_effects_emit(millrace_effects_t *effects, int32_t output);

/* Sends `input` once, `delay_ns` after the timer starts on `queue`, unless cancelled.
 * Errors: also MILLRACE_INVALID when `queue` is not one of the machine's queues or
 * `delay_ns` exceeds INT64_MAX. */
int millrace_effects_after(millrace_effects_t *effects, uint64_t delay_ns, int32_t input,
                           uint32_t queue, uint64_t id);

/* Sends `input` every `period_ns` after the timer starts on `queue`, until cancelled. Each
 * period fires at its own instant, a late step's too (millrace_step() moves time from
 * deadline to deadline), so the phase never drifts.
 * Errors: also MILLRACE_INVALID when `queue` is not one of the machine's queues or
 * `period_ns` is 0 or exceeds INT64_MAX. */
int millrace_effects_every(millrace_effects_t *effects, uint64_t period_ns, int32_t input,
                           uint32_t queue, uint64_t id);

/* Cancels every timer of this machine with `id`, running or waiting; an id that names none
 * cancels nothing (not an error). Timers waiting on a queue then start if there is room.
 * Errors: also MILLRACE_INVALID when `id` is 0. */
int millrace_effects_cancel(millrace_effects_t *effects, uint64_t id);

/* The effect id of a name (FNV-1a of its `length` bytes, never 0), the same id the Swift core
 * and the daemon's machine files give the name. Returns 0 only for a NULL `name`. */
uint64_t millrace_effect_id(const char *name, size_t length);

/* ---------------------------------------------------------------------------------------- */
/* libuv attachment (millrace_uv.c: link it, and libuv, only in hosts that use libuv)       */

struct uv_loop_s;

/* A runtime attached to a libuv loop. Opaque. */
typedef struct millrace_uv millrace_uv_t;

/* Attaches `runtime` to `loop` (on the loop's thread) and stores the attachment in `*uv`.
 * From then on the loop steps the runtime with its monotonic clock (uv_hrtime(), continuing
 * from millrace_now()): before each poll (inputs posted from timer callbacks), after each
 * poll (inputs posted from I/O callbacks), and at each timer deadline, resolving at most
 * `budget` inputs per step (0: no limit) so that I/O is never starved. An armed machine timer
 * keeps the loop alive, as a uv_timer_t would; queued inputs and the attachment itself do
 * not. Allocates the attachment; the runtime stays owned by the caller.
 * Errors: MILLRACE_INVALID when an argument is NULL; a libuv error code (negative) when a
 * handle cannot be initialized. */
int millrace_uv_attach(millrace_runtime_t *runtime, struct uv_loop_s *loop, size_t budget,
                       millrace_uv_t **uv);

/* Makes the loop step the runtime on its next iteration. Needed only after posting from
 * outside the loop's callbacks (for example before uv_run()); posts made in callbacks are
 * picked up without it. NULL is ignored. */
void millrace_uv_wake(millrace_uv_t *uv);

/* Detaches: the loop no longer steps the runtime (which may be destroyed at once) and the
 * attachment's handles are closed; its memory is freed by the loop once they are (run the
 * loop until then, as for any libuv handle). `uv` is invalid afterwards. NULL is ignored. */
void millrace_uv_detach(millrace_uv_t *uv);

#ifdef __cplusplus
}
#endif

#endif /* MILLRACE_H */
