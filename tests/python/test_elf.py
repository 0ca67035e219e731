# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""ELF properties of the built library and the objects of the generated code.

- libaesgen.so exports only aesgen_* names (and all of the public API);
  libaesgen.a defines only aesgen_* global names (no clashes when linked
  statically into someone else's program).
- Every object built from gen/*/*.S, and the .so, carries the
  .note.gnu.property x86 feature bits IBT and SHSTK (CET), and asks for a
  non-executable stack.

The build directory comes from AESGEN_BUILD (tests/run.py sets it), else
build/.  These tests need `make lib` to have run.
"""

import json
import os
import re
import subprocess
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("AESGEN_BUILD") or os.path.join(REPO, "build")
SHARED_LIB = os.path.join(BUILD, "libaesgen.so")
STATIC_LIB = os.path.join(BUILD, "libaesgen.a")

# Every function of runtime/include/aesgen.h (written out here, not parsed, so that a
# function dropped from the header or the library shows up; test_matches_the_header
# keeps this list and the header in step).
PUBLIC_API = {
    "aesgen_version", "aesgen_strerror", "aesgen_select_isa", "aesgen_isa_name",
    "aesgen_isa_supported", "aesgen_select_variant", "aesgen_variant_name", "aesgen_wipe",
    "aesgen_ctr_init", "aesgen_ctr_init_isa", "aesgen_ctr_crypt", "aesgen_ctr_set_iv",
    "aesgen_ctr_get_iv", "aesgen_ctr_crypt_iv",
    "aesgen_xctr_init", "aesgen_xctr_init_isa", "aesgen_xctr_crypt", "aesgen_xctr_set_iv",
    "aesgen_xctr_get_index", "aesgen_xctr_crypt_iv",
    "aesgen_xts_init", "aesgen_xts_init_isa", "aesgen_xts_init_allow_equal_keys",
    "aesgen_xts_encrypt", "aesgen_xts_decrypt", "aesgen_xts_encrypt_sectors",
    "aesgen_xts_decrypt_sectors",
    "aesgen_gcm_init", "aesgen_gcm_init_isa", "aesgen_gcm_start", "aesgen_gcm_aad",
    "aesgen_gcm_encrypt_update", "aesgen_gcm_decrypt_update", "aesgen_gcm_encrypt_final",
    "aesgen_gcm_decrypt_final", "aesgen_gcm_encrypt", "aesgen_gcm_decrypt",
    "aesgen_rfc3686_init", "aesgen_rfc3686_init_isa", "aesgen_rfc3686_crypt",
    "aesgen_gcm_esp_init", "aesgen_gcm_esp_init_isa", "aesgen_rfc4106_encrypt",
    "aesgen_rfc4106_decrypt", "aesgen_rfc4543_mac", "aesgen_rfc4543_verify",
}
HEADER = os.path.join(REPO, "runtime", "include", "aesgen.h")


def header_functions():
    """The names the header declares with AESGEN_API."""
    with open(HEADER, encoding="utf-8") as f:
        text = f.read()
    return set(re.findall(r"AESGEN_API\s[^;(]*?\b(aesgen_\w+)\s*\(", text))


def tool_output(*argv):
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def defined_global_symbols(*nm_args):
    """Names of the defined global symbols nm lists (version suffixes dropped)."""
    names = set()
    for line in tool_output("nm", *nm_args).splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] not in "Uuvw":
            names.add(fields[2].split("@")[0])
    return names


def cet_features(path):
    """The x86 feature names of .note.gnu.property, e.g. {"IBT", "SHSTK"}."""
    match = re.search(r"x86 feature:\s*(.*)", tool_output("readelf", "-n", "-W", path))
    return {f.strip() for f in match.group(1).split(",")} if match else set()


def stack_note_flags(object_path):
    """The flags of the .note.GNU-stack section ("" if none), or None if absent."""
    for line in tool_output("readelf", "-S", "-W", object_path).splitlines():
        fields = line.replace("[ ", "[").split()
        if ".note.GNU-stack" in fields:
            rest = fields[fields.index(".note.GNU-stack") + 1:]
            # type, address, offset, size, entsize, [flags], link, info, align
            return rest[5] if len(rest) == 9 else ""
    return None


def stack_segment_flags(shared_object):
    """The flags of the GNU_STACK program header, e.g. "RW", or None if absent."""
    for line in tool_output("readelf", "-l", "-W", shared_object).splitlines():
        fields = line.split()
        if fields and fields[0] == "GNU_STACK":
            return "".join(f for f in fields[6:-1] if re.fullmatch(r"[RWE]+", f))
    return None


def generated_objects():
    """(source, object) for every gen/<isa>/<mode>.S gen/manifest.json lists, as
    runtime.mk builds it."""
    with open(os.path.join(REPO, "gen", "manifest.json"), encoding="utf-8") as handle:
        entries = json.load(handle)["generated"]
    return [(os.path.join(REPO, "gen", rel), os.path.join(BUILD, "obj", "gen", rel[:-2] + ".o"))
            for rel in (e["files"]["S"]["path"] for e in entries)]


class PublicApiList(unittest.TestCase):
    def test_matches_the_header(self):
        declared = header_functions()
        self.assertEqual(sorted(declared - PUBLIC_API), [], "declared but not in PUBLIC_API")
        self.assertEqual(sorted(PUBLIC_API - declared), [], "in PUBLIC_API but not declared")


class LibraryBuilt(unittest.TestCase):
    def test_libraries_exist(self):
        for path in (SHARED_LIB, STATIC_LIB):
            self.assertTrue(os.path.exists(path), f"{path} missing: run `make lib` first")


@unittest.skipUnless(os.path.exists(SHARED_LIB), "libaesgen.so not built")
class SharedLibrary(unittest.TestCase):
    def test_exports_only_aesgen_names(self):
        exported = defined_global_symbols("-D", "--defined-only", SHARED_LIB)
        foreign = sorted(n for n in exported if not n.startswith("aesgen_"))
        self.assertEqual(foreign, [], "exported names outside the aesgen_ namespace")

    def test_exports_the_public_api(self):
        exported = defined_global_symbols("-D", "--defined-only", SHARED_LIB)
        self.assertEqual(sorted(PUBLIC_API - exported), [], "public functions not exported")

    def test_has_ibt_and_shstk(self):
        self.assertLessEqual({"IBT", "SHSTK"}, cet_features(SHARED_LIB),
                             "libaesgen.so lacks the IBT/SHSTK property: some input object "
                             "lacks it (link with -Wl,-z,cet-report=warning to see which; "
                             "Debian 12's crti.o/crtn.o do)")

    def test_non_executable_stack(self):
        self.assertEqual(stack_segment_flags(SHARED_LIB), "RW")


@unittest.skipUnless(os.path.exists(STATIC_LIB), "libaesgen.a not built")
class StaticLibrary(unittest.TestCase):
    def test_defines_only_aesgen_names(self):
        defined = defined_global_symbols("-g", "--defined-only", STATIC_LIB)
        foreign = sorted(n for n in defined if not n.startswith("aesgen_"))
        self.assertEqual(foreign, [], "global names outside the aesgen_ namespace")


class GeneratedObjects(unittest.TestCase):
    def setUp(self):
        self.pairs = generated_objects()
        if not self.pairs:
            self.skipTest("gen/ has no .S files yet")

    def test_every_generated_file_was_built(self):
        missing = [os.path.relpath(o, REPO) for _, o in self.pairs if not os.path.exists(o)]
        self.assertEqual(missing, [], "gen/*.S without an object in the build")

    def test_ibt_and_shstk(self):
        for source, obj in self.pairs:
            with self.subTest(source=os.path.relpath(source, REPO)):
                self.assertLessEqual({"IBT", "SHSTK"}, cet_features(obj))
                # one property note per object, whatever its number of variants
                notes = tool_output("readelf", "-n", "-W", obj).count("NT_GNU_PROPERTY_TYPE_0")
                self.assertEqual(notes, 1, "GNU property notes")

    def test_non_executable_stack(self):
        for source, obj in self.pairs:
            with self.subTest(source=os.path.relpath(source, REPO)):
                flags = stack_note_flags(obj)
                self.assertIsNotNone(flags, "no .note.GNU-stack section")
                self.assertNotIn("X", flags)


if __name__ == "__main__":
    unittest.main()
