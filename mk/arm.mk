# mk/arm.mk - the core and its C API on microcontrollers (issue 24), included by the root
# Makefile.
#
#   embedded-arm   for each Cortex-M below: libmillrace.a (the C API's engine) built as
#                  Embedded Swift for the cpu (with what newlib lacks for
#                  Embedded Swift programs, CSupport/CMillrace/target), the C auth example,
#                  the Swift core's Embedded check program and (where the RAM holds the
#                  default capacities) the C API's error-case tests, linked with
#                  newlib and run under qemu-system-arm with semihosting, bounded in time;
#                  fails on any failed check, fault or timeout. Then RISC-V 32 the same way
#                  under qemu-system-riscv32 (embedded-riscv32, mk/riscv.mk).
#
#   footprint-arm  the auth scenario's code and RAM on Cortex-M3 with newlib-nano, its
#                  runtime in a static array, printed as the table in README.md; fails when
#                  a figure grows above its ceiling in examples/arm/footprint-ceilings
#
#   cpu   Swift target           board (qemu -M)   memory
#   m4    armv7em-none-none-eabi mps2-an386        4 MB code, 4 MB SRAM
#   m3    armv7em, cpu cortex-m3 lm3s6965evb       256 KB flash, 64 KB SRAM
#   m0    armv6m-none-none-eabi  microbit          256 KB flash, 16 KB RAM
#
# Debian's gcc-arm-none-eabi, libnewlib-arm-none-eabi and qemu-system-arm are installed
# when missing, like the other system packages.

ARM_ENCLOSING_DEFAULT_GOAL := $(.DEFAULT_GOAL)

ARM_DIR := .build/arm
ARM_PACKAGES := gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm
ARM_CPUS := m4 m3 m0
# Where the RAM holds the programs: the microbit's 16 KB holds the auth example (its runtime
# in a 700-byte array), not the Swift core's check program (its runtime on the heap) nor the
# API tests (several runtimes of default capacities, about 7 KB each on 32 bits, and the
# memory tests' arrays). A runtime that does not fit is refused with MILLRACE_NO_CAPACITY
# (memory_test.c); these programs simply need the room.
ARM_SWIFT_CPUS := m4 m3
ARM_API_CPUS := m4 m3
ARM_CC := arm-none-eabi-gcc
ARM_TIMEOUT := 30

ARM_SWIFT_TARGET_m4 := -target armv7em-none-none-eabi -target-cpu cortex-m4
ARM_SWIFT_TARGET_m3 := -target armv7em-none-none-eabi -target-cpu cortex-m3
ARM_SWIFT_TARGET_m0 := -target armv6m-none-none-eabi -target-cpu cortex-m0
ARM_GCC_CPU_m4 := -mcpu=cortex-m4 -mthumb -mfloat-abi=soft
ARM_GCC_CPU_m3 := -mcpu=cortex-m3 -mthumb
ARM_GCC_CPU_m0 := -mcpu=cortex-m0 -mthumb
ARM_BOARD_m4 := mps2-an386
ARM_BOARD_m3 := lm3s6965evb
ARM_BOARD_m0 := microbit

ARM_SWIFT_FLAGS := -enable-experimental-feature Embedded -wmo -parse-as-library -Osize \
	-Xfrontend -function-sections -Xcc -ffreestanding
ARM_CFLAGS := -std=c11 -Os -Wall -Wextra -Werror -ffunction-sections -fdata-sections \
	-I $(C_API_INCLUDE)
# --no-enum-size-warning: arm-none-eabi-gcc makes enums as small as their values and Swift's
# objects are marked with int-sized ones; millrace.h passes no value of an enum type (its
# structs and functions use int32_t and int), so the two agree. --no-warn-execstack: newlib's
# own crtn.o has no .note.GNU-stack.
ARM_LDFLAGS := -Lexamples/arm -Wl,--gc-sections,--no-enum-size-warning,--no-warn-execstack \
	--specs=rdimon.specs
ARM_EXAMPLE_SOURCES := $(C_EXAMPLE_DIR)/sim.c $(C_EXAMPLE_COMMON) examples/arm/startup.c

ARM_RUNS := $(addprefix embedded-arm-,$(ARM_CPUS)) $(addprefix embedded-arm-check-,$(ARM_SWIFT_CPUS)) \
	$(addprefix embedded-arm-api-,$(ARM_API_CPUS))
