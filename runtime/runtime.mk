# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
# runtime/runtime.mk -- libaesgen.a, libaesgen.so and `make install`.
# Included by the top Makefile, which defines CC, CFLAGS, ASFLAGS, BUILD,
# PREFIX, ISAS, MODES and GEN_S.  All paths are relative to the top directory.

# The version is defined once, in the public header; everything here reads it.
AESGEN_VERSION       := $(shell sed -n 's/^\#define AESGEN_VERSION_STRING "\(.*\)"$$/\1/p' runtime/include/aesgen.h)
AESGEN_VERSION_MAJOR := $(word 1,$(subst ., ,$(AESGEN_VERSION)))
ifeq ($(AESGEN_VERSION_MAJOR),)
$(error runtime/include/aesgen.h: no AESGEN_VERSION_STRING)
endif

RT_SRC_DIR  := runtime/src
RT_OBJ_DIR  := $(BUILD)/obj
RT_HEADER   := runtime/include/aesgen.h
RT_SRCS     := $(addprefix $(RT_SRC_DIR)/,aes_bitsliced.c cpu.c ctr.c isa.c key_expand.c \
                                          util.c xctr.c xts.c xts_generic.c \
                                          gcm.c gcm_clmul.c gcm_generic.c ipsec.c)
RT_C_OBJS   := $(patsubst $(RT_SRC_DIR)/%.c,$(RT_OBJ_DIR)/runtime/%.o,$(RT_SRCS))

# The generated assembly is linked in only when every file of GEN_S exists;
# until then the library is the portable C implementation alone.
RT_HAVE_ASM := $(if $(filter-out $(wildcard $(GEN_S)),$(GEN_S)),,yes)
RT_ASM_OBJS := $(if $(RT_HAVE_ASM),$(patsubst gen/%.S,$(RT_OBJ_DIR)/gen/%.o,$(GEN_S)))
RT_OBJS     := $(RT_C_OBJS) $(RT_ASM_OBJS)

# XTS assembly is referenced only when it is linked in: xts is one of MODES
# (so its files are in GEN_S, all present) and gen/<isa>/xts.S exists for every
# ISA.  Otherwise the asm ISAs run XTS with the generic code (see isa.c).
RT_XTS_S    := $(foreach i,$(ISAS),gen/$(i)/xts.S)
RT_HAVE_XTS_ASM := $(if $(and $(RT_HAVE_ASM),$(filter xts,$(MODES)), \
                      $(if $(filter-out $(wildcard $(RT_XTS_S)),$(RT_XTS_S)),,yes)),yes)

# GCM assembly likewise (AESGEN_HAVE_GCM_ASM); without it the asm ISAs run GCM
# with the AES-NI/PCLMULQDQ intrinsics of gcm_clmul.c (see isa.c).
RT_GCM_S    := $(foreach i,$(ISAS),gen/$(i)/gcm.S)
RT_HAVE_GCM_ASM := $(if $(and $(RT_HAVE_ASM),$(filter gcm,$(MODES)), \
                      $(if $(filter-out $(wildcard $(RT_GCM_S)),$(RT_GCM_S)),,yes)),yes)

# Hidden by default: only functions marked AESGEN_API are exported.
RT_CFLAGS   := -fvisibility=hidden $(if $(RT_HAVE_ASM),-DAESGEN_HAVE_ASM) \
               $(if $(RT_HAVE_XTS_ASM),-DAESGEN_HAVE_XTS_ASM) \
               $(if $(RT_HAVE_GCM_ASM),-DAESGEN_HAVE_GCM_ASM)

RT_LIB_A    := $(BUILD)/libaesgen.a
RT_LIB_SO   := $(BUILD)/libaesgen.so
# The exported names, taken from the AESGEN_API declarations of the header, so
# that the .so exports exactly the public API (the asm entry points stay local).
RT_MAP      := $(RT_OBJ_DIR)/libaesgen.map
# Rebuild everything when the compile flags change (e.g. gen/ appeared).
RT_FLAGS    := $(RT_OBJ_DIR)/runtime.flags

.PHONY: lib install rt-force
lib: $(RT_LIB_A) $(RT_LIB_SO)
rt-force: ;

$(RT_FLAGS): rt-force
	@mkdir -p $(@D)
	@echo '$(CC) $(CFLAGS) $(RT_CFLAGS) $(ASFLAGS) $(RT_ASM_OBJS)' | cmp -s - $@ \
	  || echo '$(CC) $(CFLAGS) $(RT_CFLAGS) $(ASFLAGS) $(RT_ASM_OBJS)' > $@

$(RT_OBJ_DIR)/runtime/%.o: $(RT_SRC_DIR)/%.c $(RT_FLAGS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(RT_CFLAGS) -MMD -MP -c -o $@ $<

$(RT_OBJ_DIR)/gen/%.o: gen/%.S $(RT_FLAGS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASFLAGS) -MMD -MP -c -o $@ $<

-include $(RT_OBJS:.o=.d)

$(RT_LIB_A): $(RT_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(RT_MAP): $(RT_HEADER)
	@mkdir -p $(@D)
	{ echo '{ global:'; \
	  sed -n 's/^AESGEN_API[^(]*[ *]\(aesgen_[a-z0-9_]*\)(.*/    \1;/p' $<; \
	  echo '  local: *; };'; } > $@.tmp
	mv $@.tmp $@

# -nostartfiles: Debian's crti.o/crtn.o carry no IBT/SHSTK property, and one object
# without it drops the marking of the whole .so.  The library needs none of what they
# bring (no constructors, no atexit, unwind tables are found through PT_GNU_EH_FRAME).
$(RT_LIB_SO): $(RT_OBJS) $(RT_MAP)
	@mkdir -p $(@D)
	$(CC) -shared -nostartfiles -o $@ $(RT_OBJS) -Wl,--version-script=$(RT_MAP) \
	  -Wl,-z,noexecstack -Wl,-z,relro,-z,now $(LDFLAGS)

# make install PREFIX=dir [DESTDIR=staging]
install: $(RT_LIB_A) $(RT_LIB_SO)
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(RT_HEADER) $(DESTDIR)$(PREFIX)/include/aesgen.h
	install -m 644 $(RT_LIB_A) $(DESTDIR)$(PREFIX)/lib/libaesgen.a
	install -m 755 $(RT_LIB_SO) $(DESTDIR)$(PREFIX)/lib/libaesgen.so
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(AESGEN_VERSION)|g' \
	  runtime/aesgen.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/aesgen.pc
