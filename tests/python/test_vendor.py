# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Vendored bundles (`python3 -m generator vendor`, generator/vendor.py), used as another
project would use them.

- Files: every file has the SPDX line and says how to regenerate; the output is
  deterministic; `vendor --check` passes on a fresh bundle and names the file after one
  byte changes (and a missing one); `sha256sum -c SHA256SUMS` likewise; bad options exit
  2 naming the valid values; `make vendor` and `make dist`.
- The known-answer bytes of include/aesgen_asm.h against OpenSSL (AES_set_encrypt_key's
  schedule, H = AES_K(0)); kat.c checks them against what the runtime writes.
- Builds (cached in $AESGEN_BUILD/vendor): the full bundle through CMake add_subdirectory
  (and aa_ with bb_ in the same CMake build, one program with both), the bb_ bundle as a Meson subproject,
  the full bundle and aa_ with bb_ as Bazel packages (their own BUILD.bazel; Debian's Bazel
  4.2.3 offline, tests/vendor/bazel/offline), the subset and the aa_/bb_ bundles through
  sources.mk (tests/vendor/consumer.mk); each runs
  tests/vendor/kat.c: every vector of tests/vectors/normalized of the bundle's modes on
  every ISA the CPU has, and the ISA picked must be the one the library picks (no
  silent C fallback).  The subset --mode xts,gcm --isa aesni_avx,avx10_512 likewise.
- Two bundles, aa_ and bb_, in one executable and in one shared object each: both run
  the vectors, each reads only its own environment variable (AA_AESGEN_ISA; AESGEN_ISA is
  set and must be ignored), nm shows no unprefixed global symbol, neither .so exports
  anything of its bundle.
- include/aesgen_asm.h compiles as C++.
The expected values are the published vectors, OpenSSL and FIPS-197; the ISA the
library ($AESGEN_BUILD/libaesgen.so) picks on this CPU.
"""

import ctypes
import ctypes.util
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import unittest

from repo import REPO, have
from vendor_bundles import BUILD, ROOT, bundle, write_if_changed

from generator import vendor
from generator.isa import ISAS
from generator.modes import generated_pairs

VECTORS = os.path.join(REPO, "tests", "vectors", "normalized")
CONSUMER = os.path.join(REPO, "tests", "vendor")
MODES_WITH_VECTORS = ("ctr", "xctr", "xts", "gcm")


def clean_env(**extra):
    """The environment without make's jobserver and without any AESGEN_ISA-like choice."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL") and "AESGEN_" not in k}
    env.update(extra)
    return env


def run(argv, **kwargs):
    kwargs.setdefault("env", clean_env())
    result = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} exited {result.returncode}:\n"
                             f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result.stdout


def vectors_file():
    """One line per vector: mode result key iv aad pt ct tag ('-' for empty)."""
    path = os.path.join(ROOT, "vectors.txt")
    lines = []
    for mode in MODES_WITH_VECTORS:
        with open(os.path.join(VECTORS, f"{mode}.jsonl"), encoding="utf-8") as handle:
            for line in handle:
                v = json.loads(line)
                if v["mode"] != mode or v["result"] not in ("valid", "invalid"):
                    continue
                if mode != "gcm" and v["result"] != "valid":
                    continue
                if mode == "xts" and len(v["pt"]) < 32:
                    continue
                fields = [v.get(k) or "-" for k in ("key", "iv", "aad", "pt", "ct", "tag")]
                lines.append(f"{mode} {v['result']} {' '.join(fields)}\n")
    text = "".join(lines)
    os.makedirs(ROOT, exist_ok=True)
    write_if_changed(ROOT, {"vectors.txt": text})
    return path


def flip(path, offset):
    """Changes one bit of one byte of the file."""
    with open(path, "rb") as handle:
        data = bytearray(handle.read())
    data[offset] ^= 0x01
    with open(path, "wb") as handle:
        handle.write(data)


