# mk/checksum.mk - the journal's CRC-32C (CSupport/CChecksum/shim.h) on every path it can take,
# included by the root Makefile and run by `make test`:
#
#   checksum-paths   CSupport/CChecksum/check/crc32c_check.c, which compares the checksum with
#                    the table alone over every length to 300 bytes at every alignment to 8,
#                    built and run four times, each run required to take its path:
#                      x86_64-sse42   the host's build, on the host (x86-64 with SSE4.2)
#                      x86_64-table   the same binary under qemu-x86_64 -cpu qemu64, a processor
#                                     without SSE4.2 (the run-time cpuid check must see it)
#                      aarch64-crc    built for armv8-a+crc, run under qemu-aarch64
#                      table          built for armv8-a without the CRC extension
#   checksum-deps    gcc-aarch64-linux-gnu and qemu-user, installed with apt-get when missing
#
# On a host that is not x86-64 the two x86-64 runs are left out (and said so).

CHECKSUM_ENCLOSING_DEFAULT_GOAL := $(.DEFAULT_GOAL)

CHECKSUM_PACKAGES := gcc-aarch64-linux-gnu qemu-user
CHECKSUM_DIR := .build/checksum
CHECKSUM_SOURCE := CSupport/CChecksum/check/crc32c_check.c
CHECKSUM_CFLAGS := -O2 -Wall -Wextra -Werror
CHECKSUM_TIMEOUT := 60

# $(call checksum_run,COMMAND,PATH): runs the check, fails unless it passed on PATH.
checksum_run = out="$$(timeout $(CHECKSUM_TIMEOUT) $(1))" || { echo "$$out"; exit 1; }; \
	echo "$$out" | grep -qx "path $(2)" || { echo "$$out"; echo "expected path $(2)"; exit 1; }; \
	echo "checksum-paths: $(2) ok"

.PHONY: checksum-paths checksum-deps

checksum-deps:
	@$(call install_missing,$(CHECKSUM_PACKAGES))

checksum-paths: checksum-deps
	@mkdir -p $(CHECKSUM_DIR)
	@if [ "$$(uname -m)" = x86_64 ]; then \
	  $(CC) $(CHECKSUM_CFLAGS) -o $(CHECKSUM_DIR)/x86_64 $(CHECKSUM_SOURCE) && \
	  { $(call checksum_run,$(CHECKSUM_DIR)/x86_64,x86_64-sse42); } && \
	  { $(call checksum_run,qemu-x86_64 -cpu qemu64 $(CHECKSUM_DIR)/x86_64,x86_64-table); }; \
	else echo "checksum-paths: not an x86-64 host, the x86-64 runs are left out"; fi
	@aarch64-linux-gnu-gcc $(CHECKSUM_CFLAGS) -march=armv8-a+crc -static \
	  -o $(CHECKSUM_DIR)/aarch64-crc $(CHECKSUM_SOURCE)
	@$(call checksum_run,qemu-aarch64 $(CHECKSUM_DIR)/aarch64-crc,aarch64-crc)
	@aarch64-linux-gnu-gcc $(CHECKSUM_CFLAGS) -march=armv8-a -static \
	  -o $(CHECKSUM_DIR)/aarch64 $(CHECKSUM_SOURCE)
	@$(call checksum_run,qemu-aarch64 $(CHECKSUM_DIR)/aarch64,table)

.DEFAULT_GOAL := $(CHECKSUM_ENCLOSING_DEFAULT_GOAL)
