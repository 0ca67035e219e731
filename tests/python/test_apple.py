# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The Mach-O (macOS) flavour of every generated file, as the vendored bundle ships it
(`vendor --prefix aa_`, the -apple.S files): it assembles with
`clang -target x86_64-apple-macos11 -c`, its instructions are the ELF object's (the same
disassembly at the same offsets; RIP-relative displacements, which are relocations in
one format and assembled in the other, compare as "rip"), and its symbols are exactly
the ELF object's global functions, each as a private external `_aa_<name>`.  Every
assembly file of the bundle assembles to nothing for arm64 (Linux and macOS).

The ELF objects are the library's ($AESGEN_BUILD/obj/gen/<isa>/<mode>.o, built from
gen/ by `make lib`); the bundle takes gen/'s knobs from gen/manifest.json
(test_gen_files checks gen/ is fresh).  Needs clang and llvm-objdump-19 /
llvm-nm-19 (tests/tools.sh installs them).
"""

import concurrent.futures
import json
import os
import re
import struct
import subprocess
import tempfile
import unittest

from repo import BUILD, REPO, have

from generator.modes import generated_pairs

OBJDUMP, NM = "llvm-objdump-19", "llvm-nm-19"
APPLE_TARGET = "x86_64-apple-macos11"
MH_MAGIC_64, CPU_TYPE_X86_64 = 0xFEEDFACF, 0x01000007   # <mach-o/loader.h>, <mach/machine.h>


def run(argv):
    result = subprocess.run(argv, capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} exited {result.returncode}:\n{result.stderr[-3000:]}")
    return result.stdout


RIP = re.compile(r"(-?(0x[0-9a-f]+|\d+))?\(%rip\)")


def instructions(obj):
    """[(offset, instruction text)] of the object's code section, format-neutral."""
    out = []
    for line in run([OBJDUMP, "-d", "--no-show-raw-insn", obj]).splitlines():
        match = re.match(r"^\s*([0-9a-f]+):\s+(.*)$", line)
        if not match:
            continue
        text = re.split(r"\s+#", match.group(2))[0]          # drop "# 0x40 <sym+0x40>"
        text = re.sub(r"\s*<[^>]*>", "", text)                # drop "<sym+0x1a>"
        text = RIP.sub("rip", text)
        out.append((int(match.group(1), 16), " ".join(text.split())))
    return out


def elf_globals(obj):
    names = set()
    for line in run([NM, "--defined-only", "--extern-only", obj]).splitlines():
        fields = line.split()
        if len(fields) == 3:
            names.add(fields[2])
    return names


def macho_symbols(obj):
    """{name: description} of the defined symbols, e.g. 'private external'."""
    symbols = {}
    for line in run([NM, "-m", "--defined-only", obj]).splitlines():
        match = re.match(r"^[0-9a-f]+ \(([^)]*)\) (.*) (\S+)$", line)
        if match:
            symbols[match.group(3)] = (match.group(1), match.group(2))
    return symbols


@unittest.skipUnless(have("clang") and have(OBJDUMP) and have(NM),
                     "clang, llvm-objdump-19 or llvm-nm-19 missing (tests/tools.sh installs them)")
