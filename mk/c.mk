# mk/c.mk - the embeddable C library (DESIGN.md section 5), included by the root Makefile.
#
#   libmillrace   Sources/MillraceC (the C API's engine) as Embedded Swift ->
#                 .build/embedded/libmillrace.a and .build/embedded/include/millrace.h
#   c-example     the auth example in C against libmillrace.a: checks that it links with libc
#                 alone, runs it on a simulated clock, prints its size and the library's
#   c-example-uv  the same scenario against the normal Swift build, on libuv in real time
#   c-tests       the C API error-case tests (plain, then under ASan/LeakSanitizer/UBSan)
#   footprint     text/data/bss of the library and the example, and where a runtime's bytes go
#
# Works on its own too: make -f Makefile -f mk/c.mk c-example

# Included anywhere in the root Makefile, this fragment leaves its default goal alone.
C_ENCLOSING_DEFAULT_GOAL := $(.DEFAULT_GOAL)

SWIFTC ?= swiftc
CC ?= cc
EMBEDDED_DIR ?= .build/embedded
EMBEDDED_FLAGS ?= -target x86_64-unknown-linux-gnu -enable-experimental-feature Embedded \
	-wmo -parse-as-library -Osize

C_API_DIR := CSupport/CMillrace
C_API_INCLUDE := $(C_API_DIR)/include
C_EXAMPLE_DIR := examples/c
C_UV_DIR := .build/c-uv
C_SWIFT_SOURCES := $(wildcard Sources/MillraceC/*.swift)
C_SWIFT_MODULE := -swift-version 6 -module-name MillraceC -I $(C_API_INCLUDE)
C_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror
C_EMBEDDED_CFLAGS := $(C_CFLAGS) -Os -ffunction-sections -I $(EMBEDDED_DIR)/include
C_EMBEDDED_LDFLAGS := -Wl,--gc-sections
C_SANITIZE := -g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer

LIBMILLRACE := $(EMBEDDED_DIR)/libmillrace.a
LIBMILLRACE_HEADER := $(EMBEDDED_DIR)/include/millrace.h
C_EXAMPLE_COMMON := $(addprefix $(C_EXAMPLE_DIR)/,scenario.c auth.c check.c)
C_EXAMPLE_HEADERS := $(wildcard $(C_EXAMPLE_DIR)/*.h)
C_EXAMPLE := $(EMBEDDED_DIR)/auth-sim
C_API_TEST := $(EMBEDDED_DIR)/api-test
C_API_TEST_SOURCES := $(addprefix $(C_EXAMPLE_DIR)/,api_test.c memory_test.c check.c)
C_FOOTPRINT := $(EMBEDDED_DIR)/footprint
C_EXAMPLE_UV := $(C_UV_DIR)/auth-uv
C_UV_OBJECTS := $(addprefix $(C_UV_DIR)/,uv.o scenario.o auth.o check.o millrace_uv.o millrace.o)

.PHONY: libmillrace c-example c-example-uv c-tests footprint

libmillrace: $(LIBMILLRACE) $(LIBMILLRACE_HEADER)

# One whole-module Embedded Swift object, one section per function so that programs linking
# it with --gc-sections keep only what they use.
$(LIBMILLRACE): $(C_SWIFT_SOURCES) $(wildcard $(C_API_INCLUDE)/*)
	@mkdir -p $(EMBEDDED_DIR)
	$(SWIFTC) $(EMBEDDED_FLAGS) -Xfrontend -function-sections $(C_SWIFT_MODULE) \
	  -c $(C_SWIFT_SOURCES) -o $(EMBEDDED_DIR)/millrace-c.o
	rm -f $@
	ar rcs $@ $(EMBEDDED_DIR)/millrace-c.o

$(LIBMILLRACE_HEADER): $(C_API_INCLUDE)/millrace.h
	@mkdir -p $(dir $@)
	cp $< $@

# The example must need libc alone: libc-only.sh fails the build otherwise.
$(C_EXAMPLE): $(C_EXAMPLE_DIR)/sim.c $(C_EXAMPLE_COMMON) $(C_EXAMPLE_HEADERS) $(LIBMILLRACE) $(LIBMILLRACE_HEADER)
	$(CC) $(C_EMBEDDED_CFLAGS) $(C_EXAMPLE_DIR)/sim.c $(C_EXAMPLE_COMMON) $(LIBMILLRACE) \
	  $(C_EMBEDDED_LDFLAGS) -o $@
	CC="$(CC)" $(C_EXAMPLE_DIR)/libc-only.sh $@

$(C_API_TEST): $(C_API_TEST_SOURCES) $(C_EXAMPLE_HEADERS) $(LIBMILLRACE) $(LIBMILLRACE_HEADER)
	$(CC) $(C_EMBEDDED_CFLAGS) $(C_API_TEST_SOURCES) $(LIBMILLRACE) $(C_EMBEDDED_LDFLAGS) -o $@
	CC="$(CC)" $(C_EXAMPLE_DIR)/libc-only.sh $@

$(C_FOOTPRINT): $(C_EXAMPLE_DIR)/footprint.c $(C_EXAMPLE_DIR)/check.c $(LIBMILLRACE) $(LIBMILLRACE_HEADER)
	$(CC) $(C_EMBEDDED_CFLAGS) $< $(C_EXAMPLE_DIR)/check.c $(LIBMILLRACE) $(C_EMBEDDED_LDFLAGS) -o $@

# Prints size(1) of the library and the example, and fails when the example's code is over
# the 64 KB budget.
define C_SIZES
@echo "code size (size(1); budget: the example under 64 KB of text):"
@size -t $(LIBMILLRACE) | sed -n '1p;$$s/(TOTALS)/$(subst /,\/,$(LIBMILLRACE)) (all members)/p'
@size $(C_EXAMPLE) | sed 1d
@text=$$(size $(C_EXAMPLE) | awk 'NR == 2 { print $$1 }'); \
if [ "$$text" -ge 65536 ]; then echo "example: $$text bytes of text, OVER the 64 KB budget"; exit 1; fi; \
echo "example: $$text bytes of text, within the 64 KB budget"
endef

c-example: $(C_EXAMPLE)
	$(C_EXAMPLE)
	$(C_SIZES)

c-tests: $(C_API_TEST)
	$(C_API_TEST)
	@echo "api_test and the example again under ASan, LeakSanitizer and UBSan:"
	$(CC) $(C_CFLAGS) $(C_SANITIZE) -I $(EMBEDDED_DIR)/include $(C_API_TEST_SOURCES) \
	  $(LIBMILLRACE) -o $(C_API_TEST)-asan
	@out=$$($(C_API_TEST)-asan 2>&1) || { echo "$$out"; exit 1; }; echo "$$out" | tail -n 1
	$(CC) $(C_CFLAGS) $(C_SANITIZE) -I $(EMBEDDED_DIR)/include $(C_EXAMPLE_DIR)/sim.c \
	  $(C_EXAMPLE_COMMON) $(LIBMILLRACE) -o $(C_EXAMPLE)-asan
	@out=$$($(C_EXAMPLE)-asan 2>&1) || { echo "$$out"; exit 1; }; echo "$$out" | tail -n 1

footprint: $(C_FOOTPRINT) $(C_EXAMPLE)
	$(C_SIZES)
	$(C_FOOTPRINT)

# The normal (non-embedded) build: the same Swift sources as a regular object, linked by
# swiftc so that the Swift runtime libraries come along, plus libuv.
$(C_UV_DIR)/millrace.o: $(C_SWIFT_SOURCES) $(C_API_INCLUDE)/millrace.h
	@mkdir -p $(C_UV_DIR)
	$(SWIFTC) -parse-as-library -wmo -O $(C_SWIFT_MODULE) -c $(C_SWIFT_SOURCES) -o $@

$(C_UV_DIR)/%.o: $(C_EXAMPLE_DIR)/%.c $(C_EXAMPLE_HEADERS) $(C_API_INCLUDE)/millrace.h
	@mkdir -p $(C_UV_DIR)
	$(CC) $(C_CFLAGS) -O2 -I $(C_API_INCLUDE) -c $< -o $@

$(C_UV_DIR)/millrace_uv.o: $(C_API_DIR)/millrace_uv.c $(C_API_INCLUDE)/millrace.h
	@mkdir -p $(C_UV_DIR)
	$(CC) $(C_CFLAGS) -O2 -I $(C_API_INCLUDE) -c $< -o $@

$(C_EXAMPLE_UV): $(C_UV_OBJECTS)
	$(SWIFTC) $(C_UV_OBJECTS) -luv -o $@

c-example-uv: $(C_EXAMPLE_UV)
	$(C_EXAMPLE_UV)

.DEFAULT_GOAL := $(C_ENCLOSING_DEFAULT_GOAL)
