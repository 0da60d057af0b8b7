/* auth.h - the auth machine of DESIGN.md section 4.2, written in C against millrace.h.
 *
 *   login        loggedOut            -> loggingIn   after(delay, loginOK) on "request", id "req"
 *   loginOK      loggingIn            -> loggedIn    emit welcome
 *   logout       loggedIn             -> loggingOut  after(delay, logoutOK) on "request", id "req"
 *   forceLogout  loggingIn, loggedIn  -> loggingOut  after(delay, logoutOK) on "request", id "req"
 *   logoutOK     loggingOut           -> loggedOut
 *   stop         any                  (stays)        cancel "req", emit stopped
 *
 * The "request" queue is latest(max: 1): a new request cancels the one in flight, so a
 * forceLogout while logging in means the pending loginOK never arrives. */
#ifndef MILLRACE_EXAMPLE_AUTH_H
#define MILLRACE_EXAMPLE_AUTH_H

#include "millrace.h"

enum auth_state { AUTH_LOGGED_OUT, AUTH_LOGGING_IN, AUTH_LOGGED_IN, AUTH_LOGGING_OUT };
enum auth_input {
    AUTH_LOGIN, AUTH_LOGIN_OK, AUTH_LOGOUT, AUTH_LOGOUT_OK, AUTH_FORCE_LOGOUT, AUTH_STOP,
    AUTH_INPUT_COUNT
};
enum auth_output { AUTH_WELCOME, AUTH_STOPPED, AUTH_OUTPUT_COUNT };

/* One auth machine's context: the caller keeps it alive while the machine is. */
struct auth {
    uint64_t delay_ns;   /* how long a login or logout request takes */
    uint64_t request_id; /* the effect id "req" */
};

/* Names for printing; NULL-safe for out-of-range values ("?"). */
const char *auth_state_name(int32_t state);
const char *auth_input_name(int32_t input);
const char *auth_output_name(int32_t output);

/* Spawns an auth machine in loggedOut whose requests take `delay_ns`, with `auth` as its
 * context. Returns a millrace_result_t. */
int auth_spawn(millrace_runtime_t *runtime, struct auth *auth, uint64_t delay_ns,
               millrace_machine_t *machine);

#endif
