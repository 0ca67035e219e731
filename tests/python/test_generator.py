# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Unit tests of the generator: knob validation, parser, printers, lints, CLI errors."""

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

from repo import GEN, REPO
from generator.errors import TemplateError, UsageError
from generator.features import instruction_features
from generator import layout
from generator.isa import ISAS, get_isa
from generator.knobs import parse_assignment, resolve
from generator.lint import check_functions, lint
from generator.modes import MODES, generated_pairs, get_mode
from generator.abi import SYSV, WIN64, Function
from generator.parse import parse, parse_line
from generator.printers.att import AttPrinter
from generator.printers.nasm import NasmPrinter
from generator.printers.win64 import Win64NasmPrinter
from generator import manifest, render
from generator.render import build, generate
from generator.plan import BITSLICE_COUNTER_FRAME, Refused
from generator.vregs import DoesNotFit


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "generator", *args], cwd=REPO,
                          capture_output=True, text=True)


class KnobValidation(unittest.TestCase):
    def test_good_assignment(self):
        self.assertEqual(parse_assignment("UNROLL=4"), ("UNROLL", 4))
        self.assertEqual(parse_assignment("keys=mem"), ("KEYS", "mem"))

    def test_unknown_knob_names_the_valid_ones(self):
        with self.assertRaises(UsageError) as caught:
            parse_assignment("UNROL=4")
        self.assertIn("UNROL", str(caught.exception))
        self.assertIn("UNROLL", str(caught.exception))

    def test_bad_value_names_the_valid_ones(self):
        for text in ("UNROLL=5", "UNROLL=x", "KEYS=cache", "UNROLL=32"):
            with self.assertRaises(UsageError) as caught:
                parse_assignment(text)
            self.assertIn("valid:", str(caught.exception))

    def test_missing_equals(self):
        with self.assertRaises(UsageError):
            parse_assignment("UNROLL")

    def test_defaults_depend_on_register_file(self):
        ctr = get_mode("ctr")
        self.assertEqual(resolve(ctr, get_isa("avx10_512"), {})["KEYS"], "reg")
        self.assertEqual(resolve(ctr, get_isa("aesni_avx"), {})["KEYS"], "mem")
        self.assertEqual(resolve(ctr, get_isa("aesni_avx"), {})["UNROLL"], 8)

    def test_ghash_default_and_refusal(self):
        gcm = get_mode("gcm")
        self.assertEqual(resolve(gcm, get_isa("avx10_512"), {})["GHASH"], "school")
        self.assertEqual(resolve(gcm, get_isa("vaes_avx2"), {})["GHASH"], "school")
        with self.assertRaises(UsageError):
            resolve(get_mode("ctr"), get_isa("avx10_512"), {"GHASH": "school"})
        vex = get_isa("vaes_avx2")
        with self.assertRaises(DoesNotFit):
            generate(gcm, vex, resolve(gcm, vex, {"GHASH": "karatsuba"}), SYSV)

    def test_tail_follows_small_unroll(self):
        knobs = resolve(get_mode("ctr"), get_isa("avx10_512"), {"UNROLL": 2})
        self.assertEqual(knobs["TAIL"], 2)
        with self.assertRaises(UsageError):
            resolve(get_mode("ctr"), get_isa("avx10_512"), {"UNROLL": 2, "TAIL": 4})

    def test_register_file_overflow_is_detected(self):
        mode, isa = get_mode("ctr"), get_isa("avx10_512")
        with self.assertRaisesRegex(Refused, "needs 33 vector registers, avx10_512 has 32"):
            generate(mode, isa, resolve(mode, isa, {"UNROLL": 16, "KEYS": "reg"}), SYSV)
        generate(mode, isa, resolve(mode, isa, {"UNROLL": 16, "KEYS": "mem"}), SYSV)
        vex = get_isa("vaes_avx2")
        with self.assertRaisesRegex(Refused, "vaes_avx2 has 16"):
            generate(mode, vex, resolve(mode, vex, {"KEYS": "reg"}), SYSV)


