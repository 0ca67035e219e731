# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The committed gen/ files: fresh, twins byte-identical, ELF hygiene, knob variants correct.

Needs gcc (cc), nasm and binutils (objcopy, readelf); tests/tools.sh installs them.
"""

import concurrent.futures
import json
import os
import re
import shlex
import struct
import subprocess
import tempfile
import unittest

from repo import GEN, REPO, have, host_runs
from generator.abi import SYSV
from generator.isa import ISAS, get_isa
from generator.knobs import KNOBS, knobs_of, parse_assignment, resolve
from generator.errors import UsageError
from generator.modes import MODES, generated_pairs, get_mode
from generator import manifest
from generator.plan import combinations, fits, make_plan
from generator.render import build, generate

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


class Freshness(unittest.TestCase):
    def test_every_file_exists(self):
        listed = {(e["isa"], e["mode"]) for e in manifest_entries()}
        self.assertEqual(listed, {(i, m) for i in ISAS for m in MODES if m in ISAS[i].modes},
                         "gen/manifest.json must list every ISA x mode it has: run make gen")
        for isa in ISAS:
            for mode in MODES:
                if mode not in ISAS[isa].modes:
                    continue            # vperm_ssse3 has fewer modes
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


def function_sizes(obj):
    """{name: size} of an object's function symbols (readelf)."""
    sizes = {}
    for line in run("readelf", "-sW", obj).splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[3] == "FUNC":
            sizes[fields[7]] = int(fields[2])
    return sizes


def unwind_rows(obj):
    """readelf's decoded .eh_frame of an object (CIE and FDEs with their rows), the
    entries' lengths taken out."""
    rows = []
    for line in run("readelf", "--debug-dump=frames-interp", obj).splitlines():
        header = re.match(r"^([0-9a-f]{8}) ([0-9a-f]{16}) ([0-9a-f]{8}) (CIE|FDE)(.*)$", line)
        if header:
            line = f"{header.group(4)}{header.group(5)}"
            line = re.sub(r"cie=[0-9a-f]+", "cie", line)
        rows.append(line)
    return "\n".join(rows)


def count_aliases(isa, mode):
    """Functions that are a second name of another (same_code_as): no FDE of their own."""
    return sum(1 for f in entry(isa, mode)["functions"] if f.get("same_code_as"))