class AppleFlavour(unittest.TestCase):
    """The -apple.S files of the vendored bundle with --prefix aa_ (tests/python/
    vendor_bundles.py), the Apple text of every generated file: each against the library's
    ELF object of gen/, and every assembly file of the bundle for arm64."""

    @classmethod
    def setUpClass(cls):
        from vendor_bundles import bundle
        cls.directory, files = bundle("aa")
        cls.manifest = json.loads(files["manifest.json"])
        cls.work = tempfile.TemporaryDirectory(prefix="aesgen-apple-")

    @classmethod
    def tearDownClass(cls):
        cls.work.cleanup()

    @staticmethod
    def assemble(jobs):
        """Runs the [argv] two at a time."""
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            list(pool.map(run, jobs))

    def test_every_generated_file(self):
        jobs, checks = [], []
        for entry in self.manifest["generated"]:
            elf = os.path.join(BUILD, "obj", "gen", entry["isa"], f"{entry['mode']}.o")
            source = os.path.join(self.directory, entry["files"]["apple"])
            obj = os.path.join(self.work.name, os.path.basename(source)[:-2] + ".o")
            jobs.append(["clang", "-target", APPLE_TARGET, "-c", "-o", obj, source])
            checks.append((entry, source, obj, elf))
        self.assertEqual(len(checks), len(generated_pairs()))
        self.assemble(jobs)
        for entry, source, obj, elf in checks:
            with self.subTest(file=os.path.basename(source)):
                self.assertTrue(os.path.exists(elf), f"{elf} missing: run `make lib`")
                self.check_one(entry, source, obj, elf)

    def check_one(self, entry, source, obj, elf):
        with open(source, encoding="utf-8") as f:
            text = f.read()
        with open(obj, "rb") as f:
            magic, cputype = struct.unpack("<II", f.read(8))
        self.assertEqual((magic, cputype), (MH_MAGIC_64, CPU_TYPE_X86_64), "not a Mach-O x86-64 object")

        ours, theirs = instructions(obj), instructions(elf)
        self.assertGreater(len(theirs), 100)
        self.assertEqual(len(ours), len(theirs), "instruction counts differ")
        for a, b in zip(ours, theirs):
            if a != b:
                self.fail(f"first difference: Mach-O {a} vs ELF {b}")

        # exactly the ELF object's global functions, prefixed, as the manifest names them
        symbols = macho_symbols(obj)
        expected = {"_aa_" + name for name in elf_globals(elf)}
        self.assertEqual(set(symbols), expected)
        self.assertEqual(expected, {"_" + f["linker_symbol"] for f in entry["functions"]})
        for name, (section, kind) in symbols.items():
            self.assertEqual((section, kind), ("__TEXT,__text", "private external"), name)
        self.assertNotIn(".note", text)
        self.assertNotRegex(text, r"(?m)^\s*\.L|\.type|\.size")

    def test_nothing_on_arm64(self):
        """Every assembly file of the bundle assembles to nothing for arm64 (Linux: only
        the GNU-stack note, so the stack stays non-executable)."""
        jobs, objects = [], []
        for entry in self.manifest["generated"]:
            for os_name, target in (("linux", "aarch64-linux-gnu"),
                                    ("apple", "arm64-apple-macos11")):
                source = os.path.join(self.directory, entry["files"][os_name])
                obj = os.path.join(self.work.name, f"arm64-{os.path.basename(source)}.o")
                jobs.append(["clang", "-target", target, "-c", "-o", obj, source])
                objects.append((os_name, obj))
        self.assertEqual(len(objects), 2 * len(generated_pairs()))
        self.assemble(jobs)
        for os_name, obj in objects:
            with self.subTest(obj=os.path.basename(obj)):
                self.assertEqual(run([NM, "--defined-only", "--extern-only", obj]).strip(), "")
                self.assertEqual(instructions(obj), [])
                if os_name == "linux":
                    self.assertIn(".note.GNU-stack", run([OBJDUMP, "-h", obj]))


class AppleCommandLine(unittest.TestCase):
    def show(self, *args):
        return subprocess.run(["python3", "-m", "generator", "show", "--isa", "avx10_256",
                               "--mode", "xctr", *args], capture_output=True, text=True, cwd=REPO)

    def test_show_prints_the_apple_flavour(self):
        result = self.show("--os", "apple")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("\t.private_extern\t_aesgen_xctr_crypt_avx10_256\n", result.stdout)
        self.assertIn("_aesgen_xctr_crypt_avx10_256:\n", result.stdout)

    def test_apple_is_a_gnu_as_flavour_only(self):
        result = self.show("--os", "apple", "--syntax", "asm")
        self.assertEqual(result.returncode, 2)
        self.assertIn("--os apple is a GNU as (.S) flavour; valid with --syntax S", result.stderr)

    def test_unknown_os_names_the_valid_ones(self):
        result = self.show("--os", "plan9")
        self.assertEqual(result.returncode, 2)
        self.assertIn("'plan9'", result.stderr)
        self.assertIn("linux", result.stderr)
        self.assertIn("apple", result.stderr)


if __name__ == "__main__":
    unittest.main()