class CommandLine(unittest.TestCase):
    def assert_usage_error(self, result, *fragments):
        self.assertEqual(result.returncode, 2, result.stderr)
        for fragment in fragments:
            self.assertIn(fragment, result.stderr)

    def test_unknown_isa(self):
        self.assert_usage_error(run_cli("gen", "--check", "--isa", "avx9"), "avx9",
                                "valid: vperm_ssse3, aesni_avx, vaes_avx2, avx10_256, avx10_512")

    def test_unknown_mode(self):
        self.assert_usage_error(run_cli("gen", "--check", "--mode", "ofb"), "ofb",
                                "valid: ctr, xctr, xts, gcm")

    def test_bad_knob_value(self):
        self.assert_usage_error(run_cli("gen", "--check", "UNROLL=5"), "'5'",
                                "valid: 1, 2, 4, 8, 16; on vperm_ssse3: 1, 2, 3")

    def test_tweak_double_only_on_128_bit_vectors(self):
        result = run_cli("gen", "--check", "--isa", "vaes_avx2", "--mode", "xts", "TWEAK=double")
        self.assert_usage_error(result, "TWEAK=double is not a value of TWEAK on vaes_avx2 "
                                "(valid: clmul)", "or set TWEAK=clmul")
        self.assert_usage_error(run_cli("gen", "--check", "--mode", "ctr", "TWEAK=double"),
                                "knob TWEAK does not apply to mode ctr")

    def test_counter_forms_belong_to_their_mode(self):
        result = run_cli("gen", "--check", "--isa", "aesni_avx", "--mode", "ctr", "COUNTERS=chain")
        self.assert_usage_error(result, "COUNTERS=chain is not a counter form of ctr",
                                "or set COUNTERS=base")
        result = run_cli("gen", "--check", "--isa", "aesni_avx", "--mode", "xctr", "COUNTERS=gpr")
        self.assert_usage_error(result, "COUNTERS=gpr is not a counter form of xctr")

    def test_bulk_is_a_knob_of_vperm_ssse3_xts_only(self):
        result = run_cli("gen", "--check", "--isa", "aesni_avx", "--mode", "xts", "BULK=vperm")
        self.assert_usage_error(result, "knob BULK does not apply to mode xts on aesni_avx",
                                "its knobs: UNROLL, KEYS, TAIL, ONEPASS, TWEAK")
        self.assertNotIn("BULK", result.stderr.split("its knobs:")[1])
        self.assert_usage_error(run_cli("gen", "--check", "--isa", "vperm_ssse3", "--mode",
                                        "ctr", "BULK=vperm"),
                                "knob BULK does not apply to mode ctr on vperm_ssse3")
        result = run_cli("gen", "--check", "--isa", "vperm_ssse3", "--mode", "xts",
                         "BULK=vperm", "UNROLL=2")
        self.assert_usage_error(result, "BULK=vperm: it is the main loop of UNROLL=8",
                                "valid UNROLL here: 8", "or set BULK=bitslice")

    def test_unroll_too_big_for_register_file(self):
        result = run_cli("gen", "--check", "--isa", "avx10_512", "--mode", "ctr",
                         "UNROLL=16", "KEYS=reg")
        self.assert_usage_error(result, "UNROLL=16", "has 32",
                                "valid UNROLL here: 1, 2, 4, 8", "KEYS=mem")

    def test_keys_in_registers_on_16_register_isa(self):
        result = run_cli("gen", "--check", "--isa", "aesni_avx", "KEYS=reg")
        self.assert_usage_error(result, "aesni_avx has 16", "valid UNROLL here: none")

    def test_bad_input_writes_nothing(self):
        out = os.path.join(REPO, "build", "cli-bad-input")
        result = run_cli("gen", "--out", out, "--isa", "avx10_512", "UNROLL=16", "KEYS=reg")
        self.assertEqual(result.returncode, 2)
        self.assertFalse(os.path.exists(out))

    def test_a_refused_pair_leaves_the_directory_as_it_was(self):
        # avx10_512's ctr and xctr take KEYS=rows, its xts does not: nothing may be written
        # before xts is refused (gen/ was left half rewritten, its manifest stale)
        with tempfile.TemporaryDirectory() as out:
            first = run_cli("gen", "--out", out, "--isa", "avx10_512")
            self.assertEqual(first.returncode, 0, first.stderr)
            before = {name: open(os.path.join(root, name), "rb").read()
                      for root, _, names in os.walk(out) for name in names}
            result = run_cli("gen", "--out", out, "--isa", "avx10_512", "KEYS=rows")
            self.assert_usage_error(result, "KEYS=rows")
            after = {name: open(os.path.join(root, name), "rb").read()
                     for root, _, names in os.walk(out) for name in names}
            self.assertEqual(after, before)

    def test_an_output_path_that_is_a_file(self):
        with tempfile.NamedTemporaryFile() as handle:
            result = run_cli("gen", "--out", handle.name, "--isa", "avx10_512", "--mode", "ctr")
            self.assert_usage_error(result, handle.name)
            self.assertNotIn("Traceback", result.stderr)

    def test_misspelled_knob_on_make_command_line(self):
        # make passes every variable (ISA=, CC=, ...); a knob's name misspelled or in
        # lower case must not quietly generate the defaults
        for word in ("UNROL=16", "Unroll=4", "TAILPOWER=loaded"):
            with self.subTest(word=word):
                self.assert_usage_error(
                    run_cli("gen", "--check", "--make-overrides", f"ISA=avx10_512 {word}"),
                    f"unknown knob '{word.split('=')[0]}'", "did you mean")
        result = run_cli("gen", "--check", "--make-overrides", "CC=clang ISA=x GEN_OUT=y V=1")
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_list_shows_isas_modes_knobs(self):
        result = run_cli("list")
        self.assertEqual(result.returncode, 0)
        for name in list(ISAS) + list(MODES) + ["UNROLL", "KEYS", "TAIL", "GHASH"]:
            self.assertIn(name, result.stdout)

    def test_list_shows_each_modes_constraints(self):
        result = run_cli("list")
        for mode in MODES:
            self.assertRegex(result.stdout, rf"\n  {mode} +TAIL <= UNROLL")
        self.assertRegex(result.stdout, r"\n  gcm +2 x UNROLL x lanes < 68")
        self.assertRegex(result.stdout, r"\n  gcm +GHASH=karatsuba")
        self.assertRegex(result.stdout, r"\n  xts +tweaks: in registers")

    def test_gcm_beyond_the_powers_of_h_names_what_fits(self):
        result = run_cli("gen", "--check", "--isa", "avx10_512", "--mode", "gcm", "UNROLL=16",
                         "GHASH=school")
        self.assert_usage_error(result, "needs 129 powers of H; the key holds 68",
                                "valid UNROLL here: 1, 2, 4, 8")
        # 16 registers: Karatsuba's half sums only in registers, which no UNROLL leaves
        result = run_cli("gen", "--check", "--isa", "vaes_avx2", "--mode", "gcm",
                         "GHASH=karatsuba")
        self.assert_usage_error(result, "GHASH=karatsuba", "valid UNROLL here: none",
                                "or set GHASH=school")

    def test_make_overrides_take_the_knobs_only(self):
        out = os.path.join(REPO, "build", "cli-make-overrides")
        result = run_cli("gen", "--check", "--out", out, "--isa", "avx10_512", "--mode", "ctr",
                         "--make-overrides", "ISA=avx10_512 BUILD=build UNROLL=7")
        self.assert_usage_error(result, "bad value '7' for UNROLL")

    def test_help(self):
        result = run_cli("--help")
        self.assertEqual(result.returncode, 0)
        self.assertIn("gen", result.stdout)

    def test_show_help_says_one_isa_and_mode(self):
        """show takes exactly one --isa and one --mode (two are refused); its help said
        "(repeatable)", copied from gen's."""
        help_text = " ".join(run_cli("show", "--help").stdout.split())
        self.assertIn("avx10_512 (exactly one)", help_text)
        self.assertIn("gcm (exactly one)", help_text)
        self.assertNotIn("repeatable", help_text)
        self.assertIn("(repeatable)", run_cli("gen", "--help").stdout)
        self.assert_usage_error(run_cli("show", "--isa", "avx10_512", "--isa", "avx10_256",
                                        "--mode", "ctr"), "exactly one --isa")

    def test_perf_help_is_whole(self):
        """python3 -m perf --help: its description was the first line of a wrapped
        sentence, cut after 'marks,'."""
        result = subprocess.run([sys.executable, "-m", "perf", "--help"], cwd=REPO,
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        text = " ".join(result.stdout.split())
        self.assertNotIn("marks, positional", text)
        self.assertIn("timing probes (docs/perf-tools.md).", text)
        self.assertIn("Exit status: 0 done, 1 a check failed", text)


class StackFrame(unittest.TestCase):
    def test_frame_limit(self):
        fn = Function(SYSV, "aesgen_test", [], [], clear_upper=False)
        fn.reserve_stack(3200)
        self.assertEqual(fn.frame, 3200)
        with self.assertRaises(TemplateError) as caught:
            fn.reserve_stack(4 * 4096 + 16)
        self.assertIn("16400 bytes", str(caught.exception))
        self.assertEqual(fn.frame, 3200)     # unchanged by the refused request

    def probes(self, frame, abi=SYSV):
        fn = Function(abi, "aesgen_test", [], [], clear_upper=False)
        fn.reserve_stack(frame)
        lines = fn.prologue().splitlines()
        move = lines.index(f"sub rsp, {fn._allocation()}")
        stores = [int(re.fullmatch(r"mov qword \[rsp \+ (\d+)\], 0", line).group(1))
                  for line in lines[move + 1:] if line.startswith("mov qword [rsp")]
        return fn._allocation(), stores

    def test_no_probe_below_a_page(self):
        self.assertEqual(self.probes(4000)[1], [])

    def test_probes_each_page_from_the_top(self):
        # the entry rsp is rsp + allocation after the move: each probe is a page below
        # the one before (the first a page below the entry rsp), down to the frame's end
        for frame in (4096, 4400, 8192, 12000, 16384):
            allocation, stores = self.probes(frame)
            self.assertEqual(stores, [allocation - 4096 * k
                                      for k in range(1, allocation // 4096 + 1)], frame)
            self.assertTrue(stores and all(0 <= s < allocation for s in stores))

    def test_probes_after_the_vector_saves(self):
        # Win64: the xmm saves (the prologue's last unwind codes) come first; they write
        # the frame's top, within a page of the entry rsp, so the order of pages holds
        fn = Function(WIN64, "aesgen_test", [], [], clear_upper=False)
        fn.saved_vectors = [6, 7]
        fn.reserve_stack(5000)
        lines = fn.prologue().splitlines()
        probe = next(i for i, line in enumerate(lines) if line.startswith("mov qword [rsp"))
        saves = [i for i, line in enumerate(lines) if line.startswith(".cfi_savexmm")]
        self.assertEqual(len(saves), 2)
        self.assertGreater(probe, max(saves))
        self.assertLess(fn._allocation() - fn._vector_save_offset(7), 4096)

    def test_the_biggest_frame_fits(self):
        # the counter modes' bitsliced frame (bitslice.COUNTER_FRAME_END) is the biggest
        self.assertLessEqual(BITSLICE_COUNTER_FRAME + 15, Function.MAX_FRAME)


class Parser(unittest.TestCase):
    def test_memory_operand_fields(self):
        instr = parse_line("vmovdqu8 zmm1{k2}{z}, zmmword [rsi + rcx*4 - 64]")
        reg, mem = instr.operands
        self.assertEqual((reg.name, reg.mask, reg.zeroing), ("zmm1", "k2", True))
        self.assertEqual((mem.base, mem.index, mem.scale, mem.disp, mem.size),
                         ("rsi", "rcx", 4, -64, 64))

    def test_rip_relative(self):
        mem = parse_line("vpaddq ymm0, ymm0, [rip + .Lconst + 16]").operands[2]
        self.assertEqual((mem.symbol, mem.disp, mem.base), (".Lconst", 16, None))

    def test_rejects_garbage(self):
        for line in ("vpxor xmm0, [rax + rbx + rcx]", "mov rax, [foo]", ".frobnicate 1",
                     "vpxor xmm0, [rax*3]", "add rax, @@"):
            with self.assertRaises(TemplateError, msg=line):
                parse_line(line)


class Printers(unittest.TestCase):
    CASES = [
        # neutral, GNU as, NASM
        ("vaesenc zmm0, zmm0, zmm16", "vaesenc         %zmm16, %zmm0, %zmm0",
         "vaesenc         zmm0, zmm0, zmm16"),
        ("vmovdqu8 zmm1{k1}{z}, [rsi]", "vmovdqu8        (%rsi), %zmm1{%k1}{z}",
         "vmovdqu8        zmm1{k1}{z}, [rsi]"),
        ("vmovdqu8 [rdi + 64]{k1}, zmm2", "vmovdqu8        %zmm2, 64(%rdi){%k1}",
         "vmovdqu8        [rdi + 64]{k1}, zmm2"),
        ("vpxord zmm3, zmm4, zmmword [rdx + rcx*1 - 128]",
         "vpxord          -128(%rdx,%rcx,1), %zmm4, %zmm3",
         "vpxord          zmm3, zmm4, zword [rdx + rcx*1 - 128]"),
        ("vpaddq ymm0, ymm0, ymmword [rip + .Lk]", "vpaddq          .Lk(%rip), %ymm0, %ymm0",
         "vpaddq          ymm0, ymm0, yword [rel L.k]"),
        ("mov qword [rsp + 8], 0", "movq            $0, 8(%rsp)", "mov             qword [rsp + 8], 0"),
        ("xor r11w, word [rdx]", "xor             (%rdx), %r11w", "xor             r11w, word [rdx]"),
        ("movzx eax, byte [rsi]", "movzbl          (%rsi), %eax", "movzx           eax, byte [rsi]"),
        ("bzhi r11, r11, rcx", "bzhi            %rcx, %r11, %r11", "bzhi            r11, r11, rcx"),
        ("vpternlogd zmm0, zmm1, zmm2, 0x96", "vpternlogd      $150, %zmm2, %zmm1, %zmm0",
         "vpternlogd      zmm0, zmm1, zmm2, 150"),
        ("jb .Ldone", "{disp32} jb     .Ldone", "jb              near L.done"),
    ]

    def test_backward_jumps_are_left_to_the_assembler(self):
        statements = parse(".Ltop:\nnop\njnz .Ltop\njmp .Lend\n.Lend:")
        att = AttPrinter().render([], statements)
        nasm = NasmPrinter().render([], statements)
        self.assertIn("\tjnz             .Ltop", att)
        self.assertIn("{disp32} jmp", att)
        self.assertIn("jnz             L.top", nasm)
        self.assertIn("jmp             near L.end", nasm)

    def test_both_syntaxes(self):
        for neutral, att, nasm in self.CASES:
            instr = parse_line(neutral)
            self.assertEqual(AttPrinter().instruction(instr), att)
            self.assertEqual(NasmPrinter().instruction(instr), nasm)

    def test_cpp_directive_comment_is_refused(self):
        with self.assertRaises(TemplateError):
            AttPrinter().comment("if the counter wraps")
        self.assertEqual(AttPrinter().comment("when the counter wraps"),
                         "# when the counter wraps")

    def test_nasm_refuses_a_cfa_below_the_return_address(self):
        """The NASM printer writes the CFA offset as a ULEB128 (DW_CFA_def_cfa_offset): one
        that a .cfi_adjust took below 8 is a template error, where the encoder looped
        forever on the negative number.  In a child process, so a hang fails."""
        script = ("from generator.errors import TemplateError\n"
                  "from generator.parse import parse\n"
                  "from generator.printers.nasm import NasmPrinter\n"
                  "try:\n"
                  "    NasmPrinter().render([], parse('.cfi_startproc\\nendbr64\\n"
                  ".cfi_adjust -16\\nret\\n.cfi_endproc'))\n"
                  "except TemplateError as error:\n"
                  "    print(error)\n")
        try:
            result = subprocess.run([sys.executable, "-c", script], cwd=REPO, timeout=10,
                                    capture_output=True, text=True)
        except subprocess.TimeoutExpired:
            self.fail("the NASM printer did not finish on .cfi_adjust -16")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("CFA", result.stdout)

    def test_mca_markers(self):
        statements = parse(".mca_begin loop, 16\nnop\n.mca_end")
        self.assertIn("# LLVM-MCA-BEGIN loop", AttPrinter().render([], statements))
        self.assertIn("; LLVM-MCA-END", NasmPrinter().render([], statements))


FUNCTION = """.function f
f:
endbr64
{body}
.mca_begin m, 16
.mca_end
vzeroupper
ret
"""


class UnchangedVariantFunctions(unittest.TestCase):
    """render._share_unchanged: a variant's function its knobs leave unchanged becomes a
    second name of the file's own (`.alias`), not a second copy."""

    OWN = ("# int f_x(int a);\n.text\n.align 32\n.function f_x\nf_x:\nendbr64\n"
           ".Lf_loop:\n{body}\nvzeroupper\nret\n.endfunction f_x\n")
    THEIRS = ("# int f_x_v(int a);\n.text\n.align 32\n.function f_x_v\nf_x_v:\nendbr64\n"
              ".Lf_v_loop:\n{body}\nvzeroupper\nret\n.endfunction f_x_v\n")

    def test_the_same_code_becomes_a_second_name(self):
        own, theirs = render._share_unchanged(self.OWN.format(body="nop"),
                                              self.THEIRS.format(body="nop"), "_v")
        self.assertNotIn(".function f_x_v", theirs)
        self.assertIn("# f_x_v: the code of f_x", theirs)
        self.assertIn(".function f_x\n.alias f_x_v\nf_x_v:\nf_x:", own)
        statements = parse(own)
        elf = AttPrinter().render([], statements)
        for line in ("\t.globl\tf_x_v", "\t.hidden\tf_x_v", "\t.type\tf_x_v, @function",
                     "\t.size\tf_x_v, . - f_x_v", "\t.size\tf_x, . - f_x"):
            self.assertIn(line, elf)
        self.assertIn("global f_x_v:function hidden", NasmPrinter().render([], statements))
        win = Win64NasmPrinter().render([], parse(own))
        self.assertIn("global f_x_v\n", win)
        self.assertEqual(win.count("dd f_x wrt ..imagebase"), 1)   # one unwind entry
        self.assertNotIn("f_x_v wrt", win)
        check_functions(statements, clear_upper=True)    # endbr64 first at both names
        with self.assertRaisesRegex(TemplateError, "function f_x_v does not start"):
            check_functions(parse(own.replace("f_x:\nendbr64", "f_x:\nnop\nendbr64")),
                            clear_upper=True)

    def test_other_code_stays(self):
        own, theirs = render._share_unchanged(self.OWN.format(body="nop"),
                                              self.THEIRS.format(body="int3"), "_v")
        self.assertIn(".function f_x_v", theirs)
        self.assertNotIn(".alias", own)

    def test_the_gcm_default_variant_shares_its_unchanged_functions(self):
        # RECTAIL, TAILPOWERS and TAILORDER change only the records: GHASH and the update
        # functions are the file's
        with open(os.path.join(GEN, "manifest.json"), encoding="utf-8") as handle:
            entry = next(e for e in json.load(handle)["generated"]
                         if e["mode"] == "gcm" and e["isa"] == "avx10_512")
        suffix = "_rectailstitched1_tailorderhalves_tailpowersloaded"
        shared = {f["symbol"]: f.get("same_code_as") for f in entry["functions"]
                  if f["variant"] == suffix[1:]}
        own = "aesgen_gcm_{}_avx10_512"
        self.assertEqual(shared, {
            own.format("ghash") + suffix: own.format("ghash"),
            own.format("enc_update") + suffix: own.format("enc_update"),
            own.format("dec_update") + suffix: own.format("dec_update"),
            own.format("enc_record") + suffix: None,
            own.format("dec_record") + suffix: None})


class Lints(unittest.TestCase):
    def check(self, body, isa="avx10_512", function=FUNCTION):
        lint(parse(function.format(body=body)), get_isa(isa))

    def test_clean_function_passes(self):
        self.check("vpxord zmm0, zmm0, zmm1")

    def test_legacy_sse(self):
        for body in ("pxor xmm0, xmm1", "aesenc xmm0, xmm1", "movdqu xmm0, [rsi]"):
            with self.assertRaises(TemplateError, msg=body):
                self.check(body)

    def test_registers_beyond_isa(self):
        for isa, body in (("aesni_avx", "vpxor ymm0, ymm0, ymm1"),
                          ("vaes_avx2", "vpxor ymm16, ymm0, ymm1"),
                          ("avx10_256", "vpxord zmm0, zmm0, zmm1"),
                          ("vaes_avx2", "vpxord ymm0, ymm0, ymm1"),
                          ("vaes_avx2", "kmovq k1, rax"),
                          # generator/features.py: BMI2 (not aesni_avx), EVEX-only forms
                          ("aesni_avx", "shlx rax, rbx, rcx"),
                          ("vaes_avx2", "vpternlogd ymm0, ymm1, ymm2, 0x96")):
            with self.assertRaises(TemplateError, msg=f"{isa}: {body}"):
                self.check(body, isa)

    def test_vex_only_mnemonic_on_an_evex_register(self):
        for body in ("vmovdqu xmm16, [rsi]", "vpxor ymm17, ymm0, ymm1", "vmovdqa zmm1, zmm2",
                     "vpblendd ymm20, ymm1, ymm2, 0xf0"):
            with self.assertRaisesRegex(TemplateError, "only a VEX encoding", msg=body):
                self.check(body)
        self.check("vmovdqu8 xmm16, [rsi]")
        self.check("vmovdqu xmm15, [rsi]")

    def test_move_whose_memory_size_differs_from_its_register(self):
        # NASM refuses these; GNU as sized them by the register (the twins would part)
        for isa, body in (("vaes_avx2", "vmovdqu xmmword [rsi], ymm7"),
                          ("avx10_512", "vmovdqu8 ymmword [rsi], zmm1"),
                          ("avx10_512", "vmovdqa64 zmm2, xmmword [rsi]")):
            with self.assertRaisesRegex(TemplateError, "memory operand says", msg=body):
                self.check(body, isa)
        self.check("vmovdqu ymmword [rsi], ymm7", "vaes_avx2")
        self.check("vmovdqu8 zmmword [rsi]{k1}, zmm1")
        self.check("vmovdqu xmm0, [rsi]", "vaes_avx2")        # no size named: the register's

    def test_vex_move_that_assemblers_encode_differently(self):
        with self.assertRaises(TemplateError):
            self.check("vmovdqa xmm4, xmm8", "aesni_avx")
        self.check("vmovdqa xmm8, xmm4", "aesni_avx")
        self.check("vmovdqa64 xmm4, xmm8", "avx10_256")

    def test_missing_endbr64(self):
        with self.assertRaises(TemplateError):
            self.check("nop", function=FUNCTION.replace("endbr64\n", ""))

    def test_missing_vzeroupper(self):
        with self.assertRaises(TemplateError):
            self.check("nop", function=FUNCTION.replace("vzeroupper\n", ""))

    def test_xmm_only_return_needs_no_vzeroupper(self):
        self.check("nop", function=FUNCTION.replace("vzeroupper\n", ".xmm_only\n"))
        with self.assertRaises(TemplateError):   # the marker covers one ret only
            self.check("ret", function=FUNCTION.replace("vzeroupper\n", ""))

    def test_undefined_label(self):
        with self.assertRaises(TemplateError):
            self.check("jmp .Lnowhere")

    def test_stack_moves_only_in_prologue_and_epilogue(self):
        framed = FUNCTION.replace("endbr64\n", "endbr64\npush rbx\n.cfi_push rbx\n"
                                  "sub rsp, 16\n.cfi_adjust 16\n").replace(
            "vzeroupper\nret", "vzeroupper\n.cfi_remember\nadd rsp, 16\n.cfi_adjust -16\n"
            "pop rbx\n.cfi_pop rbx\nret\n.cfi_restore")
        self.check("mov qword [rsp + 8], rsi\nmov rsi, qword [rsp + 8]", function=framed)
        # (the body's first instruction ends the prologue)
        for body in ("push rsi\n.cfi_adjust 8\npop rsi\n.cfi_adjust -8",
                     "sub rsp, 8", "lea rsp, [rsp + 8]", ".cfi_adjust 8"):
            with self.assertRaises(TemplateError, msg=body):
                self.check("nop\n" + body, function=framed)

    def test_epilogue_keeps_the_body_cfi_for_code_after_it(self):
        # the loop placed after the ret must unwind with the body's frame (the DWARF
        # state saved before the epilogue, restored after its ret)
        framed = FUNCTION.replace("endbr64\n", "endbr64\npush rbx\n.cfi_push rbx\n").replace(
            "vzeroupper\nret", "jmp .Lloop\n.Lback:\nvzeroupper\n{remember}pop rbx\n"
            ".cfi_pop rbx\nret\n{restore}.Lloop:\nxor ebx, ebx\njmp .Lback")
        self.check("nop", function=framed.format(remember=".cfi_remember\n",
                                                  restore=".cfi_restore\n", body="{body}"))
        for remember, restore in (("", ".cfi_restore\n"), (".cfi_remember\n", "")):
            with self.subTest(remember=remember, restore=restore), \
                    self.assertRaisesRegex(TemplateError, "epilogue"):
                self.check("nop", function=framed.format(remember=remember, restore=restore,
                                                          body="{body}"))

    def test_cfi_state_pair_only_around_an_epilogue(self):
        for body in (".cfi_remember\nnop", "nop\n.cfi_restore"):
            with self.subTest(body=body), self.assertRaisesRegex(TemplateError,
                                                                 "outside an epilogue"):
                self.check(body)

    def test_dead_code(self):
        self.check("jmp .Lover\n.Lover:\nnop")
        self.check("jmp .Lover\nint3\n.Lover:\nnop")    # padding, not code
        for body in ("jmp .Lover\nnop\n.Lover:",               # after a jump
                     "jmp .Lover\n.Lnobody:\nnop\n.Lover:",    # behind a label nobody names
                     "jmp .Lover\njmp .Lover\n.Lover:",         # a jump after a jump
                     "jmp .Lover\n.Lself:\nnop\njmp .Lself\n.Lover:"):  # named from dead code only
            with self.subTest(body=body), self.assertRaisesRegex(TemplateError, "unreachable"):
                self.check(body)

    def test_unbalanced_mca(self):
        with self.assertRaises(TemplateError):
            self.check("nop", function=FUNCTION.replace(".mca_end\n", ""))


class Generation(unittest.TestCase):
    def test_every_valid_combination_generates_and_lints(self):
        """... and gets its manifest entry, as `make gen` with those knobs writes it: one
        main-loop stride for the file's own functions and one per uarch variant (a
        variant's loop must not pass for the file's own)."""
        for isa, mode in generated_pairs():
            for unroll in (1, 2, 4, 8, 16):
                for keys in ("reg", "mem"):
                    knobs = resolve(mode, isa, {"UNROLL": unroll, "KEYS": keys})
                    try:
                        output = render.build(mode, isa, knobs, SYSV)
                    except DoesNotFit:
                        continue
                    self.assertIn(f"UNROLL={unroll}", output.texts["S"])
                    with self.subTest(isa=isa.name, mode=mode.name, unroll=unroll, keys=keys):
                        entry = manifest.file_entry(mode, isa, knobs, SYSV, output)
                        manifest.stride(entry)
                        for variant in output.variants:
                            manifest.variant_stride(entry, variant.name)

    def test_deterministic(self):
        mode, isa = get_mode("ctr"), get_isa("avx10_256")
        knobs = resolve(mode, isa, {})
        self.assertEqual(generate(mode, isa, knobs, SYSV), generate(mode, isa, knobs, SYSV))

    def test_header(self):
        mode, isa = get_mode("xctr"), get_isa("vaes_avx2")
        text = generate(mode, isa, resolve(mode, isa, {"UNROLL": 4}), SYSV)["asm"]
        head = text.splitlines()[:8]
        self.assertEqual(head[0], "; SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause")
        self.assertTrue(head[1].startswith("; Generated by aesgen 0."), head[1])
        self.assertTrue(any("regenerate: python3 -m generator gen --isa vaes_avx2 --mode xctr"
                            in line and "UNROLL=4" in line for line in head), head)

    def test_xts_tweak_knob_picks_the_main_loops_tweak_step(self):
        """TWEAK=clmul makes each of an iteration's tweaks with a vpclmulqdq; TWEAK=double
        doubles the previous one (vpsrad, vpaddq) and multiplies nothing in the loop;
        TWEAK=gpr doubles in general registers (adc) and moves each tweak in (vpinsrq)."""
        import re
        mode, isa = get_mode("xts"), get_isa("aesni_avx")
        for tweak, present, absent in (("clmul", "vpclmulqdq", "vpsrad"),
                                       ("double", "vpsrad", "vpclmulqdq"),
                                       ("gpr", "adc", "vpsrad")):
            text = generate(mode, isa, resolve(mode, isa, {"TWEAK": tweak}), SYSV,
                            with_variants=False)["S"]
            # the file's own functions (not the uarch variants of generator/tuning.json)
            loops = [(name, body) for name, body in
                     re.findall(r"# LLVM-MCA-BEGIN (\S+)\n(.*?)# LLVM-MCA-END", text, re.S)
                     if name in ("xts_enc_aesni_avx_main_loop", "xts_dec_aesni_avx_main_loop")]
            self.assertEqual(len(loops), 2, tweak)
            for name, body in loops:
                # UNROLL=4: 3 tweaks and the next BASE (gpr: 4 doublings, BASE untouched)
                self.assertEqual(body.count(present + " "), 4, (tweak, name))
                self.assertNotIn(absent + " ", body, (tweak, name))
                self.assertEqual(body.count("vpinsrq "), 4 if tweak == "gpr" else 0, (tweak, name))
                self.assertEqual("vpclmulqdq " in body, tweak == "clmul", (tweak, name))

    def test_xts_tweak_ahead_makes_the_next_iterations_tweaks_during_the_rounds(self):
        """TWEAK=ahead: no multiply between an iteration's loads and its first round; each
        vector's tweak moves on by x^(lanes*UNROLL) (vpslldq by 2 bytes on zmm at UNROLL=4)
        after the first middle rounds, in place; the last round reads LK (last key ^ tweak)
        made before it.  Outside the loop nothing differs from TWEAK=clmul."""
        import re
        mode, isa = get_mode("xts"), get_isa("avx10_512")
        text = generate(mode, isa, resolve(mode, isa, {"TWEAK": "ahead"}), SYSV,
                        with_variants=False)["S"]
        clmul = generate(mode, isa, resolve(mode, isa, {"TWEAK": "clmul"}), SYSV,
                         with_variants=False)["S"]
        loops = re.findall(r"# LLVM-MCA-BEGIN (xts_(?:enc|dec)_avx10_512_main_loop)\n(.*?)"
                           r"# LLVM-MCA-END", text, re.S)
        self.assertEqual(len(loops), 2)
        for name, body in loops:
            first_round = re.search(r"\tvaes(?:enc|dec) ", body).start()
            self.assertNotIn("vpclmulqdq", body[:first_round], name)
            self.assertEqual(body.count("vpclmulqdq "), 4, name)
            self.assertEqual(body.count("vpslldq         $2, "), 4, name)
            # each multiply follows a round of the nine every key size runs
            after = body[body.index("_main_aes128:"):]
            self.assertEqual(after.count("vpclmulqdq "), 4, name)
            # the last round takes LK0..LK3, which are last key ^ tweak before the rounds
            lasts = re.findall(r"vaes(?:enc|dec)last\s+(%zmm\d+), ", body)
            xors = re.findall(r"vpxord\s+%zmm\d+, %zmm\d+, (%zmm\d+)", body[:first_round])
            self.assertEqual(lasts, xors, name)
        # the entry makes the first iteration's tweaks; the rest of the file is clmul's
        self.assertIn("the first iteration's tweaks", text)
        strip = lambda t: re.sub(r"\.Lxts_(enc|dec)_main_loop:.*?jmp\s+\.Lxts_\1_main_done",
                                 "", t, flags=re.S)
        mnemonics = lambda t: [l.split()[0] for l in strip(t).splitlines()
                               if l.startswith("\t") and not l.startswith("\t.")]
        self.assertEqual(mnemonics(text), mnemonics(clmul))

    def test_xts_tweakenc_rows_makes_t_in_every_lane(self):
        """TWEAKENC=rows: T = E_K2(iv) on the full vector (the IV broadcast, the tweak key's
        64-byte rows as memory operands: key2 + 256 + 64 i), no lane-0 copy (vshufi64x2 /
        vpermq) before BASE; xmm: on xmm from the 16-byte keys, then the copy.  Refused on
        aesni_avx (xmm only).  The rest of each function is the same code."""
        import re
        mode = get_mode("xts")
        for name, copy in (("avx10_512", "vshufi64x2"), ("avx10_256", "vshufi64x2"),
                           ("vaes_avx2", "vpermq")):
            isa = get_isa(name)
            texts = {enc: generate(mode, isa, resolve(mode, isa, {"TWEAKENC": enc}), SYSV,
                                   with_variants=False)["S"] for enc in ("xmm", "rows")}
            for enc, text in texts.items():
                for direction in ("encrypt", "decrypt"):
                    start = text.index(f"\naesgen_xts_{direction}_{name}:")
                    head = text[start:text.index("vpsrlvq", start)]
                    rounds = re.findall(r"vaesenc\s+(\d+)\(%rsi\), %([xyz]mm)0", head)
                    with self.subTest(isa=name, enc=enc, direction=direction):
                        self.assertEqual(len(rounds), 13)      # rk1..rk13, AES-256's
                        if enc == "rows":
                            self.assertEqual([int(o) for o, _ in rounds],
                                             [256 + 64 * i for i in range(1, 14)])
                            self.assertEqual({w for _, w in rounds}, {isa.vector_kind})
                            self.assertNotIn(copy, head)
                        else:
                            self.assertEqual([int(o) for o, _ in rounds],
                                             [16 * i for i in range(1, 14)])
                            self.assertEqual({w for _, w in rounds}, {"xmm"})
                            self.assertIn(copy, head)
            # outside T's making (the header's knob lines aside), nothing differs
            rest = {enc: re.sub(r"# T = E_K2\(iv\).*?(?=\tvpsrlvq)", "",
                                t[t.index("\n.text") if "\n.text" in t else t.index("\naesgen_"):],
                                flags=re.S)
                    for enc, t in texts.items()}
            self.assertEqual(rest["xmm"], rest["rows"], name)
        result = run_cli("gen", "--check", "--isa", "aesni_avx", "--mode", "xts", "TWEAKENC=rows")
        self.assertEqual(result.returncode, 2)
        self.assertIn("TWEAKENC", result.stderr)

    def test_xctr_counters_knob_picks_the_counter_form(self):
        """COUNTERS=base adds each counter vector's own step from .Lxctr_steps; chain adds
        the STEP register down the vectors, no step read in the loop."""
        import re
        mode, isa = get_mode("xctr"), get_isa("aesni_avx")
        for counters, steps_read, register_adds in (("base", 8, 0), ("chain", 0, 8)):
            text = generate(mode, isa, resolve(mode, isa, {"COUNTERS": counters}), SYSV,
                            with_variants=False)["S"]
            body = re.search(r"# LLVM-MCA-BEGIN xctr_aesni_avx_main_loop\n(.*?)"
                             r"# LLVM-MCA-END", text, re.S).group(1)
            self.assertEqual(body.count(".Lxctr_steps"), steps_read, counters)
            self.assertEqual(len(re.findall(r"vpaddq\s+%xmm\d+, %xmm\d+, %xmm\d+", body)),
                             register_adds, counters)

    def test_ctr_counters_gpr_makes_the_blocks_in_general_registers(self):
        """COUNTERS=base: big-endian byte adds (vpaddd) and a carry check in the loop;
        gpr: each block loaded from the ring, the next iteration's made by bswap, no vector
        counter op; the ring is wiped after the loop."""
        import re
        mode, isa = get_mode("ctr"), get_isa("aesni_avx")
        for counters, vpaddd, bswaps in (("base", 8, 0), ("gpr", 0, 8)):
            text = generate(mode, isa, resolve(mode, isa, {"COUNTERS": counters}), SYSV,
                            with_variants=False)["S"]
            body = re.search(r"# LLVM-MCA-BEGIN ctr_aesni_avx_main_loop\n(.*?)"
                             r"# LLVM-MCA-END", text, re.S).group(1)
            self.assertEqual(len(re.findall(r"\bvpaddd\s", body)), vpaddd, counters)
            self.assertEqual(len(re.findall(r"\bbswap\s", body)), bswaps, counters)
            self.assertEqual("_carry" in body, counters == "base", counters)
            after = text[text.index("# LLVM-MCA-END", text.index("ctr_aesni_avx_main_loop")):]
            wipes = re.findall(r"vmovdqu\s+%xmm\d+, \d*\(%rsp\)", after.split(".cfi_endproc")[0])
            self.assertEqual(len(wipes), 16 if counters == "gpr" else 0, counters)

    def test_arguments_come_from_the_abi(self):
        mode, isa = get_mode("ctr"), get_isa("avx10_512")
        text = generate(mode, isa, resolve(mode, isa, {}), SYSV)["S"]
        self.assertIn("KEY=rdi, DST=rsi, SRC=rdx, LEN=rcx, CTR_LO=r8, CTR_HI=r9", text)


class Features(unittest.TestCase):
    """generator/features.py: what an instruction form needs (lint.py and perf/mca.py)."""

    def test_instruction_forms(self):
        vex = {"avx", "os:xmm+ymm"}
        evex = vex | {"avx512f", "os:opmask+zmm"}
        cases = [
            ("vaesenc", {"xmm"}, False, False, vex | {"aes"}),
            ("vaesenc", {"ymm"}, False, False, vex | {"aes", "vaes"}),
            ("vpclmulqdq", {"zmm"}, False, False, evex | {"pclmulqdq", "vpclmulqdq"}),
            ("vpxor", {"ymm"}, False, False, vex | {"avx2"}),
            ("vpxord", {"xmm"}, False, False, evex | {"avx512vl"}),
            ("vpxor", {"xmm"}, True, False, evex | {"avx512vl"}),
            ("vmovdqu8", {"zmm", "k"}, False, True, evex | {"avx512bw"}),
            ("kmovq", {"k", "gpr"}, False, True, evex | {"avx512bw"}),
            ("kmovb", {"k", "gpr"}, False, True, evex | {"avx512dq"}),
            ("vpshufb", {"zmm"}, False, False, evex | {"avx512bw"}),
            ("shlx", {"gpr"}, False, False, {"bmi2"}),
            ("add", {"gpr"}, False, False, set()),
        ]
        for mnemonic, kinds, high, opmask, want in cases:
            self.assertEqual(instruction_features(mnemonic, kinds, high, opmask), want,
                             mnemonic)


class Layout(unittest.TestCase):
    def test_h_power_offsets(self):
        # runtime/src/asm_abi.h: H^68 .. H^1 from offset 1216 (after the AES key's 256
        # bytes and its 15 rows of 64), 16 bytes each, then padding
        self.assertEqual(layout.h_power(68), 1216)
        self.assertEqual(layout.h_power(1), 1216 + 16 * 67)
        self.assertEqual(layout.h_power(0), 2304)
        self.assertEqual(layout.GCM_KEY.h_halves, 2304 + 64)
        self.assertEqual(layout.GCM_KEY.h_powers % 64, 0)
        self.assertEqual(layout.GCM_KEY.h_halves % 64, 0)
        self.assertEqual(layout.GCM_RECORD.tail_len, 96)
        self.assertEqual(layout.AES_KEY.rounds, 240)
        # aesgen.h: the rows start a cache line, one per round key
        self.assertEqual(layout.AES_KEY.rk_rows, 256)
        self.assertEqual(layout.AES_KEY_BYTES, 256 + 15 * 64)
        with self.assertRaises(ValueError):
            layout.h_power(69)


class UarchVariants(unittest.TestCase):
    """Each uarch of generator/tuning.json whose knobs differ gets a variant of the
    functions in the ISA's file (generator/render.py variants)."""

    GCM_FUNCTIONS = ("gcm_ghash", "gcm_enc_update", "gcm_dec_update", "gcm_enc_record",
                     "gcm_dec_record")

    def setUp(self):
        import json
        import tempfile
        from unittest import mock
        from generator import tuning
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.path = os.path.join(self.tmp.name, "tuning.json")
        patcher = mock.patch.object(tuning, "TUNING_FILE", self.path)
        patcher.start()
        self.addCleanup(patcher.stop)
        self.json = json

    def write(self, variants):
        from generator import tuning
        def entry(knobs):
            return {"knobs": knobs, "machine": "m", "date": "d", "gains": "g"}
        doc = {"schema": tuning.SCHEMA, "lengths": {},
               "variants": {mode: {isa: {u: entry(k) for u, k in per.items()}
                                   for isa, per in isas.items()}
                            for mode, isas in variants.items()}}
        with open(self.path, "w") as handle:
            self.json.dump(doc, handle)

    def globals_of(self, text):
        return {line.split()[1] for line in text.splitlines()
                if line.strip().startswith(".globl")}

    def test_one_set_per_distinct_knob_set(self):
        self.write({"gcm": {"avx10_512": {"znver4": {"GHASH": "karatsuba"},
                                          "sapphirerapids": {"GHASH": "karatsuba"},
                                          "znver5": {"GHASH": "school"}}}})
        mode, isa = get_mode("gcm"), get_isa("avx10_512")
        text = generate(mode, isa, resolve(mode, isa, {}), SYSV)["S"]
        names = self.globals_of(text)
        for base in self.GCM_FUNCTIONS:
            self.assertIn(f"aesgen_{base}_avx10_512", names)
            self.assertIn(f"aesgen_{base}_avx10_512_ghashkaratsuba", names)
        # znver5's knobs are the file's: no set of its own; the shared set is named once
        self.assertEqual(len([n for n in names if n.endswith("_ghashkaratsuba")]), 5)
        self.assertEqual(len(names), 10)
        self.assertIn("# variant _ghashkaratsuba: GHASH=karatsuba (for znver4, sapphirerapids;",
                      text)
        self.assertEqual(text.count(".section .note.gnu.property"), 1)

    def test_a_file_with_other_knobs_keeps_each_uarchs_choice(self):
        self.write({"gcm": {"avx10_256": {"znver4": {"GHASH": "school"},
                                          "znver5": {"GHASH": "karatsuba"}}}})
        mode, isa = get_mode("gcm"), get_isa("avx10_256")
        names = self.globals_of(generate(mode, isa, resolve(mode, isa, {"GHASH": "school"}),
                                         SYSV)["S"])
        self.assertIn("aesgen_gcm_enc_update_avx10_256_ghashkaratsuba", names)
        self.assertNotIn("aesgen_gcm_enc_update_avx10_256_ghashschool", names)

    def test_a_set_that_does_not_fit_is_left_out_and_said(self):
        self.write({"gcm": {"vaes_avx2": {"znver4": {"GHASH": "karatsuba"}}}})
        mode, isa = get_mode("gcm"), get_isa("vaes_avx2")   # Karatsuba needs 32 registers
        text = generate(mode, isa, resolve(mode, isa, {}), SYSV)["S"]
        self.assertIn("# no variant for znver4: ", text)
        self.assertFalse([n for n in self.globals_of(text) if n.endswith("_ghashkaratsuba")])

    def test_any_knob_of_any_mode(self):
        # a mode whose template knows nothing of variants: its labels and LLVM-MCA regions
        # are suffixed apart, and the result assembles
        self.write({"ctr": {"avx10_512": {"znver4": {"UNROLL": 4, "TAIL": 2}}},
                    "xts": {"aesni_avx": {"sapphirerapids": {"UNROLL": 2}}}})
        import subprocess
        for mode_name, isa_name, suffix in (("ctr", "avx10_512", "_tail2_unroll4"),
                                            ("xts", "aesni_avx", "_tail2_unroll2")):
            mode, isa = get_mode(mode_name), get_isa(isa_name)
            output = build(mode, isa, resolve(mode, isa, {}), SYSV)
            self.assertEqual([v.name for v in output.variants], [suffix[1:]])
            names = self.globals_of(output.texts["S"])
            self.assertEqual(len([n for n in names if n.endswith(suffix)]),
                             len([n for n in names if not n.endswith(suffix)]))
            regions = [line.split()[2] for line in output.texts["S"].splitlines()
                       if line.startswith("# LLVM-MCA-BEGIN")]
            self.assertEqual(len(regions), len(set(regions)), regions)
            source = os.path.join(self.tmp.name, f"{mode_name}.S")
            with open(source, "w") as handle:
                handle.write(output.texts["S"])
            result = subprocess.run(["cc", "-c", "-o", source + ".o", source],
                                    capture_output=True, text=True)
            self.assertEqual(result.returncode, 0, result.stderr[:500])

    def test_two_variants_with_a_label_the_files_own_lacks(self):
        # ONEPASS=groups's loop label is in neither the file's own functions (ONEPASS=loop)
        # nor any one variant's alone: each variant gets its own
        self.write({"xts": {"avx10_512": {
            "default": {"ONEPASS": "groups", "TWEAK": "ahead", "UNROLL": 2, "TAIL": 1},
            "znver5": {"ONEPASS": "groups", "TWEAK": "ahead", "TWEAKENC": "rows"}}}})
        mode, isa = get_mode("xts"), get_isa("avx10_512")
        output = build(mode, isa, resolve(mode, isa, {}), SYSV)
        self.assertEqual(len(output.variants), 2)
        labels = [line.split(":")[0].strip() for line in output.texts["S"].splitlines()
                  if line.startswith(".L") and line.rstrip().endswith(":")]
        self.assertEqual(len(labels), len(set(labels)))
        self.assertTrue(any("group" in label for label in labels))

    def test_a_variant_name_inside_anothers_owns_only_its_own_loops(self):
        # "rectailstitched" is a part of the other set's name; the manifest gives each
        # LLVM-MCA region to the variant it belongs to (the strides tell them apart)
        from generator import manifest
        self.write({"gcm": {"avx10_512": {
            "default": {"RECTAIL": "stitched"},
            "znver5": {"RECTAIL": "stitched", "TAIL": 2, "UNROLL": 8}}}})
        mode, isa = get_mode("gcm"), get_isa("avx10_512")
        knobs = resolve(mode, isa, {})
        output = build(mode, isa, knobs, SYSV)
        self.assertEqual(sorted(v.name for v in output.variants),
                         ["rectailstitched", "rectailstitched_tail2_unroll8"])
        entry = manifest.file_entry(mode, isa, knobs, SYSV, output)
        owners = {}
        for region in entry["mca_regions"]:
            owners.setdefault(region["variant"], set()).add(region["bytes_per_iteration"])
        self.assertEqual(owners, {"": {4 * 64}, "rectailstitched": {4 * 64},
                                  "rectailstitched_tail2_unroll8": {8 * 64}})
        self.assertEqual(manifest.variant_stride(entry, "rectailstitched"), 256)

    def test_bad_entries_name_the_file_and_valid_values(self):
        self.write({"ctr": {"avx10_512": {"znver4": {"UNROLL": 3}}}})
        mode, isa = get_mode("ctr"), get_isa("avx10_512")
        with self.assertRaisesRegex(UsageError, "tuning.json: variants.ctr.avx10_512.znver4: "
                                                "bad value 3 for UNROLL; valid: 1, 2, 4, 8, 16"):
            generate(mode, isa, resolve(mode, isa, {}), SYSV)
        self.write({"ctr": {"avx10_512": {"zen9": {"UNROLL": 4}}}})
        with self.assertRaisesRegex(UsageError, "unknown uarch 'zen9'; valid: default \\(a "
                                                "CPU in no row of generator/uarch.py\\), "
                                                "znver4, znver5, sapphirerapids"):
            generate(mode, isa, resolve(mode, isa, {}), SYSV)

    def test_the_default_entry_is_a_variant_like_a_uarchs(self):
        # "default": the knobs of a CPU in no row of generator/uarch.py, listed first
        # (the runtime's id 0) and shared with a uarch of the same knobs
        self.write({"ctr": {"avx10_512": {"znver5": {"UNROLL": 4, "TAIL": 2},
                                          "default": {"UNROLL": 4, "TAIL": 2},
                                          "znver4": {"TAILCTR": "bytes"}}}})
        mode, isa = get_mode("ctr"), get_isa("avx10_512")
        output = build(mode, isa, resolve(mode, isa, {}), SYSV)
        self.assertEqual([(v.name, v.uarches) for v in output.variants],
                         [("tail2_unroll4", ["default", "znver5"]),
                          ("tailctrbytes", ["znver4"])])
        self.assertIn("# variant _tail2_unroll4: TAIL=2 UNROLL=4 (for default, znver5;",
                      output.texts["S"])
        self.assertIn("# (default: a CPU in no row of generator/uarch.py)", output.texts["S"])
        names = self.globals_of(output.texts["S"])
        self.assertIn("aesgen_ctr_crypt_avx10_512_tail2_unroll4", names)
        self.assertIn("aesgen_ctr_crypt_avx10_512", names)

    def test_no_variants_without_entries(self):
        self.write({})
        for isa_name in ("aesni_avx", "avx10_512"):
            mode, isa = get_mode("gcm"), get_isa(isa_name)
            text = generate(mode, isa, resolve(mode, isa, {}), SYSV)["S"]
            self.assertNotIn("# variant", text)


if __name__ == "__main__":
    unittest.main()
