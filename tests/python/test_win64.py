# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The Windows x64 flavour (generator/printers/win64.py, abi.WIN64): every ISA x mode
file assembles with `nasm -f win64`; every global function has one RUNTIME_FUNCTION in
.pdata (three image-relative relocations) whose UNWIND_INFO in .xdata decodes to the
prologue the file shows (their code offsets against the machine code:
test_win64_offsets); the Win64 argument registers and stack arguments; the lint refuses
what Win64 unwind codes cannot describe.  Running the code (known answers,
the ABI thunk, the unwind test) is tests/win, under wine.
"""

import os
import re
import struct
import subprocess
import sys
import tempfile
import unittest

from repo import REPO, have

from generator.abi import SYSV, WIN64
from generator.errors import TemplateError
from generator.flavours import FLAVOURS
from generator.isa import get_isa
from generator.knobs import resolve
from generator.lint import lint
from generator.modes import generated_pairs, get_mode
from generator.parse import parse
from generator.render import generate

WIN = FLAVOURS["win"]
REGISTER_NUMBERS = ("rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                    "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15")


def win_text(mode, isa):
    knobs = resolve(mode, isa, {})
    return generate(mode, isa, knobs, WIN64, printers={"asm": WIN.printer})["asm"]


def sections(obj):
    """{name: bytes} of a COFF object, read with objdump -s."""
    out = subprocess.run(["objdump", "-s", obj], capture_output=True, text=True,
                         check=True).stdout
    result, current = {}, None
    for line in out.splitlines():
        match = re.match(r"Contents of section (\S+):", line)
        if match:
            current = match.group(1)
            result[current] = b""
        elif current and re.match(r"^ [0-9a-f]{4,} ", line):
            words = line[1:].split("  ")[0].split()[1:]
            result[current] += bytes.fromhex("".join(words))
    return result


def prologue_ops(text, name):
    """The prologue of function `name` as the text shows it: [('push', reg) |
    ('alloc', n) | ('save', xmm, offset)]."""
    lines = text.split(f"\n{name}:\n", 1)[1].splitlines()
    ops = []
    for line in lines[1:]:
        fields = line.split(";")[0].split()
        if not fields or fields[0].endswith(":"):
            continue
        if fields[0] == "push":
            ops.append(("push", fields[1]))
        elif fields[0] == "sub" and fields[1] == "rsp,":
            ops.append(("alloc", int(fields[2])))
        elif fields[0] in ("vmovdqa", "movdqa") and "[rsp" in line:
            offset = re.search(r"\[rsp(?: \+ (\d+))?\]", line).group(1)
            ops.append(("save", int(fields[-1][3:]), int(offset or 0)))
        elif fields[0] == "mov" and "[rsp" in line:
            continue
        else:
            break
    return ops


def unwind_info(xdata, offset):
    """The UNWIND_INFO at offset: (SizeOfProlog, [(CodeOffset, operation)] in prologue
    order, its size in bytes); operations as prologue_ops writes them."""
    version_flags, prologue_size, count, frame = xdata[offset:offset + 4]
    assert version_flags == 1 and frame == 0, (version_flags, frame)
    slots = [xdata[offset + 4 + 2 * i: offset + 6 + 2 * i] for i in range(count)]
    codes, i = [], 0
    while i < count:
        code_offset, op_info = slots[i]
        op, info = op_info & 15, op_info >> 4
        if op == 0:
            codes.append((code_offset, ("push", REGISTER_NUMBERS[info])))
            i += 1
        elif op == 2:
            codes.append((code_offset, ("alloc", 8 * info + 8)))
            i += 1
        elif op == 1 and info == 0:
            codes.append((code_offset, ("alloc", 8 * struct.unpack("<H", slots[i + 1])[0])))
            i += 2
        elif op == 8:
            codes.append((code_offset,
                          ("save", info, 16 * struct.unpack("<H", slots[i + 1])[0])))
            i += 2
        else:
            raise AssertionError(f"unexpected unwind code {op_info:#x}")
    return prologue_size, list(reversed(codes)), 4 + 2 * (count + count % 2)


def decode_unwind_codes(xdata, offset):
    """The operations of the UNWIND_INFO at offset, in prologue order, and its size."""
    _prologue_size, codes, size = unwind_info(xdata, offset)
    return [operation for _code_offset, operation in codes], size


@unittest.skipUnless(have("nasm") and have("objdump"), "nasm and objdump needed")
class Win64Files(unittest.TestCase):
    def test_every_file_assembles_with_its_unwind_tables(self):
        with tempfile.TemporaryDirectory() as tmp:
            for isa, mode in generated_pairs():
                with self.subTest(isa=isa.name, mode=mode.name):
                    text = win_text(mode, isa)
                    self.assertNotIn(":function", text)
                    self.assertNotIn(".note", text)
                    source = os.path.join(tmp, f"{isa.name}-{mode.name}.asm")
                    obj = source[:-4] + ".obj"
                    with open(source, "w") as handle:
                        handle.write(text)
                    subprocess.run(["nasm", "-f", "win64", "-o", obj, source], check=True)
                    names = re.findall(r"^\tglobal (\S+)$", text, re.M)
                    self.assertTrue(names)
                    # a second name of a function (a variant's unchanged one: its label
                    # right before the function's own) shares its unwind entry
                    aliases = set(re.findall(r"^(\S+):\n\S+:\n\tendbr64", text, re.M))
                    self.assertLessEqual(aliases, set(names))
                    names = [n for n in names if n not in aliases]
                    data = sections(obj)
                    self.assertEqual(len(data[".pdata"]), 12 * len(names))
                    relocations = subprocess.run(
                        ["objdump", "-r", "-j", ".pdata", obj], capture_output=True,
                        text=True, check=True).stdout
                    self.assertEqual(relocations.count("IMAGE_REL_AMD64_ADDR32NB"),
                                     3 * len(names))
                    offset = 0
                    for name in names:
                        ops, size = decode_unwind_codes(data[".xdata"], offset)
                        self.assertEqual(ops, prologue_ops(text, name), name)
                        offset += size

    def test_arguments_and_stack_arguments_follow_win64(self):
        mode, isa = get_mode("ctr"), get_isa("avx10_512")
        text = win_text(mode, isa)
        self.assertIn("KEY=rcx, DST=rdx, SRC=r8, LEN=r9", text)
        ops = prologue_ops(text, "aesgen_ctr_crypt_avx10_512")
        pushes = sum(1 for op in ops if op[0] == "push")
        # the fifth and sixth arguments: above the return address and the shadow space
        body = text.split("\naesgen_ctr_crypt_avx10_512:\n", 1)[1]
        self.assertIn(f"qword [rsp + {40 + 8 * pushes}]", body.split("sub")[0])
        self.assertIn(f"qword [rsp + {48 + 8 * pushes}]", body.split("sub")[0])
        saves = [op for op in ops if op[0] == "save"]
        self.assertEqual([op[1] for op in saves], list(range(6, 16)))
        allocation = [op[1] for op in ops if op[0] == "alloc"][0]
        self.assertEqual((8 + 8 * pushes + allocation) % 16, 0, "the saves are aligned")

    def test_show_prints_the_flavour(self):
        command = [sys.executable, "-m", "generator", "show", "--os", "win", "--isa",
                   "vaes_avx2", "--mode", "xts"]
        result = subprocess.run(command + ["--syntax", "asm"], cwd=REPO, capture_output=True,
                                text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, win_text(get_mode("xts"), get_isa("vaes_avx2")))
        result = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
        self.assertEqual(result.returncode, 2)
        self.assertIn("--os win is a NASM (.asm) flavour; valid with --syntax asm", result.stderr)

    def test_sysv_saves_no_vector_register(self):
        mode, isa = get_mode("gcm"), get_isa("avx10_512")
        text = generate(mode, isa, resolve(mode, isa, {}), SYSV)["asm"]
        self.assertNotIn("vmovdqa         oword [rsp", text)


FUNCTION = """.function f
f:
endbr64
{prologue}
{body}
.mca_begin m, 16
.mca_end
vzeroupper
{epilogue}
ret
{restore}
"""


class Win64Lints(unittest.TestCase):
    def check(self, body="nop", prologue="", epilogue="", abi=WIN64):
        restore = ".cfi_restore" if epilogue else ""
        lint(parse(FUNCTION.format(prologue=prologue, body=body, epilogue=epilogue,
                                   restore=restore)), get_isa("avx10_512"), abi)

    SAVED = ("push rsi\n.cfi_push rsi\nsub rsp, 24\n.cfi_adjust 24\n"
             "vmovdqa xmmword [rsp], xmm6\n.cfi_savexmm xmm6, 0")
    RESTORED = ".cfi_remember\nadd rsp, 24\n.cfi_adjust -24\npop rsi\n.cfi_pop rsi"

    def test_saved_register_passes(self):
        self.check("vpxord zmm6, zmm6, zmm1", self.SAVED, self.RESTORED)

    def test_unsaved_callee_saved_vector_is_refused(self):
        self.check("vpxord zmm1, zmm1, zmm5")
        with self.assertRaisesRegex(TemplateError, "xmm7.*callee-saved"):
            self.check("vpxord ymm7, ymm7, ymm1", self.SAVED, self.RESTORED)
        self.check("vpxord ymm7, ymm7, ymm1", abi=SYSV)

    def test_epilogue_must_undo_the_prologue(self):
        # each refused for its own reason
        for epilogue, reason in (
                (".cfi_remember\npop rsi\n.cfi_pop rsi", "needs 'add"),           # frame kept
                (".cfi_remember\nadd rsp, 16\n.cfi_adjust -16\npop rsi\n.cfi_pop rsi",
                 "needs 'add"),                                                 # part of it
                (".cfi_remember\npop rsi\n.cfi_pop rsi\nadd rsp, 24\n.cfi_adjust -24",
                 "needs 'add"),                                                 # order
                (".cfi_remember\nadd rsp, 24\n.cfi_adjust -24\npop rsi",
                 "needs 'cfi_pop rsi'"),                                        # no CFI
                ("add rsp, 24\n.cfi_adjust -24\npop rsi\n.cfi_pop rsi",
                 "without .cfi_remember"),                                      # no remember
                ("", "needs 'add")):                                            # nothing
            with self.subTest(epilogue=epilogue), self.assertRaisesRegex(TemplateError, reason):
                self.check("nop", self.SAVED, epilogue)

    def test_prologue_steps_need_their_directives(self):
        for prologue in ("push rsi", "push rsi\n.cfi_push rsi\nsub rsp, 24",
                         "push rsi\n.cfi_push rsi\nsub rsp, 24\n.cfi_adjust 24\n"
                         "vmovdqa xmmword [rsp], xmm6"):
            with self.subTest(prologue=prologue), self.assertRaises(TemplateError):
                self.check("nop", prologue, self.RESTORED)

    def test_no_red_zone(self):
        self.check("vmovdqu xmmword [rsp - 16], xmm0", abi=SYSV)
        with self.assertRaisesRegex(TemplateError, "red zone"):
            self.check("vmovdqu xmmword [rsp - 16], xmm0")

    def test_save_outside_the_prologue_is_refused(self):
        with self.assertRaises(TemplateError):
            self.check("nop\n.cfi_savexmm xmm6, 0", self.SAVED, self.RESTORED)


if __name__ == "__main__":
    unittest.main()