@unittest.skipUnless(have("nasm") and have("objcopy") and have("cc"), "needs nasm, objcopy, cc")
class Twins(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_gas_and_nasm_assemble_to_the_same_text(self):
        for isa in ISAS:
            for mode in MODES:
                if mode not in ISAS[isa].modes:
                    continue            # vperm_ssse3 has fewer modes
                with self.subTest(isa=isa, mode=mode):
                    gas, nasm = assemble_pair(GEN, isa, mode, self.tmp.name)
                    text = section_bytes(gas, ".text", self.tmp.name)
                    self.assertGreater(len(text), 500)
                    self.assertEqual(text, section_bytes(nasm, ".text", self.tmp.name))
                    self.assertEqual(section_bytes(gas, ".rodata", self.tmp.name),
                                     section_bytes(nasm, ".rodata", self.tmp.name))
                    # and the same function symbols with the same sizes (NASM's measured
                    # to an end label, GNU as's by .size)
                    self.assertEqual(function_sizes(nasm), function_sizes(gas))
                    self.assertTrue(all(size > 0 for size in function_sizes(gas).values()))

    def test_elf_notes_and_entry(self):
        for isa in ISAS:
            for mode in MODES:
                if mode not in ISAS[isa].modes:
                    continue            # vperm_ssse3 has fewer modes
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

    def test_both_twins_have_the_same_unwind_rows(self):
        """GNU as makes .eh_frame from the .S file's CFI directives, the NASM printer
        writes it (NASM has none): the same rows (the CFA and each saved register at
        every code offset) and the same FDE ranges; only the FDEs' lengths may differ
        (NASM's advances are all 4-byte).  test_code_paths checks GNU as's rows against
        the code."""
        for isa in ISAS:
            for mode in MODES:
                if mode not in ISAS[isa].modes:
                    continue            # vperm_ssse3 has fewer modes
                with self.subTest(isa=isa, mode=mode):
                    gas, nasm = assemble_pair(GEN, isa, mode, self.tmp.name)
                    gas_rows, nasm_rows = unwind_rows(gas), unwind_rows(nasm)
                    self.assertEqual(len(re.findall(r"^FDE ", gas_rows, re.M)),
                                     len(entry(isa, mode)["functions"])
                                     - count_aliases(isa, mode))
                    self.assertEqual(nasm_rows, gas_rows)
                    self.assertIn(".rela.eh_frame", run("readelf", "-rW", nasm),
                                  "the FDEs' starts are relocated")

    def test_xmm_saves_have_the_same_unwind_rows(self):
        """gen/ is System V, which saves no xmm register, so the NASM printer's
        .cfi_savexmm rows (DW_CFA_offset of xmm6-xmm15) are reached only with the Win64
        ABI on ELF (`gen --abi win64`, `show --abi win64 --syntax asm`): both twins of
        each ISA x mode rendered so (its functions save xmm6 and up): the same rows."""
        from generator.abi import WIN64
        for isa, mode in generated_pairs():
            with self.subTest(isa=isa.name, mode=mode.name):
                texts = generate(mode, isa, resolve(mode, isa, {}), WIN64,
                                 with_variants=False)
                paths = {}
                for ext, text in texts.items():
                    paths[ext] = os.path.join(self.tmp.name, f"w-{isa.name}-{mode.name}.{ext}")
                    with open(paths[ext], "w", encoding="utf-8") as handle:
                        handle.write(text)
                gas, nasm = paths["S"] + ".o", paths["asm"] + ".o"
                run("cc", "-c", "-Wa,--noexecstack", "-o", gas, paths["S"])
                run("nasm", "-f", "elf64", "-o", nasm, paths["asm"])
                gas_rows = unwind_rows(gas)
                self.assertRegex(gas_rows, r"xmm6 +xmm7 ")      # saves to compare
                self.assertEqual(unwind_rows(nasm), gas_rows)

    def test_mca_markers_in_both_twins(self):
        for isa in ISAS:
            for mode in MODES:
                if mode not in ISAS[isa].modes:
                    continue            # vperm_ssse3 has fewer modes
                with open(gen_path(isa, mode, "S")) as gas, open(gen_path(isa, mode, "asm")) as nasm:
                    gas_text, nasm_text = gas.read(), nasm.read()
                regions = entry(isa, mode)["mca_regions"]
                self.assertTrue(regions, f"{isa}/{mode}: no main loop in the manifest")
                for region in regions:
                    # a uarch variant's region: its name, then _<the variant>
                    self.assertRegex(region["name"], rf"^{mode}_\w*{isa}_main_loop"
                                                     rf"(_{region['variant']})?$")
                    self.assertRegex(gas_text, rf"# LLVM-MCA-BEGIN {region['name']}\n"
                                               r"(.*\n)+?# LLVM-MCA-END")
                    self.assertRegex(nasm_text, rf"; LLVM-MCA-BEGIN {region['name']}\n"
                                                r"(.*\n)+?; LLVM-MCA-END")

    def test_vzeroupper_before_every_ret(self):
        """Every return clears the upper state, except the xmm-only returns the source
        marks (their path writes no ymm/zmm register; the C ABI test checks XINUSE)."""
        for isa in ISAS:
            for mode in MODES:
                if mode not in ISAS[isa].modes:
                    continue            # vperm_ssse3 has fewer modes
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
                # legacy-SSE code (vperm_ssse3) has no upper state and may lack AVX
                clears = 0 if ISAS[isa].legacy_sse else len(rets) - marked
                self.assertEqual(before.count("vzeroupper"), clears, f"{isa} {mode}")
                self.assertTrue(all(b in ("vzeroupper", "xor") for b in before), before)


def header_commands(path):
    """The header's `regenerate:` (python) and `(or: make gen ...)` commands, as argv."""
    python = make = None
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            match = re.match(r"# regenerate: (python3 -m generator gen .*)$", line)
            python = shlex.split(match.group(1)) if match else python
            match = re.match(r"#\s+\(or: (make gen .*)\)$", line)
            make = shlex.split(match.group(1)) if match else make
    if not python or not make:
        raise AssertionError(f"{path}: no regenerate commands in the header")
    return python, make


# A knob whose every other value needs another knob changed with it.
COMPANIONS = {"HALVES": {"GHASH": "karatsuba"}}     # the pairs of Karatsuba's half sums


def knob_cases():
    """Per knob, one (mode, ISA, {knob: non-default value, its companions}) that fits; and
    all of GCM's knobs changed at once."""
    for name, knob in KNOBS.items():
        found = None
        for mode in MODES.values():
            for isa in ISAS.values():
                if mode.name not in isa.modes:
                    continue            # vperm_ssse3 has fewer modes
                if found or name not in knobs_of(mode, isa):
                    continue
                default = resolve(mode, isa, {})[name]
                for value in knob.values:
                    assignments = {**COMPANIONS.get(name, {}), name: value}
                    try:
                        knobs = resolve(mode, isa, assignments)
                    except UsageError:      # e.g. TAIL=4 where the default UNROLL is 2
                        continue
                    if value != default and fits(mode, isa, knobs):
                        found = (mode, isa, assignments)
                        break
        yield found
    yield get_mode("gcm"), get_isa("avx10_512"), {"UNROLL": 2, "KEYS": "mem", "TAIL": 1,
                                                  "GHASH": "karatsuba", "HALVES": "unpack"}


# Facts each mode's design header must state before the first instruction (issue 10:
# the explanations reach gen/): the counter forms, the tweak step, GHASH's math.
# vperm_ssse3 (templates/vperm/): its counters and the vector-permute round's math.
VPERM_DESIGN_FACTS = {
    "ctr": ["Counter forms", "paddq", "big-endian", "GF(2^4)", "ShiftRows"],
    "xctr": ["Counter form", "little-endian", "GF(2^4)", "ShiftRows"],
    "xts": ["The tweak step", "0x87", "x^j", "GF(2^4)", "InvMixColumns"],
}
DESIGN_FACTS = {
    "ctr": ["Counter forms", "vpaddq", "big-endian"],
    "xctr": ["Counter form", "little-endian", "IVK = (iv ^ round key 0)"],
    "xts": ["The tweak step", "0x87", "x^k", "Several tweaks per vector"],
    "gcm": ["The representation", "byte-reflected", "Karatsuba", "times x^-1",
            "0xc2 << 56", "inc32", "Data layout"],
}


class ReadsLikeHandWrittenAssembly(unittest.TestCase):
    """The templates' explanations reach gen/: a design header before any code, and
    comments inside the code (every main loop among them)."""

    def test_design_header_before_code(self):
        for isa in ISAS:
            for mode in MODES:
                if mode not in ISAS[isa].modes:
                    continue            # vperm_ssse3 has fewer modes
                with self.subTest(isa=isa, mode=mode), open(gen_path(isa, mode, "S")) as f:
                    text = f.read()
                    header = text[:text.index("\t.text")]
                    for fact in (VPERM_DESIGN_FACTS if ISAS[isa].vperm else DESIGN_FACTS)[mode]:
                        self.assertIn(fact, header, f"{isa}/{mode}: the header lacks {fact!r}")

    def test_code_is_commented(self):
        for isa in ISAS:
            for mode in MODES:
                if mode not in ISAS[isa].modes:
                    continue            # vperm_ssse3 has fewer modes
                with self.subTest(isa=isa, mode=mode), open(gen_path(isa, mode, "S")) as f:
                    # the file's own functions and data (a uarch variant's functions after
                    # them are the same template with other knobs: UNROLL=16 is mostly rounds)
                    own = f.read()
                    for variant in entry(isa, mode)["variants"]:
                        first = own.find(f"_{variant['name']}(")     # its first prototype
                        if first >= 0:
                            own = own[:own.rfind("\n", 0, first)]
                    lines = [line for line in own.splitlines() if line.strip()]
                    code = [line for line in lines if not line.startswith("#")]
                    commented = [line for line in lines if "#" in line]
                    # 2.7% of avx10_512/gcm.S before the comments reached gen/
                    self.assertGreater(len(commented) / len(lines), 0.10)
                    loops = "\n".join(lines).split("# LLVM-MCA-BEGIN")[1:]
                    self.assertTrue(loops)
                    for region in loops:
                        body = region.split("# LLVM-MCA-END")[0].splitlines()[1:]
                        self.assertTrue(any("#" in line for line in body),
                                        f"{isa}/{mode}: a main loop without comments")
                    self.assertTrue(code)


@unittest.skipUnless(have("make"), "needs make")
class MakeGenForwardsEveryKnob(unittest.TestCase):
    """`make gen KNOB=value` writes the file the generator writes for that knob, and the
    two commands the file's header prints (python and make) regenerate it unchanged.
    Everything goes to temporary directories (GEN_OUT / --out), never gen/."""

    def test_each_knob(self):
        for mode, isa, assignments in knob_cases():
            words = [f"{k}={v}" for k, v in sorted(assignments.items())]
            with self.subTest(mode=mode.name, isa=isa.name, knobs=" ".join(words)), \
                    tempfile.TemporaryDirectory() as tmp:
                first = os.path.join(tmp, "make")
                run("make", "-s", "-C", REPO, "gen", f"ISA={isa.name}", f"MODE={mode.name}",
                    *words, f"GEN_OUT={first}")
                path = os.path.join(first, isa.name, f"{mode.name}.S")
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
                knobs = resolve(mode, isa, assignments)
                self.assertEqual(re.search(r"^# knobs: (.*)$", text, re.M).group(1),
                                 " ".join(f"{k}={v}" for k, v in sorted(knobs.items())))
                self.assertEqual(regenerate_knobs(path), knobs)
                python, make = header_commands(path)
                again = os.path.join(tmp, "python")
                run(*python, "--out", again, cwd=REPO)
                run(make[0], "-s", "-C", REPO, *make[1:], f"GEN_OUT={os.path.join(tmp, 'again')}")
                for other in (again, os.path.join(tmp, "again")):
                    for ext in ("S", "asm"):
                        with open(os.path.join(other, isa.name, f"{mode.name}.{ext}"),
                                  encoding="utf-8") as handle, \
                                open(os.path.join(first, isa.name, f"{mode.name}.{ext}"),
                                     encoding="utf-8") as want:
                            self.assertEqual(handle.read(), want.read(), f"{other} .{ext}")


# The field of tests/c/variant_check.c's struct variant, and its C type, per generated
# function (the symbol's base name, see generator/plan.py).
VARIANT_FIELDS = {
    "ctr_crypt": ("ctr", "aesgen_ctr_fn"),
    "ctr_crypt_iv": ("ctr_iv", "aesgen_ctr_iv_fn"),
    "xctr_crypt": ("xctr", "aesgen_xctr_fn"),
    "xts_encrypt": ("xts_encrypt", "aesgen_xts_fn"),
    "xts_decrypt": ("xts_decrypt", "aesgen_xts_fn"),
    "gcm_ghash": ("ghash", "aesgen_gcm_ghash_fn"),
    "gcm_enc_update": ("gcm_enc", "aesgen_gcm_update_fn"),
    "gcm_dec_update": ("gcm_dec", "aesgen_gcm_update_fn"),
    "gcm_enc_record": ("gcm_enc_record", "aesgen_gcm_record_fn"),
    "gcm_dec_record": ("gcm_dec_record", "aesgen_gcm_record_fn"),
}


def accepted_variants():
    """Every (mode, ISA, knobs) whose plan fits: all that `gen` accepts."""
    for isa, mode in generated_pairs():
        for knobs in combinations(mode, isa):
            if fits(mode, isa, knobs):
                yield mode, isa, knobs


def elf_section(path, name):
    """The bytes of section `name` of an ELF64 object (relocations not applied, as
    objcopy -O binary would give them)."""
    with open(path, "rb") as handle:
        data = handle.read()
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
               for i in range(shnum)]
    names = headers[shstrndx][4]
    for header in headers:
        start = names + header[0]
        if data[start:data.index(b"\0", start)].decode() == name:
            return data[header[4]:header[4] + header[5]]
    raise AssertionError(f"{path}: no section {name}")


