# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The committed gen/ files: fresh, twins byte-identical, ELF hygiene, knob variants correct.

Needs gcc (cc), nasm and binutils (objcopy, readelf); tests/tools.sh installs them.
"""

import json
import os
import re
import shlex
import subprocess
import tempfile
import unittest

from repo import GEN, REPO, have
from generator.abi import SYSV
from generator.isa import ISAS, get_isa
from generator.knobs import parse_assignment, resolve
from generator.modes import MODES, get_mode
from generator import manifest
from generator.render import build, generate
from generator.vregs import DoesNotFit, RegisterBudgetError

ENDBR64 = bytes.fromhex("f30f1efa")



def manifest_entries():
    """gen/manifest.json's entries: every generated file, its knobs, functions, loops."""
    with open(os.path.join(GEN, "manifest.json"), encoding="utf-8") as handle:
        return json.load(handle)["generated"]


def entry(isa, mode):
    return next(e for e in manifest_entries() if (e["isa"], e["mode"]) == (isa, mode))


def gen_path(isa, mode, ext):
    return os.path.join(GEN, isa, f"{mode}.{ext}")


def regenerate_knobs(path):
    """The knob assignments of the `regenerate:` command in a file's header."""
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            match = re.match(r"[#;] regenerate: python3 -m generator gen (.*)$", line)
            if match:
                words = shlex.split(match.group(1))
                return dict(parse_assignment(w) for w in words if "=" in w)
    raise AssertionError(f"{path}: no regenerate command in the header")


def run(*cmd, cwd=None):
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed:\n{result.stdout}{result.stderr}")
    return result.stdout


def assemble_pair(directory, isa, mode, out):
    """Assemble both twins; return the two object paths."""
    gas = os.path.join(out, f"{isa}-{mode}.gas.o")
    nasm = os.path.join(out, f"{isa}-{mode}.nasm.o")
    run("cc", "-c", "-Wa,--noexecstack", "-o", gas, os.path.join(directory, isa, f"{mode}.S"))
    run("nasm", "-f", "elf64", "-o", nasm, os.path.join(directory, isa, f"{mode}.asm"))
    return gas, nasm


def section_bytes(obj, section, out):
    dump = obj + section.replace(".", "_") + ".bin"
    run("objcopy", "-O", "binary", "-j", section, obj, dump)
    with open(dump, "rb") as handle:
        return handle.read()


def write_variant(directory, assignments):
    """Generate every file with these knobs; an ISA whose register file cannot hold them
    gets its defaults (so the checker still links)."""
    for isa in ISAS.values():
        for mode in MODES.values():
            knobs = {k: v for k, v in assignments.items() if k in mode.knobs}
            try:
                texts = generate(mode, isa, resolve(mode, isa, knobs), SYSV)
            except DoesNotFit:
                texts = generate(mode, isa, resolve(mode, isa, {}), SYSV)
            for ext, text in texts.items():
                os.makedirs(os.path.join(directory, isa.name), exist_ok=True)
                with open(os.path.join(directory, isa.name, f"{mode.name}.{ext}"), "w") as f:
                    f.write(text)


class Freshness(unittest.TestCase):
    def test_every_file_exists(self):
        listed = {(e["isa"], e["mode"]) for e in manifest_entries()}
        self.assertEqual(listed, {(i, m) for i in ISAS for m in MODES},
                         "gen/manifest.json must list every ISA x mode: run make gen")
        for isa in ISAS:
            for mode in MODES:
                for ext in ("S", "asm"):
                    self.assertTrue(os.path.exists(gen_path(isa, mode, ext)),
                                    f"missing {gen_path(isa, mode, ext)}: run make gen")

    def test_regenerating_changes_nothing(self):
        """Every file from the knobs the manifest records (which its header's regenerate
        command repeats), and then the manifest and gen/aesgen_gen.h from those files."""
        entries = []
        for recorded in manifest_entries():
            isa, mode = recorded["isa"], recorded["mode"]
            path = gen_path(isa, mode, "S")
            mode_obj, isa_obj = get_mode(mode), get_isa(isa)
            knobs = resolve(mode_obj, isa_obj, recorded["knobs"])
            self.assertEqual(knobs, resolve(mode_obj, isa_obj, regenerate_knobs(path)),
                             f"gen/{isa}/{mode}.S: its header's knobs are not the manifest's")
            output = build(mode_obj, isa_obj, knobs, SYSV)
            for ext, text in output.texts.items():
                with open(gen_path(isa, mode, ext), encoding="utf-8") as handle:
                    self.assertEqual(handle.read(), text,
                                     f"gen/{isa}/{mode}.{ext} is stale: run make gen "
                                     f"(see the regenerate line in its header)")
            entries.append(manifest.file_entry(mode_obj, isa_obj, knobs, SYSV, output))
        for name, text in manifest.outputs(entries).items():
            with open(os.path.join(GEN, name), encoding="utf-8") as handle:
                self.assertEqual(handle.read(), text, f"gen/{name} is stale: run make gen")


