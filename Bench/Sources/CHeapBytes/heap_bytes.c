#include "heap_bytes.h"
#include <malloc.h>

size_t bench_heap_bytes_in_use(void) { return mallinfo2().uordblks; }