# Kept between runs (make would delete them as intermediates of the pattern rules).
.SECONDARY:
.PHONY: embedded-arm arm-packages footprint-arm $(ARM_RUNS)

embedded-arm: $(ARM_RUNS) embedded-riscv32 footprint-arm

# A recipe line that installs the Debian packages of $(1) that are missing, without the
# packages they only recommend (also for riscv-packages, mk/riscv.mk).
embedded_packages = missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing $$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

arm-packages:
	@$(call embedded_packages,$(ARM_PACKAGES))

# The C API's engine, one Embedded Swift object per cpu, plus what Embedded Swift programs
# need of the target (millrace_target.c: the C API itself needs none of it, the Swift core's
# check program does).
$(ARM_DIR)/%/libmillrace.a: $(C_SWIFT_SOURCES) $(wildcard $(C_API_INCLUDE)/*) \
		CSupport/CMillrace/target/millrace_target.c | arm-packages
	@mkdir -p $(dir $@)
	$(SWIFTC) $(ARM_SWIFT_TARGET_$*) $(ARM_SWIFT_FLAGS) $(C_SWIFT_MODULE) \
	  -c $(C_SWIFT_SOURCES) -o $(dir $@)millrace-c.o
	$(ARM_CC) $(ARM_GCC_CPU_$*) $(ARM_CFLAGS) -c CSupport/CMillrace/target/millrace_target.c \
	  -o $(dir $@)millrace_target.o
	rm -f $@
	arm-none-eabi-ar rcs $@ $(dir $@)millrace-c.o $(dir $@)millrace_target.o

# The C auth example on the simulated clock (the same sources as `make c-example`), its
# runtime in a static array (MILLRACE_EXAMPLE_STATIC: millrace_create_in, no heap).
$(ARM_DIR)/%/auth.elf: $(ARM_EXAMPLE_SOURCES) $(C_EXAMPLE_HEADERS) $(ARM_DIR)/%/libmillrace.a \
		examples/arm/sections.ld
	$(ARM_CC) $(ARM_GCC_CPU_$*) $(ARM_CFLAGS) -DMILLRACE_EXAMPLE_STATIC $(ARM_EXAMPLE_SOURCES) \
	  $(ARM_DIR)/$*/libmillrace.a $(ARM_LDFLAGS) -T examples/arm/$(ARM_BOARD_$*).ld -o $@

# The C API's error-case tests (the same as `make c-tests`): 32-bit sizes and traps.
$(ARM_DIR)/%/api-test.elf: $(C_API_TEST_SOURCES) \
		$(C_EXAMPLE_HEADERS) examples/arm/startup.c $(ARM_DIR)/%/libmillrace.a examples/arm/sections.ld
	$(ARM_CC) $(ARM_GCC_CPU_$*) $(ARM_CFLAGS) $(C_API_TEST_SOURCES) \
	  examples/arm/startup.c $(ARM_DIR)/$*/libmillrace.a $(ARM_LDFLAGS) \
	  -T examples/arm/$(ARM_BOARD_$*).ld -o $@

# The Embedded Swift check program (the same as `make embedded-check`), with the core.
$(ARM_DIR)/%/check.elf: examples/embedded/main.swift $(ARM_DIR)/%/libmillrace.a \
		examples/arm/startup.c examples/arm/sections.ld
	$(SWIFTC) $(ARM_SWIFT_TARGET_$*) $(ARM_SWIFT_FLAGS) -module-name Millrace -package-name Millrace -emit-module \
	  -emit-module-path $(dir $@)module/Millrace.swiftmodule \
	  -c $(wildcard Sources/Millrace/*.swift) -o $(dir $@)core.o
	$(SWIFTC) $(ARM_SWIFT_TARGET_$*) $(ARM_SWIFT_FLAGS) -I $(dir $@)module \
	  -c examples/embedded/main.swift -o $(dir $@)check.o
	$(ARM_CC) $(ARM_GCC_CPU_$*) $(ARM_CFLAGS) examples/arm/startup.c $(dir $@)check.o \
	  $(dir $@)core.o $(ARM_DIR)/$*/libmillrace.a $(ARM_LDFLAGS) \
	  -T examples/arm/$(ARM_BOARD_$*).ld -o $@

# The footprint of the auth scenario on Cortex-M3 with newlib-nano (examples/arm/footprint.c
# for the RAM, the link map for the code), as the table README.md shows next to QP/C's.
$(ARM_DIR)/m3/footprint.elf: examples/arm/footprint.c $(C_EXAMPLE_DIR)/auth.c $(C_EXAMPLE_HEADERS) \
		examples/arm/startup.c $(ARM_DIR)/m3/libmillrace.a examples/arm/sections.ld
	$(ARM_CC) $(ARM_GCC_CPU_m3) $(ARM_CFLAGS) -I $(C_EXAMPLE_DIR) examples/arm/footprint.c \
	  $(C_EXAMPLE_DIR)/auth.c examples/arm/startup.c $(ARM_DIR)/m3/libmillrace.a \
	  $(subst rdimon.specs,nano.specs --specs=rdimon.specs,$(ARM_LDFLAGS)) \
	  -T examples/arm/$(ARM_BOARD_m3).ld -Wl,-Map=$(ARM_DIR)/m3/footprint.map -o $@

footprint-arm: $(ARM_DIR)/m3/footprint.elf examples/arm/footprint-ceilings
	@echo "== $< on $(ARM_BOARD_m3) (qemu-system-arm, $(ARM_TIMEOUT) s at most)"
	@$(call ARM_QEMU,m3,$<) > $(ARM_DIR)/m3/footprint.txt 2>&1 && \
	  grep -q '^1 passed, 0 failed$$' $(ARM_DIR)/m3/footprint.txt || \
	  { cat $(ARM_DIR)/m3/footprint.txt; echo "$<: FAILED"; exit 1; }
	@examples/arm/footprint.sh $(ARM_DIR)/m3/footprint.map $(ARM_DIR)/m3/footprint.txt \
	  examples/arm/footprint-ceilings

# qemu-system-arm running program $(2) on the board of cpu $(1), with semihosting for its
# console and exit status, bounded in time.
ARM_QEMU = timeout $(ARM_TIMEOUT) qemu-system-arm -M $(ARM_BOARD_$(1)) -nographic -monitor none \
  -serial none -semihosting-config enable=on,target=native -kernel $(2)

# Runs program $(1) on board $(2) of emulator $(3) with command $(4) (QEMU with semihosting
# for its console and exit status, bounded in time), and checks its output for a failed
# check as well as its status; a run that does not end with its "N passed, 0 failed" summary
# (it stopped early, or checked nothing) fails too. For Cortex-M (ARM_RUN) and RISC-V
# (RISCV_RUN, mk/riscv.mk).
define EMBEDDED_RUN
@echo "== $(1) on $(2) ($(3), $(ARM_TIMEOUT) s at most)"
@out=$$($(4) 2>&1); status=$$?; \
echo "$$out"; \
if [ $$status -ne 0 ] || echo "$$out" | grep -q '^FAIL' || \
  ! echo "$$out" | grep -Eq '^[1-9][0-9]* passed, 0 failed$$'; then \
  echo "$(1): FAILED (exit status $$status)"; exit 1; fi
endef

# Runs program $(2) on the board of cpu $(1).
ARM_RUN = $(call EMBEDDED_RUN,$(2),$(ARM_BOARD_$(1)),qemu-system-arm,$(call ARM_QEMU,$(1),$(2)))

$(addprefix embedded-arm-,$(ARM_CPUS)): embedded-arm-%: $(ARM_DIR)/%/auth.elf
	arm-none-eabi-size $(ARM_DIR)/$*/auth.elf
	$(call ARM_RUN,$*,$(ARM_DIR)/$*/auth.elf)

$(addprefix embedded-arm-check-,$(ARM_SWIFT_CPUS)): embedded-arm-check-%: $(ARM_DIR)/%/check.elf
	arm-none-eabi-size $(ARM_DIR)/$*/check.elf
	$(call ARM_RUN,$*,$(ARM_DIR)/$*/check.elf)

$(addprefix embedded-arm-api-,$(ARM_API_CPUS)): embedded-arm-api-%: $(ARM_DIR)/%/api-test.elf
	$(call ARM_RUN,$*,$(ARM_DIR)/$*/api-test.elf)

.DEFAULT_GOAL := $(ARM_ENCLOSING_DEFAULT_GOAL)
