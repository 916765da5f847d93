# spin.mk: build sPIN handlers with the SDK.  In a Makefile:
#
#	SPIN_SDK := path/to/userspace/spin/sdk
#	SPIN_UAPI := path/to/kernel/include/uapi     (for <d2d/snic_spin_hpu.h>)
#	SPIN_OUT := build/handlers
#	SPIN_SRC := handlers                         (directories of the .c files)
#	include $(SPIN_SDK)/spin.mk
#	all: $(SPIN_OUT)/myhandler.elf                (from handlers/myhandler.c)
#
# Handlers are RV32IMA, freestanding, linked with spin.ld: code at
# SPIN_CODE_BASE, data and bss in handler memory.  The runtime (crt0.S,
# runtime.c, string.c) is linked into every handler; --gc-sections keeps
# only what it uses.
SPIN_CC ?= clang-14
SPIN_LD ?= ld.lld-14
SPIN_OUT ?= build/spin
SPIN_SRC ?= .
SPIN_UAPI ?= $(SPIN_SDK)/../../../kernel/include/uapi
SPIN_ARCH := --target=riscv32 -march=rv32ima -mabi=ilp32 -mno-relax
SPIN_CFLAGS ?= -O2 -g
SPIN_CFLAGS += $(SPIN_ARCH) -ffreestanding -nostdlib -fno-builtin \
	-ffunction-sections -fdata-sections -fno-pic -mcmodel=medany \
	-Wall -Wextra -Werror -Wno-unused-command-line-argument \
	-I$(SPIN_SDK)/include -I$(SPIN_UAPI)
SPIN_LDFLAGS := -T $(SPIN_SDK)/spin.ld --gc-sections -static -nostdlib
SPIN_HDRS := $(wildcard $(SPIN_SDK)/include/*.h) \
	$(SPIN_UAPI)/d2d/snic_spin_hpu.h
SPIN_RT := $(SPIN_OUT)/rt/crt0.o $(SPIN_OUT)/rt/runtime.o \
	$(SPIN_OUT)/rt/string.o

$(SPIN_OUT)/rt/%.o: $(SPIN_SDK)/%.c $(SPIN_HDRS)
	@mkdir -p $(dir $@)
	$(SPIN_CC) $(SPIN_CFLAGS) -c -o $@ $<

vpath %.c $(SPIN_SRC)
$(SPIN_OUT)/%.o: %.c $(SPIN_HDRS)
	@mkdir -p $(dir $@)
	$(SPIN_CC) $(SPIN_CFLAGS) -c -o $@ $<

$(SPIN_OUT)/%.elf: $(SPIN_OUT)/%.o $(SPIN_RT) $(SPIN_SDK)/spin.ld
	$(SPIN_LD) $(SPIN_LDFLAGS) -o $@ $< $(SPIN_RT)