def write_variant_table(path, entries):
    """tests/c/variant_check.c's table for entries [(prefix, mode, isa, knobs, plan)]."""
    lines = ["/* Written by tests/python/test_gen_files.py: the knob variants of one batch. */"]
    rows = []
    for prefix, mode, isa, knobs, plan in entries:
        fields = {}
        for function in plan.functions.values():
            field, ctype = VARIANT_FIELDS[function.base]
            symbol = f"{prefix}aesgen_{function.base}_{isa.name}"
            lines.append(f"{ctype} {symbol};")
            fields[field] = symbol
        name = f"{mode.name} {isa.name} " + " ".join(f"{k}={v}" for k, v in sorted(knobs.items()))
        rows.append(f'    {{"{name}", ISA_{isa.name.upper()}, '
                    + ", ".join(f".{field} = {symbol}" for field, symbol in fields.items())
                    + "},")
    lines += ["static const struct variant variants[] = {", *rows, "};", ""]
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines))


@unittest.skipUnless(have("nasm") and have("cc"), "needs nasm, cc")
class EveryKnobCombination(unittest.TestCase):
    """Every knob combination the generator accepts (each mode x ISA x knob set whose
    plan fits) is correct, not just the defaults: its twins assemble to the same bytes,
    and tests/c/variant_check.c runs every function of it against OpenSSL.  One program
    checks all of them: each variant's symbols carry a prefix of their own."""

    def test_every_accepted_combination(self):
        with tempfile.TemporaryDirectory() as tmp:
            entries, objects, jobs = [], [], []
            # rendering and assembling in worker processes: the two cores share the
            # Python work too (about 2000 sets)
            with concurrent.futures.ProcessPoolExecutor(max_workers=2) as pool:
                for number, (mode, isa, knobs) in enumerate(accepted_variants()):
                    prefix = f"v{number}_"
                    base = os.path.join(tmp, f"v{number}")
                    entries.append((prefix, mode, isa, knobs, make_plan(mode, isa, knobs)))
                    objects.append(f"{base}.gas.o")
                    jobs.append((entries[-1][:4], base, pool.submit(
                        build_variant, mode.name, isa.name, knobs, prefix, base)))
                for (prefix, mode, isa, knobs), base, job in jobs:
                    job.result()
                    with self.subTest(mode=mode.name, isa=isa.name, **knobs):
                        for section in (".text", ".rodata"):
                            self.assertEqual(elf_section(f"{base}.gas.o", section),
                                             elf_section(f"{base}.nasm.o", section),
                                             f"{section} of the twins")
            self.assertGreater(len(entries), 250)
            table = os.path.join(tmp, "variants.h")
            write_variant_table(table, entries)
            checker = os.path.join(tmp, "variant_check")
            run("cc", "-O1", "-std=c11", "-Wall", "-Werror", f"-DVARIANTS=\"{table}\"",
                "-I" + os.path.join(REPO, "runtime", "include"),
                "-I" + os.path.join(REPO, "runtime", "src"), "-o", checker,
                os.path.join(REPO, "tests", "c", "variant_check.c"), *objects, "-lcrypto")
            # two shards side by side (variant i in shard i % 2), one per core
            shards = [subprocess.Popen([checker, str(i), "2"], stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, text=True) for i in (0, 1)]
            outputs = [shard.communicate()[0] for shard in shards]
            output = "".join(outputs)
            # the checker skips, by name, exactly the ISAs this CPU cannot run
            lacking = sorted({e[2].name for e in entries if not host_runs(e[2])})
            self.assertEqual(sorted(set(re.findall(r"^SKIP (\S+):", output, re.M))), lacking,
                             output[:3000])
            counts = []
            for text, shard in zip(outputs, shards):
                self.assertRegex(text, r"(^|\n)[1-9]\d* passed, 0 failed\n$", text[-3000:])
                self.assertEqual(shard.returncode, 0)
                counts.append(int(re.search(r"(\d+) passed, 0 failed\n$", text).group(1)))
            # one check per function group and key size: every variant it can run was run
            # (ctr: once per function, the twin from the counter block included)
            expected = sum(3 * len(e[4].functions) if e[1].name == "ctr"
                           else {"xctr": 3, "xts": 2, "gcm": 6}[e[1].name]
                           for e in entries if e[2].name not in lacking)
            self.assertEqual(sum(counts), expected)
            for name in lacking:
                with self.subTest(isa=name):
                    self.skipTest(f"{name}: this CPU lacks its features")


def build_variant(mode_name, isa_name, knobs, prefix, base):
    """One knob set alone (the uarch variants' sets are in the list too), its symbols
    prefixed, written and assembled by both assemblers (a worker process's job)."""
    texts = generate(get_mode(mode_name), get_isa(isa_name), knobs, SYSV, with_variants=False)
    for ext, text in texts.items():
        with open(f"{base}.{ext}", "w", encoding="utf-8") as handle:
            handle.write(text.replace("aesgen_", prefix + "aesgen_"))
    # as itself, not cc -c: the generated .S has no preprocessor lines (the build's
    # cc -c gives the same bytes), and about 2000 sets make the driver's cost count
    run("as", "--noexecstack", "-o", f"{base}.gas.o", f"{base}.S")
    run("nasm", "-f", "elf64", "-o", f"{base}.nasm.o", f"{base}.asm")


if __name__ == "__main__":
    unittest.main()
