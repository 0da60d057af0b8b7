// Checks CChecksum's CRC-32C on whatever path this build and processor take (SSE4.2, AArch64's
// CRC extension, or the table) against the table alone and the standard's check value, over
// every length to 300 bytes at every alignment to 8. Prints the path it ran first, so that a
// caller can check that the path it meant to test is the one that ran (`make checksum-paths`).
// Exit status 0 only when every value agrees.
#include <stdio.h>
#include <stdlib.h>

#include "../shim.h"

static const char *path(void) {
#if defined(__x86_64__)
  return millrace_crc32c_has_sse42() ? "x86_64-sse42" : "x86_64-table";
#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
  return "aarch64-crc";
#else
  return "table";
#endif
}

int main(void) {
  printf("path %s\n", path());
  int failures = 0;
  uint32_t check = millrace_crc32c("123456789", 9);
  if (check != 0xE3069283u) {
    printf("check value: 0x%08X, expected 0xE3069283\n", check);
    failures++;
  }
  static unsigned char bytes[8 + 300];
  uint32_t state = 0x9E3779B9u;
  for (size_t index = 0; index < sizeof bytes; index++) {
    state = state * 1664525u + 1013904223u;
    bytes[index] = (unsigned char)(state >> 24);
  }
  for (size_t offset = 0; offset < 8; offset++) {
    for (size_t count = 0; count <= 300; count++) {
      uint32_t fast = millrace_crc32c(bytes + offset, count);
      uint32_t table = millrace_crc32c_portable(bytes + offset, count);
      if (fast != table && failures++ < 10) {
        printf("offset %zu, %zu bytes: 0x%08X, the table gives 0x%08X\n", offset, count, fast,
               table);
      }
    }
  }
  printf("%s\n", failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}
