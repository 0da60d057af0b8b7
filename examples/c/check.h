/* check.h - the checks the C examples print: "ok   what" or "FAIL what", then a summary. */
#ifndef MILLRACE_EXAMPLE_CHECK_H
#define MILLRACE_EXAMPLE_CHECK_H

#include <stdbool.h>

/* Records one check and prints it; `what` is a printf format. Returns `ok`. */
bool check(bool ok, const char *what, ...) __attribute__((format(printf, 2, 3)));

/* Prints "N passed, N failed" and returns the process exit status (0 when nothing failed). */
int check_summary(void);

#endif
