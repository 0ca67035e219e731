# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Every generated function, walked path by path in its machine code.

The generator's lints (generator/lint.py) check the neutral assembly a template wrote;
this checks what the assembler made of it, from the objects `make lib` builds of
gen/<isa>/<mode>.S (the ELF flavour the library links), with objdump and readelf:

- each global function starts with endbr64 and has one FDE covering exactly its bytes;
- every jump names its target (no indirect jmp or call: IBT would need endbr64 there)
  and stays inside the function; there is no call;
- following every path from the entry (jumps and fall-through), the stack depth is the
  same wherever paths meet, every ret is reached at depth 0, and at every instruction
  the DWARF CFA (.eh_frame, readelf's interpreted rows) is rsp + 8 + that depth, so a
  debugger, profiler or unwinder sees the caller from anywhere in the function (code
  placed after an epilogue included);
- no path reaches ret with a ymm/zmm register written and no vzeroupper after it;
- a callee-saved register (System V: rbx, rbp, r12-r15) is written only by a function
  that pushed it, and no memory below rsp - 128 (the red zone) is touched;
- every instruction is on some path (no dead code).

The build directory is AESGEN_BUILD, else build/ (tests/run.py builds it first).
"""

import bisect
import json
import os
import re
import subprocess
import unittest

from repo import BUILD, GEN, have  # (first: puts the repository on sys.path)
from generator.parse import split_operands

SYSV_CALLEE_SAVED = {"rbx", "rbp", "r12", "r13", "r14", "r15"}
RED_ZONE = 128

# The 64-bit register each general-register name writes.
FULL_REGISTER = {}
for letter in "abcd":
    for name in (f"r{letter}x", f"e{letter}x", f"{letter}x", f"{letter}l", f"{letter}h"):
        FULL_REGISTER[name] = f"r{letter}x"
for base in ("si", "di", "bp", "sp"):
    for name in (f"r{base}", f"e{base}", base, f"{base}l"):
        FULL_REGISTER[name] = f"r{base}"
for number in range(8, 16):
    for name in (f"r{number}", f"r{number}d", f"r{number}w", f"r{number}b"):
        FULL_REGISTER[name] = f"r{number}"

# Mnemonics whose first operand is only read.
READS_ONLY = {"cmp", "test", "push", "bt", "ptest", "vptest", "kortestb", "kortestw",
              "kortestd", "kortestq", "ktestb", "ktestw", "ktestd", "ktestq"}
PREFIXES = {"notrack", "bnd", "rep", "repz", "repnz", "lock", "ds", "cs", "data16",
            "{disp32}"}


def tool_output(*argv):
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def generated_objects():
    """(gen-relative .S path, object path) of every file gen/manifest.json lists."""
    with open(os.path.join(GEN, "manifest.json"), encoding="utf-8") as handle:
        entries = json.load(handle)["generated"]
    paths = [e["files"]["S"]["path"] for e in entries]
    return [(rel, os.path.join(BUILD, "obj", "gen", rel[:-2] + ".o")) for rel in paths]


def global_functions(obj):
    """{name: (address, size)} of the global FUNC symbols."""
    functions = {}
    for line in tool_output("readelf", "-sW", obj).splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[3] == "FUNC" and fields[4] == "GLOBAL":
            functions[fields[7]] = (int(fields[1], 16), int(fields[2]))
    return functions


def instructions(obj):
    """[(address, mnemonic, operand text)] of .text in Intel syntax, prefixes dropped."""
    out = []
    text = tool_output("objdump", "-d", "-w", "-M", "intel", "--no-show-raw-insn",
                       "-j", ".text", obj)
    for line in text.splitlines():
        match = re.match(r"^\s*([0-9a-f]+):\s+(.*)$", line)
        if not match:
            continue
        words = match.group(2).split("#")[0].split()
        while words and words[0] in PREFIXES:
            words = words[1:]
        if words:
            out.append((int(match.group(1), 16), words[0], " ".join(words[1:])))
    return out


def cfa_rows(obj):
    """({FDE start: FDE end}, sorted [(address, CFA offset from rsp or the rule's text)])
    from readelf's interpreted .eh_frame."""
    fdes, rows, in_fde = {}, [], False
    for line in tool_output("readelf", "--debug-dump=frames-interp", "-W", obj).splitlines():
        fields = line.split()
        if " CIE" in line or " FDE " in line:
            match = re.search(r"FDE cie=\w+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", line)
            in_fde = match is not None
            if match:
                fdes[int(match.group(1), 16)] = int(match.group(2), 16)
        elif in_fde and len(fields) >= 2 and re.fullmatch(r"[0-9a-f]{8,16}", fields[0]):
            offset = re.fullmatch(r"rsp\+(\d+)", fields[1])
            rows.append((int(fields[0], 16), int(offset.group(1)) if offset else fields[1]))
    rows.sort(key=lambda row: row[0])
    return fdes, rows


def direct_target(text):
    match = re.match(r"^([0-9a-f]+) <", text)
    return int(match.group(1), 16) if match else None


def walk(name, start, size, code, fdes, rows):
    """The problems found in one function (a list of strings)."""
    end = start + size
    problems = []
    body = [i for i in code if start <= i[0] < end]
    index = {address: n for n, (address, _, _) in enumerate(body)}
    if not body or body[0][1] != "endbr64":
        problems.append("does not start with endbr64")
    if fdes.get(start) != end:
        problems.append(f"its FDE covers {start:#x}..{fdes.get(start, 0):#x}, not its "
                        f"{size} bytes")
    # the function's CFI rows: the CFA in effect at an address is the last row at or before it
    own = [r for r in rows if start <= r[0] < end]
    row_addresses = [r[0] for r in own]

    def cfa_at(address):
        at = bisect.bisect_right(row_addresses, address) - 1
        return own[at][1] if at >= 0 else 8     # no row of its own: the CIE's rsp+8

    pushed, written = set(), {}
    state = {0: (0, False)}         # instruction index -> (stack depth, upper state dirty)
    work = [0]
    while work and body:
        n = work.pop()
        depth, dirty = state[n]
        address, mnemonic, text = body[n]
        ops = split_operands(text)
        where = f"{address - start:#x} ({mnemonic} {text})".rstrip()
        cfa = cfa_at(address)
        if cfa != 8 + depth:
            problems.append(f"CFA rsp+{cfa} where the stack holds {8 + depth} bytes at {where}")
        if re.search(r"\b[yz]mm\d+\b", text):
            dirty = True
        if mnemonic in ("vzeroupper", "vzeroall"):
            dirty = False
        for match in re.finditer(r"\[rsp(?:([+-])0x([0-9a-f]+))?\]", text):
            disp = int(match.group(2), 16) * (-1 if match.group(1) == "-" else 1) \
                if match.group(2) else 0
            if disp < -RED_ZONE:
                problems.append(f"memory below the red zone at {where}")
        if ops and mnemonic not in READS_ONLY and not mnemonic.startswith("j"):
            register = FULL_REGISTER.get(ops[0])
            if register:
                written.setdefault(register, where)
        after = depth
        if mnemonic == "push":
            after += 8
            pushed.add(FULL_REGISTER.get(ops[0], ops[0]))
        elif mnemonic == "pop":
            after -= 8
        elif mnemonic in ("sub", "add") and ops and ops[0] == "rsp":
            amount = int(ops[1], 0)
            after += amount if mnemonic == "sub" else -amount
        elif ops and ops[0] == "rsp" and mnemonic not in READS_ONLY:
            problems.append(f"rsp changed in a way this walk does not follow at {where}")
        successors = []
        if mnemonic == "ret":
            if depth != 0:
                problems.append(f"ret with {depth} bytes still on the stack at {where}")
            if dirty:
                problems.append(f"ret with ymm/zmm state and no vzeroupper at {where}")
        elif mnemonic == "call":
            problems.append(f"a call at {where}")
            if n + 1 < len(body):
                successors.append(n + 1)
        elif mnemonic.startswith("j"):
            target = direct_target(text)
            if target is None:
                problems.append(f"an indirect jump at {where}")
            elif not start <= target < end or target not in index:
                problems.append(f"a jump out of the function at {where}")
            else:
                successors.append(index[target])
            if mnemonic != "jmp" and n + 1 < len(body):
                successors.append(n + 1)
        elif mnemonic not in ("ud2", "int3") and n + 1 < len(body):
            successors.append(n + 1)
        for s in successors:
            if s not in state:
                state[s] = (after, dirty)
                work.append(s)
            elif state[s][0] != after:
                problems.append(f"paths meet at {body[s][0] - start:#x} with {state[s][0]} "
                                f"and {after} bytes on the stack")
            elif dirty and not state[s][1]:
                state[s] = (after, True)
                work.append(s)
    dead = [body[n] for n in range(len(body)) if n not in state and body[n][1] not in ("nop", "int3")]
    if dead:
        problems.append(f"{len(dead)} instructions on no path, the first at "
                        f"{dead[0][0] - start:#x} ({dead[0][1]} {dead[0][2]})")
    for register, where in sorted(written.items()):
        if register in SYSV_CALLEE_SAVED and register not in pushed:
            problems.append(f"writes callee-saved {register} without saving it, at {where}")
    return problems


@unittest.skipUnless(have("objdump") and have("readelf"), "binutils not installed")
class GeneratedCodePaths(unittest.TestCase):
    def test_every_function_on_every_path(self):
        pairs = generated_objects()
        self.assertTrue(pairs, "gen/manifest.json lists no files")
        checked = 0
        for rel, obj in pairs:
            with self.subTest(file=rel):
                self.assertTrue(os.path.exists(obj), f"{obj} missing: run `make lib` first")
                functions = global_functions(obj)
                self.assertTrue(functions, f"{rel}: no global functions")
                code = instructions(obj)
                fdes, rows = cfa_rows(obj)
                for name, (start, size) in sorted(functions.items()):
                    checked += 1
                    with self.subTest(function=name):
                        self.assertEqual(walk(name, start, size, code, fdes, rows), [],
                                         f"{rel}: {name}")
        self.assertGreater(checked, len(pairs))


class WalkerCatches(unittest.TestCase):
    """The walker on hand-made instruction lists: each fault it exists to find."""

    START = 0x100

    def run_walk(self, listing, rows, size=None):
        code, address = [], self.START
        for mnemonic, text in listing:
            code.append((address, mnemonic, text.format(**{f"a{i}": f"{self.START + 4 * i:x} <x>"
                                                          for i in range(len(listing))})))
            address += 4
        size = size if size is not None else 4 * len(listing)
        return walk("f", self.START, size, code, {self.START: self.START + size},
                    [(self.START + 4 * i, cfa) for i, cfa in rows])

    def test_a_right_function_passes(self):
        listing = [("endbr64", ""), ("push", "rbx"), ("xor", "ebx,ebx"), ("jmp", "{a6}"),
                   ("pop", "rbx"), ("ret", ""),
                   ("vpxor", "ymm0,ymm0,ymm0"), ("vzeroupper", ""), ("jmp", "{a4}")]
        rows = [(0, 8), (2, 16), (5, 8), (6, 16)]
        self.assertEqual(self.run_walk(listing, rows), [])

    def test_the_caller_frame_after_an_epilogue(self):
        # the body placed after the ret, with the epilogue's rows still in effect
        listing = [("endbr64", ""), ("push", "rbx"), ("jmp", "{a5}"),
                   ("pop", "rbx"), ("ret", ""),
                   ("xor", "ebx,ebx"), ("jmp", "{a3}")]
        rows = [(0, 8), (2, 16), (4, 8)]
        problems = self.run_walk(listing, rows)
        self.assertTrue(any("CFA rsp+8 where the stack holds 16" in p for p in problems),
                        problems)

    def test_ret_with_upper_state(self):
        listing = [("endbr64", ""), ("vpxor", "ymm1,ymm1,ymm1"), ("ret", "")]
        problems = self.run_walk(listing, [(0, 8)])
        self.assertTrue(any("no vzeroupper" in p for p in problems), problems)

    def test_a_path_around_vzeroupper(self):
        listing = [("endbr64", ""), ("vpxor", "zmm1,zmm1,zmm1"), ("jne", "{a4}"),
                   ("vzeroupper", ""), ("ret", "")]
        problems = self.run_walk(listing, [(0, 8)])
        self.assertTrue(any("no vzeroupper" in p for p in problems), problems)

    def test_indirect_jump_call_and_escape(self):
        listing = [("endbr64", ""), ("je", "{a3}"), ("jmp", "rax"),
                   ("call", "{a0}"), ("jmp", "0 <elsewhere>")]
        problems = self.run_walk(listing, [(0, 8)])
        for what in ("an indirect jump", "a call", "a jump out of the function"):
            self.assertTrue(any(what in p for p in problems), (what, problems))

    def test_unbalanced_stack_and_meeting_paths(self):
        listing = [("endbr64", ""), ("push", "r12"), ("je", "{a4}"), ("pop", "r12"),
                   ("ret", "")]
        problems = self.run_walk(listing, [(0, 8), (2, 16), (4, 8)])
        self.assertTrue(any("paths meet" in p for p in problems), problems)
        self.assertTrue(any("still on the stack" in p for p in problems), problems)

    def test_callee_saved_red_zone_dead_code_endbr(self):
        listing = [("xor", "r13d,r13d"), ("mov", "QWORD PTR [rsp-0x88],rax"), ("ret", ""),
                   ("nop", ""), ("add", "eax,0x1")]
        problems = self.run_walk(listing, [(0, 8)])
        for what in ("endbr64", "callee-saved r13", "below the red zone",
                     "1 instructions on no path"):
            self.assertTrue(any(what in p for p in problems), (what, problems))

    def test_fde_must_cover_the_function(self):
        code = [(self.START, "endbr64", ""), (self.START + 4, "ret", "")]
        problems = walk("f", self.START, 8, code, {self.START: self.START + 4},
                        [(self.START, 8)])
        self.assertTrue(any("FDE covers" in p for p in problems), problems)


if __name__ == "__main__":
    unittest.main()
