# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The Win64 flavour of vendored bundles built as a Windows project builds them and run
under wine.

tests/vendor/consumer_win.mk builds each bundle from its own sources.mk: the C files
with x86_64-w64-mingw32-gcc, the $(VAR)_ASM_WIN files with nasm $(VAR)_NASMFLAGS_WIN
(cached in $AESGEN_BUILD/vendor/win).  Bundles: the full unprefixed one (every ISA,
mode and OS flavour) and the prefixed aa_ and bb_ ones (tests/python/vendor_bundles.py).
- kat.exe of the full bundle (tests/vendor/kat.c with main_one.c) under wine: every
  vector of tests/vectors/normalized of every mode on every ISA the CPU has, and the
  ISA the bundle picks is the one the Linux library ($AESGEN_BUILD/libaesgen.so) picks.
- aa_ and bb_ in one .exe (main_two.c): both pass every vector; aa_ takes the ISA of
  AA_AESGEN_ISA, bb_ the library's choice, and neither reads AESGEN_ISA (set to generic);
  every global symbol of each bundle's objects carries its prefix.
- CMake: tests/vendor/cmake (add_subdirectory of the full, aa_ and bb_ bundles) configured
  for Windows with mingw-w64 (CMAKE_SYSTEM_NAME=Windows: the bundles' WIN32 branch, NASM
  through CMake's ASM_NASM); its two.exe passes as above under wine (its kat.exe is
  built, not run: the same files as the sources.mk build's).
- DLLs: the full bundle linked into a DLL whose only __declspec(dllexport) is kat_run,
  and into one with no dllexport at all (GNU ld then exports every global symbol it is
  not told to leave out): the export table of each (objdump -p) is exactly kat_run;
  kat_dll.exe calls the first one's kat_run and passes.  With src/util.c compiled with
  AESGEN_API as __declspec(dllexport), the DLL exports the API util.c defines
  (aesgen_strerror, aesgen_version, aesgen_wipe: runtime/include/aesgen.h) and nothing else.
Wine runs with WINEPREFIX in the build directory and WINEDEBUG=-all.  Without wine, or if
wine cannot start a Windows program here, the runs are skipped by name (never passed);
without mingw-w64 or nasm everything is.
"""

import os
import re
import subprocess
import unittest

from repo import REPO, have
from vendor_bundles import BUILD, ROOT, bundle
from test_vendor import clean_env, expected_isa, kat_least_checks, kat_summary, run, vectors_file

from generator.isa import ISAS

CONSUMER = os.path.join(REPO, "tests", "vendor")
WIN_CC = "x86_64-w64-mingw32-gcc"
OBJDUMP = "x86_64-w64-mingw32-objdump"
NM = "x86_64-w64-mingw32-nm"
WINE_TIMEOUT_SECONDS = 300
LEAST_VECTORS = 700        # the full bundle's kat reads about 800


def wine_environment(**extra):
    """The prefix tests/win/run.py uses too (created on the first run)."""
    return clean_env(WINEPREFIX=os.path.join(BUILD, "win", "wineprefix"), WINEDEBUG="-all",
                     WINEDLLOVERRIDES="mscoree,mshtml=", **extra)


def windows_path(path):
    return "Z:" + os.path.abspath(path)


def exports(path):
    """The names of a PE file's export table (objdump -p)."""
    dump = run([OBJDUMP, "-p", path])
    table = dump.partition("[Ordinal/Name Pointer] Table")[2]
    names = []
    for line in table.splitlines()[1:]:
        match = re.match(r"^\s*\[\s*\d+\]\s+(\S+)$", line)
        if not match:
            break
        names.append(match.group(1))
    return names


def build_windows(name, entry="kat_run"):
    """tests/vendor/consumer_win.mk on the named bundle; returns its output directory."""
    import json
    directory, files = bundle(name)
    out = os.path.join(ROOT, "win", name)
    stem = json.loads(files["manifest.json"])["options"]["prefix"].upper() + "AESGEN"
    run(["make", "-s", "-j2", "-f", os.path.join(CONSUMER, "consumer_win.mk"),
         f"BUNDLE={directory}", f"OUT={out}", f"VAR={stem}", f"ENTRY={entry}"])
    return out


_wine_verdict = {}


def wine_problem(probe_exe):
    """None if wine runs the probe program (main_one.c without arguments: usage, status
    2), else why not."""
    if "verdict" not in _wine_verdict:
        if not have("wine"):
            problem = "no wine here (tests/tools.sh installs wine and wine64)"
        else:
            os.makedirs(wine_environment()["WINEPREFIX"], exist_ok=True)
            try:
                probe = subprocess.run(["wine", probe_exe], capture_output=True, text=True,
                                       env=wine_environment(), timeout=WINE_TIMEOUT_SECONDS,
                                       errors="replace")
                problem = (None if probe.returncode == 2 and "usage" in probe.stderr else
                           f"wine cannot run {probe_exe} (status {probe.returncode}: "
                           f"{(probe.stderr.strip().splitlines() or ['no output'])[-1]})")
            except subprocess.TimeoutExpired:
                problem = f"a probe run of {probe_exe} under wine did not finish"
        _wine_verdict["verdict"] = problem
    return _wine_verdict["verdict"]


@unittest.skipUnless(have(WIN_CC) and have("nasm") and have(OBJDUMP),
                     "mingw-w64 (x86_64-w64-mingw32-gcc, objdump) or nasm missing")
class WindowsBundles(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.full = build_windows("full")
        cls.aa = build_windows("aa", entry="aa_kat")
        cls.bb = build_windows("bb", entry="bb_kat")
        cls.two = os.path.join(ROOT, "win", "two.exe")
        main = os.path.join(ROOT, "win", "main_two.o")
        run([WIN_CC, "-O2", "-c", "-o", main, os.path.join(CONSUMER, "main_two.c")])
        run([WIN_CC, "-o", cls.two, main, os.path.join(cls.aa, "libbundle.a"),
             os.path.join(cls.bb, "libbundle.a")])

    def wine(self, argv, **env):
        problem = wine_problem(os.path.join(self.full, "kat.exe"))
        if problem:
            self.skipTest(f"wine: {problem}")
        result = subprocess.run(["wine", *argv], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, errors="replace",
                                env=wine_environment(**env), timeout=WINE_TIMEOUT_SECONDS)
        self.assertEqual(result.returncode, 0,
                         f"{argv[0]} under wine: status {result.returncode}\n"
                         f"{result.stdout[-3000:]}\n{result.stderr[-2000:]}")
        return result.stdout

    def assert_kat(self, output, entry, expect):
        """A bundle with every ISA (all of these are): every vector on generic and on
        each ISA the CPU runs."""
        passed, failed = kat_summary(output, entry)
        self.assertEqual(failed, 0, output[-3000:])
        self.assertGreaterEqual(passed, kat_least_checks(output, entry, ISAS, LEAST_VECTORS))
        self.assertIn(f"{entry}: isa {expect}\n", output)

    def test_full_bundle_kat_exe(self):
        output = self.wine([os.path.join(self.full, "kat.exe"), windows_path(vectors_file()),
                            expected_isa(ISAS)])
        self.assert_kat(output, "kat_run", expected_isa(ISAS))

    def test_two_prefixed_bundles_in_one_exe(self):
        expect_bb = expected_isa(ISAS)
        output = self.wine([self.two, windows_path(vectors_file()), "aesni_avx", expect_bb],
                           AA_AESGEN_ISA="aesni_avx", AESGEN_ISA="generic")
        self.assert_kat(output, "aa_kat", "aesni_avx")
        self.assert_kat(output, "bb_kat", expect_bb)

    @unittest.skipUnless(have("cmake") and have("ninja"), "cmake or ninja missing")
    def test_cmake_windows_branch(self):
        build = os.path.join(ROOT, "win", "cmake")
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            run(["cmake", "-S", os.path.join(CONSUMER, "cmake"), "-B", build, "-G", "Ninja",
                 "-DCMAKE_SYSTEM_NAME=Windows", "-DCMAKE_SYSTEM_PROCESSOR=x86_64",
                 f"-DCMAKE_C_COMPILER={WIN_CC}", "-DCMAKE_BUILD_TYPE=Release",
                 f"-DAESGEN_BUNDLE={bundle('full')[0]}", f"-DAESGEN_BUNDLE_AA={bundle('aa')[0]}",
                 f"-DAESGEN_BUNDLE_BB={bundle('bb')[0]}"])
        run(["cmake", "--build", build, "-j", "2"])
        with open(os.path.join(build, "build.ninja"), encoding="utf-8") as handle:
            self.assertIn("aesgen-gcm-avx10_512-win.asm.obj", handle.read())
        expect_bb = expected_isa(ISAS)
        output = self.wine([os.path.join(build, "two.exe"), windows_path(vectors_file()),
                            "aesni_avx", expect_bb], AA_AESGEN_ISA="aesni_avx",
                           AESGEN_ISA="generic")
        self.assert_kat(output, "aa_kat", "aesni_avx")
        self.assert_kat(output, "bb_kat", expect_bb)

    def test_prefixed_objects_define_only_prefixed_globals(self):
        for prefix, out in (("aa_", self.aa), ("bb_", self.bb)):
            objects = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(out, "obj"))
                       for f in fs if f.endswith((".o", ".obj"))]
            self.assertGreater(len([o for o in objects if o.endswith(".obj")]), 15)
            for obj in objects:
                names = [line.split()[-1] for line in
                         run([NM, "--defined-only", "--extern-only", obj]).splitlines()
                         if len(line.split()) == 3]
                for name in names:
                    # GCC's .refptr.NAME (the address of an external NAME) and PE's
                    # .weak.NAME.DEFAULT (a weak reference) are helpers named after NAME
                    name = re.sub(r"^\.(refptr|weak)\.", "", name)
                    self.assertTrue(name.startswith(prefix), f"{obj}: {name}")

    def test_dll_exports_only_the_users_entry(self):
        for kind in ("export", "auto"):
            with self.subTest(dll=kind):
                # "auto": no dllexport anywhere, so GNU ld exports automatically; kat.c's
                # kat_run in the table shows it did, the bundle's names must not be there.
                self.assertEqual(exports(os.path.join(self.full, kind, "bundle.dll")),
                                 ["kat_run"])

    def test_dll_exports_the_api_when_asked(self):
        self.assertEqual(exports(os.path.join(self.full, "api", "bundle.dll")),
                         ["aesgen_strerror", "aesgen_version", "aesgen_wipe"])

    def test_dll_runs(self):
        expect = expected_isa(ISAS)
        output = self.wine([os.path.join(self.full, "export", "kat_dll.exe"),
                            windows_path(vectors_file()), expect])
        self.assert_kat(output, "kat_run", expect)


if __name__ == "__main__":
    unittest.main()