def read_json(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def library():
    lib = ctypes.CDLL(os.path.join(BUILD, "libaesgen.so"))
    lib.aesgen_isa_name.restype = ctypes.c_char_p
    lib.aesgen_isa_supported.argtypes = [ctypes.c_char_p]
    return lib


def expected_isa(isas):
    """The ISA a bundle of these ISAs picks here: the library's choice if the bundle has
    it, else the widest of the bundle's ISAs this CPU runs, else generic."""
    lib = library()
    chosen = lib.aesgen_isa_name().decode()
    if chosen in isas:
        return chosen
    usable = [name for name in ISAS if name in isas and lib.aesgen_isa_supported(name.encode())]
    return usable[-1] if usable else "generic"


def kat_summary(output, entry):
    match = re.search(rf"^{entry}: (\d+) passed, (\d+) failed$", output, re.M)
    if not match:
        raise AssertionError(f"no summary line of {entry}:\n{output[-2000:]}")
    return int(match.group(1)), int(match.group(2))


def kat_least_checks(output, entry, isas, least_vectors):
    """The checks a kat run of a bundle of these ISAs must have passed at least: each
    vector it read (at least least_vectors of them) once per ISA it can run here, generic
    and the bundle's ISAs this CPU has (so the count does not depend on the CPU's ISAs)."""
    match = re.search(rf"^{entry}: (\d+) vectors$", output, re.M)
    if not match:
        raise AssertionError(f"no vector count of {entry}:\n{output[-2000:]}")
    vectors = int(match.group(1))
    if vectors < least_vectors:
        raise AssertionError(f"{entry} read {vectors} vectors, fewer than {least_vectors}")
    lib = library()
    runs = 1 + sum(1 for name in isas if lib.aesgen_isa_supported(name.encode()))
    return vectors * runs


def defined_globals(path, dynamic=False):
    argv = ["nm", "--defined-only", "--extern-only"] + (["-D"] if dynamic else []) + [path]
    return {line.split()[-1] for line in run(argv).splitlines() if len(line.split()) == 3}


def make_consumer(name, entry="kat_run"):
    """tests/vendor/consumer.mk on the named bundle; returns its output directory."""
    directory, files = bundle(name)
    out = os.path.join(ROOT, "make", name)
    stem = json.loads(files["manifest.json"])["options"]["prefix"].upper() + "AESGEN"
    run(["make", "-s", "-j2", "-f", os.path.join(CONSUMER, "consumer.mk"),
         f"BUNDLE={directory}", f"OUT={out}", f"VAR={stem}", f"ENTRY={entry}"])
    return out


def run_two(test, binary):
    """A program of main_two.c: both bundles pass every vector; aa_ takes the ISA of
    AA_AESGEN_ISA, bb_ the library's choice (AESGEN_ISA=generic is read by neither)."""
    expect_bb = expected_isa(ISAS)
    environment = clean_env(AA_AESGEN_ISA="aesni_avx", AESGEN_ISA="generic")
    output = run([binary, vectors_file(), "aesni_avx", expect_bb], env=environment)
    for entry in ("aa_kat", "bb_kat"):
        passed, failed = kat_summary(output, entry)
        test.assertEqual(failed, 0, output[-3000:])
        test.assertGreater(passed, 3000)
    test.assertIn("aa_kat: isa aesni_avx", output)
    test.assertIn(f"bb_kat: isa {expect_bb}", output)


class Files(unittest.TestCase):
    def test_every_file_has_spdx_and_a_regenerate_line(self):
        _, files = bundle("aa")
        for path, text in files.items():
            with self.subTest(path=path):
                first = text.split("\n", 1)[0]
                if path.endswith(".json"):
                    self.assertEqual(json.loads(text)["license"],
                                     "SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause")
                else:
                    self.assertIn("SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause", first)
                self.assertIn("python3 -m generator vendor --out DIR --prefix aa_", text)

    def test_deterministic(self):
        opts = vendor.options("", "aesni_avx", "xts", "linux,apple")
        self.assertEqual(vendor.bundle(opts), vendor.bundle(opts))

    def test_unique_assembly_names_and_guards(self):
        _, files = bundle("aa")
        asm = [p for p in files if p.startswith("asm/")]
        # every file of every ISA (vperm_ssse3 has fewer modes), three OS flavours each
        self.assertEqual(len(asm), len(generated_pairs()) * 3)
        self.assertEqual(len({os.path.basename(p) for p in asm}), len(asm))
        for path in asm:
            if path.endswith("-win.asm"):
                self.assertIn("\n%ifidni __OUTPUT_FORMAT__, win64\n", files[path])
                self.assertTrue(files[path].rstrip().endswith("%endif"), path)
                labels = re.findall(r"(?m)^\s*global\s+(\S+)$", files[path])
                # and the same names stay out of a DLL's automatic exports
                excluded = re.findall(r'(?m)^\s*db " -exclude-symbols:(\S+)"$', files[path])
                self.assertEqual(sorted(labels), sorted(",".join(excluded).split(",")), path)
            else:
                self.assertRegex(path, r"^asm/aesgen-[a-z]+-[a-z0-9_]+-(linux|apple)\.S$")
                self.assertIn("\n#if defined(__x86_64__)\n", files[path])
                self.assertTrue(files[path].rstrip().endswith("#endif"), path)
                labels = re.findall(r"(?m)^_?([A-KM-Za-z_][A-Za-z0-9_]*):", files[path])
            # every global label carries the prefix
            self.assertTrue(labels, path)
            for label in labels:
                self.assertTrue(label.startswith("aa_"), f"{path}: {label}")

    def test_check_passes_then_names_the_changed_and_the_missing_file(self):
        directory, _ = bundle("subset")
        with tempfile.TemporaryDirectory(prefix="aesgen-vendor-") as work:
            copy = os.path.join(work, "bundle")
            shutil.copytree(directory, copy)
            result = self.vendor("--check", copy)
            self.assertEqual(result.returncode, 0, result.stderr)
            target = os.path.join(copy, "asm", "aesgen-gcm-avx10_512-linux.S")
            flip(target, -1000)
            os.remove(os.path.join(copy, "src", "xts.c"))
            result = self.vendor("--check", copy)
            self.assertEqual(result.returncode, 1)
            self.assertIn("differs: asm/aesgen-gcm-avx10_512-linux.S", result.stderr)
            self.assertIn("missing: src/xts.c", result.stderr)
            self.assertEqual(len(result.stderr.strip().splitlines()), 2, result.stderr)

    def test_sha256sums(self):
        directory, _ = bundle("subset")
        with tempfile.TemporaryDirectory(prefix="aesgen-vendor-") as work:
            copy = os.path.join(work, "bundle")
            shutil.copytree(directory, copy)
            run(["sha256sum", "--strict", "-c", "SHA256SUMS"], cwd=copy)
            target = os.path.join(copy, "include", "aesgen.h")
            flip(target, 100)
            result = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=copy,
                                    capture_output=True, text=True)
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("include/aesgen.h: FAILED", result.stdout)

    def vendor(self, *args):
        return subprocess.run(["python3", "-m", "generator", "vendor", *args], cwd=REPO,
                              capture_output=True, text=True)

    def test_bad_values_exit_2_naming_the_valid_ones(self):
        with tempfile.TemporaryDirectory(prefix="aesgen-vendor-") as work:
            for args, words in ((["--isa", "sse9"], ["'sse9'", "aesni_avx", "avx10_512"]),
                                (["--mode", "ecb"], ["'ecb'", "ctr", "gcm"]),
                                (["--os", "plan9"], ["'plan9'", "linux", "apple"]),
                                (["--prefix", "Bad-"], ["'Bad-'", "aa_"])):
                with self.subTest(args=args):
                    result = self.vendor("--out", work, *args)
                    self.assertEqual(result.returncode, 2, result.stderr)
                    for word in words:
                        self.assertIn(word, result.stderr)
            self.assertEqual(os.listdir(work), [])

    def test_make_vendor_and_dist(self):
        with tempfile.TemporaryDirectory(prefix="aesgen-vendor-") as work:
            out = os.path.join(work, "b")
            run(["make", "-s", "-C", REPO, "vendor", f"OUT={out}", "PREFIX=zz_",
                 "ISA=aesni_avx", "MODE=ctr,gcm", "OS=apple"])
            options = read_json(os.path.join(out, "manifest.json"))["options"]
            self.assertEqual(options, {"prefix": "zz_", "isas": ["aesni_avx"],
                                       "modes": ["ctr", "gcm"], "os": ["apple"]})
            # a smaller bundle into the same place: the earlier files are named, not deleted
            result = self.vendor("--out", out, "--isa", "aesni_avx", "--mode", "ctr",
                                 "--os", "apple")
            self.assertEqual(result.returncode, 0, result.stderr)
            for path in ("asm/aesgen-gcm-aesni_avx-apple.S", "src/gcm.c", "src/gcm_ctr_ghash.c",
                         "src/ipsec.c"):
                self.assertIn(f"note: {path} is not part of this bundle", result.stderr)
                self.assertTrue(os.path.exists(os.path.join(out, path)))
            self.assertEqual(len(result.stderr.strip().splitlines()), 4, result.stderr)
            dist_build = os.path.join(work, "build")
            run(["make", "-s", "-C", REPO, f"BUILD={dist_build}", "dist"])
            names = [n for n in os.listdir(dist_build) if n.endswith(".tar.gz")]
            self.assertEqual(len(names), 1)
            with tarfile.open(os.path.join(dist_build, names[0])) as tar:
                tar.extractall(os.path.join(work, "x"))
            top = os.path.join(work, "x", names[0][:-len(".tar.gz")])
            _, full = bundle("full")       # the unprefixed bundle of everything
            found = {os.path.relpath(os.path.join(d, f), top)
                     for d, _, fs in os.walk(top) for f in fs}
            self.assertEqual(found, set(full))
            for path, text in full.items():
                with open(os.path.join(top, path), encoding="utf-8") as handle:
                    self.assertEqual(handle.read(), text, path)

    def test_bazel_package_per_flavour(self):
        """BUILD.bazel takes the flavour of the target OS and is incompatible where the
        bundle has none Bazel's cc rules can build (Windows always: no NASM there)."""
        def select_entries(text, attribute):
            block = re.search(attribute + r" = [^\n]*select\(\{\n(.*?)\n    \}\)", text, re.S)
            return dict(re.findall(r'"([^"]+)": ([^,\n]+),', block.group(1)))
        incompatible = '["@platforms//:incompatible"]'
        cases = {"linux,apple,win": ({"@platforms//os:macos": "DD_AESGEN_ASM_APPLE",
                                      "//conditions:default": "DD_AESGEN_ASM_LINUX"},
                                     {"@platforms//os:macos": "[]",
                                      "@platforms//os:windows": incompatible,
                                      "//conditions:default": "[]"}),
                 "apple": ({"@platforms//os:macos": "DD_AESGEN_ASM_APPLE",
                            "//conditions:default": "[]"},
                           {"@platforms//os:macos": "[]",
                            "@platforms//os:windows": incompatible,
                            "//conditions:default": incompatible}),
                 "linux": ({"//conditions:default": "DD_AESGEN_ASM_LINUX"},
                           {"@platforms//os:macos": incompatible,
                            "@platforms//os:windows": incompatible,
                            "//conditions:default": "[]"})}
        for flavours, (sources, compatible) in cases.items():
            with self.subTest(os=flavours):
                text = vendor.bundle(vendor.options("dd_", "aesni_avx", "ctr", flavours))[
                    "BUILD.bazel"]
                self.assertIn('    name = "dd_aesgen",\n', text)
                self.assertEqual(select_entries(text, "srcs"), sources)
                self.assertEqual(select_entries(text, "target_compatible_with"), compatible)


