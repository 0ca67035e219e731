# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
# runtime/runtime.mk -- libaesgen.a, libaesgen.so and `make install`.
# Included by the top Makefile, which defines CC, CFLAGS, ASFLAGS, BUILD,
# PREFIX and GEN_S (the generated files gen/manifest.json lists).  All paths are relative to the top directory.

# The version is defined once, in the public header; everything here reads it.
AESGEN_VERSION       := $(shell sed -n 's/^\#define AESGEN_VERSION_STRING "\(.*\)"$$/\1/p' runtime/include/aesgen.h)
AESGEN_VERSION_MAJOR := $(word 1,$(subst ., ,$(AESGEN_VERSION)))
AESGEN_VERSION_MINOR := $(word 2,$(subst ., ,$(AESGEN_VERSION)))
ifeq ($(AESGEN_VERSION_MAJOR),)
$(error runtime/include/aesgen.h: no AESGEN_VERSION_STRING)
endif

RT_SRC_DIR  := runtime/src
RT_OBJ_DIR  := $(BUILD)/obj
RT_HEADER   := runtime/include/aesgen.h
RT_SRCS     := $(addprefix $(RT_SRC_DIR)/,aes_bitsliced.c cpu.c ctr.c isa.c key_expand.c \
                                          util.c xctr.c xts.c xts_generic.c \
                                          gcm.c gcm_clmul.c gcm_generic.c ipsec.c \
                                          gcm_ctr_ghash.c)
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

# The shared library is libaesgen.so.VERSION with the SONAME libaesgen.so.ABI (what
# programs record and the loader looks for) and the development link libaesgen.so; the
# build directory holds the same three names as the installed lib/.  ABI is MAJOR, or
# 0.MINOR while MAJOR is 0, as every 0.x minor may change the ABI (0.3.0: the GCM key
# grew; 0.4.0: aesgen_aes_key grew its 64-byte rows; 0.5.0: the GCM key holds 68
# powers of H, was 36; 0.6.0: aesgen_ctr_ctx grew by a function pointer; the CMake
# version file refuses
# another 0.x minor the same way).
RT_LIB_A       := $(BUILD)/libaesgen.a
RT_SO_LINK     := libaesgen.so
AESGEN_ABI     := $(if $(filter 0,$(AESGEN_VERSION_MAJOR)),0.$(AESGEN_VERSION_MINOR),$(AESGEN_VERSION_MAJOR))
RT_SONAME      := libaesgen.so.$(AESGEN_ABI)
RT_SO_FILE     := libaesgen.so.$(AESGEN_VERSION)
RT_LIB_SO      := $(BUILD)/$(RT_SO_FILE)
RT_LIB_SO_LINKS := $(BUILD)/$(RT_SONAME) $(BUILD)/$(RT_SO_LINK)
# The exported names, taken from the AESGEN_API declarations of the header, so
# that the .so exports exactly the public API (the asm entry points stay local).
RT_MAP      := $(RT_OBJ_DIR)/libaesgen.map
# Rebuild everything when the compile flags or the list of generated files change.  The
# line names no path under BUILD, so that the same directory spelled another way (make
# BUILD=$$PWD/build, as tests/python/test_install.py runs `make install` while other
# tests read the libraries) finds it up to date instead of rebuilding it under them.
RT_FLAGS    := $(RT_OBJ_DIR)/runtime.flags

.PHONY: lib install uninstall rt-force
lib: $(RT_LIB_A) $(RT_LIB_SO) $(RT_LIB_SO_LINKS)
rt-force: ;

$(RT_FLAGS): rt-force
	@mkdir -p $(@D)
	@echo '$(CC) $(CFLAGS) $(RT_CFLAGS) $(ASFLAGS) $(GEN_S)' | cmp -s - $@ \
	  || echo '$(CC) $(CFLAGS) $(RT_CFLAGS) $(ASFLAGS) $(GEN_S)' > $@

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
	  -Wl,-soname,$(RT_SONAME) -Wl,-z,noexecstack -Wl,-z,relro,-z,now $(LDFLAGS)

$(BUILD)/$(RT_SONAME): $(RT_LIB_SO)
	ln -sf $(RT_SO_FILE) $@

$(BUILD)/$(RT_SO_LINK): $(BUILD)/$(RT_SONAME)
	ln -sf $(RT_SONAME) $@

# make install [PREFIX=dir] [DESTDIR=staging]: the header, both libraries, the
# pkg-config file and the CMake package (imported targets aesgen::aesgen and
# aesgen::aesgen_static).  The CMake files find the prefix from their own place, so a
# staged or moved tree still works; the .pc file names PREFIX.
# make uninstall with the same PREFIX/DESTDIR removes exactly those files.
RT_CMAKE_DIR     := lib/cmake/aesgen
RT_INSTALLED     := include/aesgen.h lib/libaesgen.a lib/$(RT_SO_FILE) lib/$(RT_SONAME) \
                    lib/$(RT_SO_LINK) lib/pkgconfig/aesgen.pc \
                    $(RT_CMAKE_DIR)/aesgenConfig.cmake $(RT_CMAKE_DIR)/aesgenConfigVersion.cmake
RT_INSTALL_ROOT  := $(DESTDIR)$(PREFIX)
RT_VERSION_SED   := -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(AESGEN_VERSION)|g' \
                    -e 's|@VERSION_MAJOR@|$(AESGEN_VERSION_MAJOR)|g' \
                    -e 's|@VERSION_MINOR@|$(AESGEN_VERSION_MINOR)|g' \
                    -e 's|@SO_FILE@|$(RT_SO_FILE)|g' -e 's|@SONAME@|$(RT_SONAME)|g'

install: $(RT_LIB_A) $(RT_LIB_SO)
	install -d $(RT_INSTALL_ROOT)/include $(RT_INSTALL_ROOT)/lib/pkgconfig \
	  $(RT_INSTALL_ROOT)/$(RT_CMAKE_DIR)
	install -m 644 $(RT_HEADER) $(RT_INSTALL_ROOT)/include/aesgen.h
	install -m 644 $(RT_LIB_A) $(RT_INSTALL_ROOT)/lib/libaesgen.a
	install -m 755 $(RT_LIB_SO) $(RT_INSTALL_ROOT)/lib/$(RT_SO_FILE)
	ln -sf $(RT_SO_FILE) $(RT_INSTALL_ROOT)/lib/$(RT_SONAME)
	ln -sf $(RT_SONAME) $(RT_INSTALL_ROOT)/lib/$(RT_SO_LINK)
	sed $(RT_VERSION_SED) runtime/aesgen.pc.in > $(RT_INSTALL_ROOT)/lib/pkgconfig/aesgen.pc
	sed $(RT_VERSION_SED) runtime/cmake/aesgenConfig.cmake.in \
	  > $(RT_INSTALL_ROOT)/$(RT_CMAKE_DIR)/aesgenConfig.cmake
	sed $(RT_VERSION_SED) runtime/cmake/aesgenConfigVersion.cmake.in \
	  > $(RT_INSTALL_ROOT)/$(RT_CMAKE_DIR)/aesgenConfigVersion.cmake

uninstall:
	rm -f $(addprefix $(RT_INSTALL_ROOT)/,$(RT_INSTALLED))
	-rmdir $(RT_INSTALL_ROOT)/$(RT_CMAKE_DIR) 2>/dev/null
