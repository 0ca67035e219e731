# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
# runtime/runtime.mk -- libaesgen.a, libaesgen.so and `make install`.
# Included by the top Makefile, which defines CC, CFLAGS, ASFLAGS, BUILD,
# PREFIX and GEN_S (the generated files gen/manifest.json lists).  All paths are relative to the top directory.

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
                                          gcm.c gcm_clmul.c gcm_generic.c)
RT_C_OBJS   := $(patsubst $(RT_SRC_DIR)/%.c,$(RT_OBJ_DIR)/runtime/%.o,$(RT_SRCS))

# Every generated file of gen/manifest.json is linked in; a missing one stops the build
# (no rule to make its object), and isa.c references every generated function.
RT_ASM_OBJS := $(patsubst gen/%.S,$(RT_OBJ_DIR)/gen/%.o,$(GEN_S))
RT_OBJS     := $(RT_C_OBJS) $(RT_ASM_OBJS)

# A listed file that does not exist: say so (an existing one has no prerequisites here).
gen/%.S:
	@echo "gen/$*.S is missing, but gen/manifest.json lists it: run make gen" >&2; exit 1

# Hidden by default: only functions marked AESGEN_API are exported.
RT_CFLAGS   := -fvisibility=hidden

RT_LIB_A    := $(BUILD)/libaesgen.a
RT_LIB_SO   := $(BUILD)/libaesgen.so
# The exported names, taken from the AESGEN_API declarations of the header, so
# that the .so exports exactly the public API (the asm entry points stay local).
RT_MAP      := $(RT_OBJ_DIR)/libaesgen.map
# Rebuild everything when the compile flags or the list of generated objects change.
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