class WindowsDesign(unittest.TestCase):
    """The bundle's Windows parts need only a flavour "win" in generator/flavours.py
    (Win64 ABI, NASM printer: issue 11's other half).  Until it is there, a stand-in
    flavour (System V, the ELF NASM printer) shows what the bundle makes of one: -win.asm
    names, NASM enabled on Windows in CMake and Meson, the lists, and the guard that
    leaves nothing for another NASM format (nasm -f win32)."""

    def test_a_nasm_flavour(self):
        from generator import flavours
        from generator.printers.nasm import NasmPrinter
        added = "win" not in flavours.FLAVOURS
        if added:
            flavours.FLAVOURS["win"] = flavours.Flavour("win", "sysv", "asm", NasmPrinter,
                                                        "stand-in for the Win64 flavour")
        try:
            files = vendor.bundle(vendor.options("cc_", "aesni_avx", "ctr", "linux,win"))
        finally:
            if added:
                del flavours.FLAVOURS["win"]
        path = "asm/aesgen-ctr-aesni_avx-win.asm"
        self.assertIn(path, files)
        text = files[path]
        self.assertTrue(text.startswith("; SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause\n"))
        self.assertIn("\n%ifidni __OUTPUT_FORMAT__, win64\n", text)
        self.assertTrue(text.rstrip().endswith("%endif"))
        self.assertIn("cc_aesgen_ctr_crypt_aesni_avx", text)
        self.assertRegex(files["CMakeLists.txt"],
                         r"if\(WIN32\)\n  enable_language\(ASM_NASM\)\n"
                         r"  set\(_cc_aesgen_asm \$\{CC_AESGEN_ASM_WIN\}\)")
        self.assertIn("add_languages('nasm', native: false)", files["meson.build"])
        self.assertIn(path, json.loads(files["sources.json"])["asm"]["win"]["files"])
        self.assertIn(f"$(CC_AESGEN_DIR)/{path}", files["sources.mk"])
        if have("nasm"):
            with tempfile.TemporaryDirectory(prefix="aesgen-vendor-") as work:
                source = os.path.join(work, "x.asm")
                with open(source, "w", encoding="utf-8") as handle:
                    handle.write(text)
                run(["nasm", "-f", "win32", "-o", os.path.join(work, "x.obj"), source])
                # only the two absolute symbols NASM puts in every COFF object
                symbols = run(["nm", os.path.join(work, "x.obj")]).split("\n")
                self.assertEqual(sorted(line.split()[-1] for line in symbols if line),
                                 [".absolut", "@feat.00"])


