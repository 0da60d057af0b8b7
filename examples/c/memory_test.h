/* memory_test.h - the C API's memory tests (memory_test.c), run by api_test.c. */
#ifndef MILLRACE_EXAMPLE_MEMORY_TEST_H
#define MILLRACE_EXAMPLE_MEMORY_TEST_H

/* Runtimes in buffers of every size and alignment, heaps that refuse, and the size macro. */
void memory_tests(void);

#endif