@unittest.skipUnless(have("nasm") and have("objcopy") and have("cc"), "needs nasm, objcopy, cc")
class Twins(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_gas_and_nasm_assemble_to_the_same_text(self):
        for isa in ISAS:
            for mode in MODES:
                with self.subTest(isa=isa, mode=mode):
                    gas, nasm = assemble_pair(GEN, isa, mode, self.tmp.name)
                    text = section_bytes(gas, ".text", self.tmp.name)
                    self.assertGreater(len(text), 500)
                    self.assertEqual(text, section_bytes(nasm, ".text", self.tmp.name))
                    self.assertEqual(section_bytes(gas, ".rodata", self.tmp.name),
                                     section_bytes(nasm, ".rodata", self.tmp.name))

    def test_elf_notes_and_entry(self):
        for isa in ISAS:
            for mode in MODES:
                with self.subTest(isa=isa, mode=mode):
                    for obj in assemble_pair(GEN, isa, mode, self.tmp.name):
                        notes = run("readelf", "-n", obj)
                        self.assertIn("IBT, SHSTK", notes, obj)
                        sections = run("readelf", "-SW", obj)
                        self.assertIn(".note.GNU-stack", sections)
                        self.assertNotRegex(sections, r"\.note\.GNU-stack\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S*X")
                        symbols = run("readelf", "-sW", obj)
                        for function in entry(isa, mode)["functions"]:
                            self.assertRegex(symbols, rf"FUNC\s+GLOBAL\s+HIDDEN\s+\d+\s+"
                                                      rf"{function['symbol']}\n")
                    text = section_bytes(obj, ".text", self.tmp.name)
                    self.assertEqual(text[:4], ENDBR64)

    def test_gas_output_has_cfi(self):
        for isa in ISAS:
            for mode in MODES:
                gas, _ = assemble_pair(GEN, isa, mode, self.tmp.name)
                self.assertIn(".eh_frame", run("readelf", "-SW", gas))

    def test_mca_markers_in_both_twins(self):
        for isa in ISAS:
            for mode in MODES:
                with open(gen_path(isa, mode, "S")) as gas, open(gen_path(isa, mode, "asm")) as nasm:
                    gas_text, nasm_text = gas.read(), nasm.read()
                regions = entry(isa, mode)["mca_regions"]
                self.assertTrue(regions, f"{isa}/{mode}: no main loop in the manifest")
                for region in regions:
                    self.assertRegex(region["name"], rf"^{mode}_\w*{isa}_main_loop$")
                    self.assertRegex(gas_text, rf"# LLVM-MCA-BEGIN {region['name']}\n"
                                               r"(.*\n)+?# LLVM-MCA-END")
                    self.assertRegex(nasm_text, rf"; LLVM-MCA-BEGIN {region['name']}\n"
                                                r"(.*\n)+?; LLVM-MCA-END")

    def test_vzeroupper_before_every_ret(self):
        """Every return clears the upper state, except the xmm-only returns the source
        marks (their path writes no ymm/zmm register; the C ABI test checks XINUSE)."""
        for isa in ISAS:
            for mode in MODES:
                gas, _ = assemble_pair(GEN, isa, mode, self.tmp.name)
                listing = run("objdump", "-d", "--no-show-raw-insn", gas)
                instructions = re.findall(r"^\s+[0-9a-f]+:\s+(\S+)", listing, re.M)
                rets = [i for i, name in enumerate(instructions) if name == "ret"]
                self.assertTrue(rets)
                before = []
                for i in rets:   # skip the stack frame release and register restores
                    j = i - 1
                    while instructions[j] in ("add", "pop"):
                        j -= 1
                    before.append(instructions[j])
                with open(gen_path(isa, mode, "S")) as handle:
                    marked = handle.read().count("only xmm registers were written on this path")
                self.assertEqual(before.count("vzeroupper"), len(rets) - marked, f"{isa} {mode}")
                self.assertTrue(all(b in ("vzeroupper", "xor") for b in before), before)


VARIANTS = [
    {"UNROLL": 1},
    {"UNROLL": 2},
    {"UNROLL": 4, "TAIL": 1},
    {"UNROLL": 8, "TAIL": 2},
    {"UNROLL": 8, "TAIL": 8, "KEYS": "mem"},
    {"UNROLL": 16, "KEYS": "mem"},
    {"UNROLL": 2, "KEYS": "mem"},
    {"GHASH": "school"},
]


@unittest.skipUnless(have("nasm") and have("objcopy") and have("cc"), "needs nasm, objcopy, cc")
class KnobVariants(unittest.TestCase):
    """Non-default knobs must be as correct as the defaults: twins and an OpenSSL check."""

    def test_variants(self):
        for assignments in VARIANTS:
            with self.subTest(**assignments), tempfile.TemporaryDirectory() as tmp:
                write_variant(tmp, assignments)
                objects = []
                for isa in ISAS:
                    for mode in MODES:
                        gas, nasm = assemble_pair(tmp, isa, mode, tmp)
                        self.assertEqual(section_bytes(gas, ".text", tmp),
                                         section_bytes(nasm, ".text", tmp))
                        objects.append(gas)
                checker = os.path.join(tmp, "variant_check")
                run("cc", "-O1", "-std=c11", "-o", checker,
                    os.path.join(REPO, "tests", "c", "variant_check.c"), *objects, "-lcrypto")
                output = run(checker)
                self.assertRegex(output, r"(^|\n)[1-9]\d* passed, 0 failed\n$", output)


if __name__ == "__main__":
    unittest.main()