class KnownAnswers(unittest.TestCase):
    """include/aesgen_asm.h's bytes against OpenSSL's libcrypto."""

    @staticmethod
    def macro(text, name):
        match = re.search(rf"#define {name} \{{ \\\n(.*?)\n\}}", text, re.S)
        return bytes(int(b, 16) for b in re.findall(r"0x([0-9a-f]{2})", match.group(1)))

    def test_round_keys_and_h_against_openssl(self):
        _, files = bundle("subset")
        text = files["include/aesgen_asm.h"]
        key = self.macro(text, "AESGEN_ASM_KAT_KEY")
        crypto = ctypes.CDLL(ctypes.util.find_library("crypto"))
        schedule = ctypes.create_string_buffer(244)          # AES_KEY: 60 words, rounds
        self.assertEqual(crypto.AES_set_encrypt_key(key, 128, schedule), 0)
        # rd_key holds the schedule in memory order (the AES-NI code) or as host-order
        # words of big-endian loads (the C code); round key 0 is the key itself.
        raw = schedule.raw[:176]
        if raw[:16] != key:
            raw = b"".join(raw[i:i + 4][::-1] for i in range(0, 176, 4))
        self.assertEqual(raw[:16], key)
        openssl_round_keys = raw
        self.assertEqual(self.macro(text, "AESGEN_ASM_KAT_ROUND_KEYS"), openssl_round_keys)
        h = ctypes.create_string_buffer(16)
        crypto.AES_encrypt(bytes(16), h, schedule)
        self.assertEqual(self.macro(text, "AESGEN_ASM_KAT_H"), h.raw)
        self.assertIn("#define AESGEN_ASM_KAT_ROUNDS 10", text)


