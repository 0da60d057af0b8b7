# mk/riscv.mk - the core and its C API on RISC-V 32 (issue 24), included by the root Makefile
# after mk/arm.mk, whose Swift and C flags, sources and run macro it shares.
#
#   embedded-riscv32  libmillrace.a built as Embedded Swift for rv32imac (ilp32 ABI, soft
#                     float), then the C auth example (its runtime in a static array), the C
#                     API's error-case tests and the Embedded Swift check program, linked with
#                     picolibc and run under qemu-system-riscv32 (-M virt, machine mode, no
#                     firmware) with semihosting, bounded in time; fails on any failed check,
#                     trap or timeout. Run by embedded-arm.
#
#   cpu       Swift target                            board (qemu -M)  memory
#   riscv32   riscv32-none-none-eabi, rv32imac ilp32  virt             4 MB code, 4 MB RAM
#
# Debian's gcc-riscv64-unknown-elf (its rv32imac/ilp32 multilib), picolibc-riscv64-unknown-elf
# and qemu-system-misc are installed when missing.

RISCV_ENCLOSING_DEFAULT_GOAL := $(.DEFAULT_GOAL)

RISCV_DIR := $(ARM_DIR)/riscv32
RISCV_PACKAGES := gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc
RISCV_CC := riscv64-unknown-elf-gcc
# One ISA and ABI for the Swift objects, the C files and the picolibc multilib that gcc picks
# from them: their ELF flags (RVC, soft-float ABI) must agree, which the library's rule checks.
RISCV_ARCH := -march=rv32imac -mabi=ilp32
RISCV_SWIFT_TARGET := -target riscv32-none-none-eabi $(addprefix -Xcc ,$(RISCV_ARCH))
RISCV_CFLAGS := --specs=picolibc.specs $(RISCV_ARCH) $(ARM_CFLAGS)
# picolibc's hosted crt0 (main's result goes to exit) and its semihosting for the console
# and exit; examples/riscv/virt.ld sets the memory and includes picolibc's layout.
RISCV_LDFLAGS := --crt0=hosted --oslib=semihost -Lexamples/riscv -Wl,--gc-sections -T virt.ld
RISCV_LINK_DEPS := examples/riscv/startup.c examples/riscv/virt.ld $(RISCV_DIR)/libmillrace.a

RISCV_QEMU = timeout $(ARM_TIMEOUT) qemu-system-riscv32 -M virt -bios none -nographic \
  -monitor none -serial none -semihosting-config enable=on,target=native -kernel $(1)
RISCV_RUN = $(call EMBEDDED_RUN,$(1),virt,qemu-system-riscv32,$(call RISCV_QEMU,$(1)))

RISCV_RUNS := embedded-riscv32-auth embedded-riscv32-api embedded-riscv32-check
.PHONY: embedded-riscv32 riscv-packages $(RISCV_RUNS)

embedded-riscv32: $(RISCV_RUNS)

riscv-packages:
	@$(call embedded_packages,$(RISCV_PACKAGES))

# The C API's engine as one Embedded Swift object, plus the target support (empty with
# picolibc, see millrace_target.c), like the Cortex-M libraries.
$(RISCV_DIR)/libmillrace.a: $(C_SWIFT_SOURCES) $(wildcard $(C_API_INCLUDE)/*) \
		CSupport/CMillrace/target/millrace_target.c | riscv-packages
	@mkdir -p $(dir $@)
	$(SWIFTC) $(RISCV_SWIFT_TARGET) $(ARM_SWIFT_FLAGS) $(C_SWIFT_MODULE) \
	  -c $(C_SWIFT_SOURCES) -o $(dir $@)millrace-c.o
	$(RISCV_CC) $(RISCV_CFLAGS) -c CSupport/CMillrace/target/millrace_target.c \
	  -o $(dir $@)millrace_target.o
	@swift_flags=$$(riscv64-unknown-elf-readelf -h $(dir $@)millrace-c.o | grep Flags:); \
	c_flags=$$(riscv64-unknown-elf-readelf -h $(dir $@)millrace_target.o | grep Flags:); \
	[ "$$swift_flags" = "$$c_flags" ] || { echo "Swift object $$swift_flags, C object $$c_flags:" \
	  "RISCV_SWIFT_TARGET and RISCV_ARCH disagree"; exit 1; }
	rm -f $@
	riscv64-unknown-elf-ar rcs $@ $(dir $@)millrace-c.o $(dir $@)millrace_target.o

# The C auth example on the simulated clock, its runtime in a static array (as on Cortex-M).
$(RISCV_DIR)/auth.elf: $(filter-out examples/arm/%,$(ARM_EXAMPLE_SOURCES)) $(C_EXAMPLE_HEADERS) \
		$(RISCV_LINK_DEPS)
	$(RISCV_CC) $(RISCV_CFLAGS) -DMILLRACE_EXAMPLE_STATIC \
	  $(filter-out examples/arm/%,$(ARM_EXAMPLE_SOURCES)) examples/riscv/startup.c \
	  $(RISCV_DIR)/libmillrace.a $(RISCV_LDFLAGS) -o $@

# The C API's error-case tests (the same as `make c-tests`).
$(RISCV_DIR)/api-test.elf: $(C_API_TEST_SOURCES) $(C_EXAMPLE_HEADERS) $(RISCV_LINK_DEPS)
	$(RISCV_CC) $(RISCV_CFLAGS) $(C_API_TEST_SOURCES) examples/riscv/startup.c \
	  $(RISCV_DIR)/libmillrace.a $(RISCV_LDFLAGS) -o $@

# The Embedded Swift check program (the same as `make embedded-check`), with the core.
$(RISCV_DIR)/check.elf: examples/embedded/main.swift $(RISCV_LINK_DEPS)
	$(SWIFTC) $(RISCV_SWIFT_TARGET) $(ARM_SWIFT_FLAGS) -module-name Millrace -package-name Millrace -emit-module \
	  -emit-module-path $(dir $@)module/Millrace.swiftmodule \
	  -c $(wildcard Sources/Millrace/*.swift) -o $(dir $@)core.o
	$(SWIFTC) $(RISCV_SWIFT_TARGET) $(ARM_SWIFT_FLAGS) -I $(dir $@)module \
	  -c examples/embedded/main.swift -o $(dir $@)check.o
	$(RISCV_CC) $(RISCV_CFLAGS) examples/riscv/startup.c $(dir $@)check.o $(dir $@)core.o \
	  $(RISCV_DIR)/libmillrace.a $(RISCV_LDFLAGS) -o $@

embedded-riscv32-auth: $(RISCV_DIR)/auth.elf
	riscv64-unknown-elf-size $<
	$(call RISCV_RUN,$<)

embedded-riscv32-api: $(RISCV_DIR)/api-test.elf
	$(call RISCV_RUN,$<)

embedded-riscv32-check: $(RISCV_DIR)/check.elf
	riscv64-unknown-elf-size $<
	$(call RISCV_RUN,$<)

.DEFAULT_GOAL := $(RISCV_ENCLOSING_DEFAULT_GOAL)
