/* sim.c - the auth scenario on a simulated clock, driven like a bare-metal main loop: sleep
 * until the runtime's next deadline or the next scenario act (an "interrupt" that posts),
 * whichever comes first, then step. Built against the Embedded Swift libmillrace.a. */
#include <stdint.h>

#include "scenario.h"

int main(void) {
    struct scenario scenario;
    uint64_t now = 0;
    size_t act = 0;

    if (scenario_start(&scenario, 100 * 1000 * 1000) != 0) {
        return 1;
    }
    while (act < scenario_acts()) {
        uint64_t wake = scenario_time(&scenario, act);
        uint64_t deadline = millrace_next_deadline(scenario.runtime);

        now = deadline < wake ? deadline : wake; /* the simulated sleep */
        millrace_step(scenario.runtime, now, 0);
        if (now == scenario_time(&scenario, act)) {
            scenario_act(&scenario, act++);
        }
    }
    millrace_step(scenario.runtime, now, 0);
    return scenario_finish(&scenario);
}