@unittest.skipUnless(have("cc") and have("nm"), "cc or nm missing")
class Builds(unittest.TestCase):
    def run_kat(self, binary, isas, least_vectors=700, **env):
        """The bundle of these ISAs: its kat picks expected_isa(isas) and passes every
        vector on generic and on each of the ISAs this CPU runs."""
        expect = expected_isa(isas)
        output = run([binary, vectors_file(), expect], env=clean_env(**env))
        passed, failed = kat_summary(output, "kat_run")
        self.assertEqual(failed, 0, output[-3000:])
        self.assertGreaterEqual(passed, kat_least_checks(output, "kat_run", isas, least_vectors))
        self.assertIn(f"kat_run: isa {expect}", output)

    def test_subset_links_and_runs(self):
        """Through sources.mk (tests/vendor/consumer.mk), as the two prefixed bundles."""
        out = make_consumer("subset")
        self.run_kat(os.path.join(out, "kat"), ["aesni_avx", "avx10_512"])
        self.assertEqual(defined_globals(os.path.join(out, "libbundle.so"), dynamic=True),
                         {"kat_run"})

    def test_one_isa_without_aesni_avx(self):
        """--isa vaes_avx2 --mode ctr,gcm (with the RFC 4106 file): links and runs."""
        out = make_consumer("narrow")
        self.run_kat(os.path.join(out, "kat"), ["vaes_avx2"], least_vectors=300)

    def test_every_isa_without_gcm(self):
        """--mode ctr,xctr,xts with every ISA: vperm_ssse3's one-block function (GCM's
        E_K(J0)) lives in gcm_ctr_ghash.c, which such a bundle leaves out, and isa.c named
        it for every bundle: no gcm-less bundle with vperm_ssse3 linked."""
        directory, files = bundle("no_gcm")
        self.assertNotIn("src/gcm_ctr_ghash.c", files)
        out = make_consumer("no_gcm")
        self.run_kat(os.path.join(out, "kat"), list(ISAS), least_vectors=300)

    def test_gcm_only_on_vperm_ssse3(self):
        """--isa vperm_ssse3 --mode gcm: vperm_ssse3 has no gcm.S; its GCM runs on the
        ISA's CTR file (gcm_ctr_ghash.c), which the bundle carries for it."""
        directory, files = bundle("fallback")
        self.assertIn("asm/aesgen-ctr-vperm_ssse3-linux.S", files)
        self.assertIn("src/gcm_ctr_ghash.c", files)
        self.assertNotIn("src/ctr.c", files)
        out = make_consumer("fallback")
        self.run_kat(os.path.join(out, "kat"), ["vperm_ssse3"], least_vectors=200)

    @unittest.skipUnless(have("cmake") and have("ninja"), "cmake or ninja missing")
    def test_cmake_add_subdirectory(self):
        """The full bundle as aesgen::aesgen, and aesgen::aa_aesgen with
        aesgen::bb_aesgen in the same build (one program with both)."""
        build = os.path.join(ROOT, "cmake")
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            run(["cmake", "-S", os.path.join(CONSUMER, "cmake"), "-B", build, "-G", "Ninja",
                 f"-DAESGEN_BUNDLE={bundle('full')[0]}", f"-DAESGEN_BUNDLE_AA={bundle('aa')[0]}",
                 f"-DAESGEN_BUNDLE_BB={bundle('bb')[0]}", "-DCMAKE_BUILD_TYPE=Release"])
        run(["cmake", "--build", build, "-j", "2"])
        self.run_kat(os.path.join(build, "kat"), list(ISAS))
        run_two(self, os.path.join(build, "two"))

    @unittest.skipUnless(have("meson") and have("ninja"), "meson or ninja missing")
    def test_meson_subproject(self):
        """The bb_ bundle: the subproject and dependency are named bb_aesgen."""
        directory, _ = bundle("bb")
        source = os.path.join(ROOT, "meson-src")
        os.makedirs(os.path.join(source, "subprojects"), exist_ok=True)
        for name in ("kat.c", "main_one.c", "meson/meson.build"):
            target = os.path.join(source, os.path.basename(name))
            with open(os.path.join(CONSUMER, name), encoding="utf-8") as handle:
                write_if_changed(source, {os.path.basename(name): handle.read()})
        link = os.path.join(source, "subprojects", "bb_aesgen")
        if not os.path.islink(link):
            os.symlink(directory, link)
        build = os.path.join(ROOT, "meson-build")
        if not os.path.exists(os.path.join(build, "build.ninja")):
            run(["meson", "setup", "--buildtype=release", build, source])
        run(["ninja", "-C", build, "-j", "2"])
        self.run_kat(os.path.join(build, "kat"), list(ISAS))

    @unittest.skipUnless(have("bazel"), "bazel missing")
    def test_bazel_packages(self):
        """The full bundle as //third_party/aesgen (program kat), and the aa_ and bb_
        bundles as //third_party/aa_aesgen and //third_party/bb_aesgen in one program
        (two), each package built from the bundle's own BUILD.bazel."""
        workspace = os.path.join(ROOT, "bazel", "ws")
        offline = os.path.join(CONSUMER, "bazel", "offline")
        os.makedirs(os.path.join(workspace, "third_party"), exist_ok=True)
        files = {"WORKSPACE": "".join(
            f'local_repository(name = "{name}", path = "{os.path.join(offline, name)}")\n'
            for name in ("rules_cc", "rules_java"))}
        for name in ("kat.c", "main_one.c", "main_two.c", "bazel/BUILD.bazel"):
            with open(os.path.join(CONSUMER, name), encoding="utf-8") as handle:
                files[os.path.basename(name)] = handle.read()
        write_if_changed(workspace, files)
        for name, package in (("full", "aesgen"), ("aa", "aa_aesgen"), ("bb", "bb_aesgen")):
            directory, _ = bundle(name)            # written if it changed
            link = os.path.join(workspace, "third_party", package)
            if not os.path.islink(link):
                os.symlink(directory, link)
        # --batch: no server outlives the test; the output base stays under build/.
        run(["bazel", "--batch", f"--output_user_root={os.path.join(ROOT, 'bazel', 'root')}",
             "build", "--spawn_strategy=local", "//:kat", "//:two"], cwd=workspace)
        self.run_kat(os.path.join(workspace, "bazel-bin", "kat"), list(ISAS))
        run_two(self, os.path.join(workspace, "bazel-bin", "two"))

    def test_cxx(self):
        if not have("c++"):
            self.skipTest("c++ missing")
        directory, _ = bundle("aa")
        with tempfile.TemporaryDirectory(prefix="aesgen-vendor-") as work:
            source = os.path.join(work, "use.cpp")
            with open(source, "w") as handle:
                handle.write('#include <aesgen_asm.h>\n'
                             'int use(aesgen_aes_key *k, uint8_t *d, const uint8_t *s) {\n'
                             '    return aesgen_ctr_crypt_avx10_512(k, d, s, 16, 0, 1);\n}\n')
            run(["c++", "-std=c++11", "-Wall", "-Wextra", "-Werror", "-c", "-I",
                 os.path.join(directory, "include"), "-o", os.path.join(work, "use.o"), source])
            undefined = run(["nm", "-u", os.path.join(work, "use.o")])
            self.assertIn("aa_aesgen_ctr_crypt_avx10_512", undefined)   # C linkage, prefixed


@unittest.skipUnless(have("cc") and have("nm"), "cc or nm missing")
class TwoBundles(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.aa = make_consumer("aa", entry="aa_kat")
        cls.bb = make_consumer("bb", entry="bb_kat")
        cls.main = os.path.join(ROOT, "make", "main_two.o")
        run(["cc", "-O2", "-c", "-o", cls.main, os.path.join(CONSUMER, "main_two.c")])

    def run_two(self, binary):
        run_two(self, binary)

    def test_one_executable(self):
        exe = os.path.join(ROOT, "make", "two_static")
        run(["cc", "-o", exe, self.main, os.path.join(self.aa, "libbundle.a"),
             os.path.join(self.bb, "libbundle.a")])
        self.run_two(exe)
        names = defined_globals(exe)
        self.assertFalse({n for n in names if n.startswith("aesgen_")},
                         "unprefixed global symbols in the executable")
        for prefix, out in (("aa_", self.aa), ("bb_", self.bb)):
            objects = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(out, "obj"))
                       for f in fs if f.endswith(".o")]
            self.assertGreater(len(objects), 20)
            for obj in objects:
                for name in defined_globals(obj):
                    self.assertTrue(name.startswith(prefix), f"{obj}: {name}")

    def test_one_shared_object_each(self):
        for entry, out in (("aa_kat", self.aa), ("bb_kat", self.bb)):
            self.assertEqual(defined_globals(os.path.join(out, "libbundle.so"), dynamic=True),
                             {entry}, "the .so exports something of its bundle")
        work = os.path.join(ROOT, "make", "two_shared")
        os.makedirs(work, exist_ok=True)
        for name, out in (("libaa.so", self.aa), ("libbb.so", self.bb)):
            shutil.copyfile(os.path.join(out, "libbundle.so"), os.path.join(work, name))
        exe = os.path.join(work, "two")
        run(["cc", "-o", exe, self.main, f"-L{work}", "-laa", "-lbb", f"-Wl,-rpath,{work}"])
        self.run_two(exe)


if __name__ == "__main__":
    unittest.main()
