# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The Win64 unwind data's code offsets against the machine code.

test_win64 checks that each function's unwind codes name the operations of the prologue
the source text shows; this checks the numbers Windows reads them by against the bytes
nasm made.  For every ISA x mode file (the Win64 flavour, nasm -f win64) and every
function with a RUNTIME_FUNCTION, from the object (objdump -d, -t, -r, -s):

- the .pdata entry (relocations against .text and .xdata, addends in place) begins at
  the function's symbol and ends at the end label the printer emits (L.seh_NAME_end),
  the end of an instruction; every instruction of .text lies in exactly one entry's
  range or is padding (int3, nop), so the entries cover exactly the functions' bytes;
  its UNWIND_INFO is the function's (L.seh_NAME_info);
- the prologue's steps, found in the disassembly (after endbr64: a push of a general
  register, sub rsp, a (v)movdqa/(v)movaps store of xmm6-xmm15 to [rsp + n]; the
  stack-argument loads and stack probes between them are no steps), are the unwind
  codes one for one: each UWOP_PUSH_NONVOL's register, UWOP_ALLOC_SMALL/LARGE's size
  and UWOP_SAVE_XMM128's register and offset are the instruction's operands, and each
  code's CodeOffset is where its instruction ends (from the function's start);
  SizeOfProlog is where the last step ends;
- after the prologue nothing moves rsp but an epilogue of the shape Windows recognizes
  (add rsp, the allocation; the pops in reverse; ret), all stack changes being in the
  prologue.

Why: for an address inside a prologue, Windows undoes only the codes whose CodeOffset
the address has passed, and it takes an address in neither a prologue nor an epilogue
to have the whole frame.  An offset one byte out is seen only by an unwind from that
one instruction (a profiler's sample, an exception from another thread's suspension),
which tests/win/test_unwind.c (single-stepping under wine) reaches only where wine
runs; this needs nasm and objdump.
"""

import os
import re
import struct
import subprocess
import tempfile
import unittest
from collections import namedtuple

from repo import have  # (first: puts the repository on sys.path)
from generator.modes import generated_pairs
from generator.parse import split_operands
from test_code_paths import FULL_REGISTER, PREFIXES, READS_ONLY, tool_output
from test_win64 import REGISTER_NUMBERS, sections, unwind_info, win_text

Instruction = namedtuple("Instruction", "start end mnemonic operands")

PADDING = {"int3", "nop"}       # what `align` fills the gaps between functions with
SAVE_MOVES = {"movdqa", "vmovdqa", "movaps", "vmovaps"}
CALLEE_SAVED_XMM = range(6, 16)
# Instructions that move rsp whatever their operands.  (call is not among them: rsp is
# back when it returns, and test_code_paths refuses calls in generated code anyway.)
MOVES_RSP = {"push", "pop", "pushf", "pushfq", "popf", "popfq", "enter", "leave"}
RSP_SLOT = re.compile(r"^XMMWORD PTR \[rsp(?:\+0x([0-9a-f]+))?\]$")


def disassembly(obj):
    """[Instruction] of .text in Intel syntax: start and end offsets (the bytes shown),
    the mnemonic without prefixes and the operands (a jump's <symbol> dropped)."""
    code = []
    for line in tool_output("objdump", "-d", "-w", "-M", "intel", "-j", ".text",
                            obj).splitlines():
        match = re.match(r"^\s*([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t(.*)$", line)
        if not match:
            continue
        start = int(match.group(1), 16)
        words = re.sub(r"<[^>]*>", "", match.group(3).split("#")[0]).split()
        while words and words[0] in PREFIXES:
            words = words[1:]
        code.append(Instruction(start, start + len(match.group(2).split()), words[0],
                                split_operands(" ".join(words[1:]))))
    return code


def symbol_table(obj, section_names):
    """({name: (section, value)}, the names of the global symbols) from objdump -t
    (COFF: a section's own symbol, named as the section, gives its number; storage
    class 2 is external)."""
    rows = []
    for line in tool_output("objdump", "-t", obj).splitlines():
        match = re.match(r"^\[\s*\d+\]\(sec\s+(-?\d+)\).*\(scl\s+(\d+)\) \(nx \d+\) "
                         r"0x([0-9a-f]+) (\S+)$", line)
        if match:
            rows.append((int(match.group(1)), int(match.group(2)), int(match.group(3), 16),
                         match.group(4)))
    section_of = {number: name for number, _class, _value, name in rows
                  if name in section_names}
    symbols = {name: (section_of.get(number), value) for number, _class, value, name in rows}
    return symbols, {name for _number, storage, _value, name in rows if storage == 2}


def pdata_entries(obj, pdata, symbols):
    """[(begin, end, unwind info)] of .pdata, each a (section, offset) after relocation:
    the symbol objdump -r names plus the addend stored in place."""
    relocations = {}
    for line in tool_output("objdump", "-r", "-j", ".pdata", obj).splitlines():
        match = re.match(r"^([0-9a-f]+) (\S+)\s+(\S+)$", line)
        if match:
            relocations[int(match.group(1), 16)] = (match.group(2), match.group(3))
    entries = []
    for entry in range(0, len(pdata), 12):
        fields = []
        for offset in (entry, entry + 4, entry + 8):
            kind, symbol = relocations[offset]
            # image-relative: the linker writes the address minus the image base
            assert kind == "IMAGE_REL_AMD64_ADDR32NB", (offset, kind)
            section, value = symbols[symbol]
            fields.append((section, value + struct.unpack_from("<I", pdata, offset)[0]))
        entries.append(tuple(fields))
    return entries


def stack_step(instruction):
    """The unwind operation an instruction is, as unwind_info writes it, or None."""
    mnemonic, operands = instruction.mnemonic, instruction.operands
    if mnemonic == "push" and operands[0] in REGISTER_NUMBERS:
        return ("push", operands[0])
    if mnemonic == "sub" and operands[0] == "rsp" and operands[1].startswith("0x"):
        return ("alloc", int(operands[1], 16))
    if mnemonic in SAVE_MOVES and len(operands) == 2:
        slot = RSP_SLOT.match(operands[0])
        register = re.fullmatch(r"xmm(\d+)", operands[1])
        if slot and register and int(register.group(1)) in CALLEE_SAVED_XMM:
            return ("save", int(register.group(1)), int(slot.group(1) or "0", 16))
    return None


def between_steps(instruction):
    """A prologue instruction that is no unwind step: a stack argument loaded into a
    register, or a stack probe (a store of 0 into the new frame)."""
    operands = instruction.operands
    return instruction.mnemonic == "mov" and len(operands) == 2 and (
        (operands[0] in REGISTER_NUMBERS and operands[1].startswith("QWORD PTR [rsp"))
        or (operands[0].startswith("QWORD PTR [rsp") and operands[1] == "0x0"))


def prologue_steps(code, index):
    """The steps of the prologue that starts at code[index]: ([(end offset, operation)],
    the index of the body's first instruction)."""
    if code[index].mnemonic == "endbr64":
        index += 1
    steps = []
    while index < len(code):
        step = stack_step(code[index])
        if step:
            steps.append((code[index].end, step))
        elif not between_steps(code[index]):
            break
        index += 1
    return steps, index


def moves_rsp(instruction):
    operands = instruction.operands
    return instruction.mnemonic in MOVES_RSP or (
        bool(operands) and FULL_REGISTER.get(operands[0]) == "rsp"
        and instruction.mnemonic not in READS_ONLY)


def is_epilogue(code, index, pushed, allocation):
    """Whether code[index:] starts with the epilogue Windows recognizes for this frame:
    add rsp, the allocation (if any); the pushed registers popped in reverse; ret."""
    expected = [("add", ["rsp", hex(allocation)])] if allocation else []
    expected += [("pop", [register]) for register in reversed(pushed)] + [("ret", [])]
    found = [(i.mnemonic, i.operands) for i in code[index:index + len(expected)]]
    return found == expected


def steps_text(steps, start=0):
    return ", ".join(f"{' '.join(map(str, operation))} @{offset - start}"
                     for offset, operation in steps)


def function_problems(name, begin, end, code, index, xdata, info):
    """What is wrong with one function's unwind data (a list of strings); code[index]
    is its first instruction, [begin, end) its .pdata range, info its UNWIND_INFO's
    offset in .xdata."""
    problems = []
    steps, body = prologue_steps(code, index)
    prologue_size, codes, _size = unwind_info(xdata, info)
    found = [operation for _offset, operation in steps]
    if [operation for _offset, operation in codes] != found:
        problems.append(f"{name}: unwind codes [{steps_text(codes)}], but the prologue "
                        f"does [{steps_text(steps, begin)}]")
    else:
        for (code_offset, operation), (step_end, _operation) in zip(codes, steps):
            if code_offset != step_end - begin:
                problems.append(f"{name}: the code of '{' '.join(map(str, operation))}' "
                                f"has CodeOffset {code_offset}; its instruction ends at "
                                f"{step_end - begin}")
    prologue_end = steps[-1][0] - begin if steps else 0
    if prologue_size != prologue_end:
        problems.append(f"{name}: SizeOfProlog {prologue_size}; the prologue's last step "
                        f"ends at {prologue_end}")
    pushed = [operation[1] for operation in found if operation[0] == "push"]
    allocation = sum(operation[1] for operation in found if operation[0] == "alloc")
    while body < len(code) and code[body].start < end:
        if moves_rsp(code[body]) or code[body].mnemonic == "ret":
            if is_epilogue(code, body, pushed, allocation):
                body += len(pushed) + bool(allocation) + 1
                continue
            instruction = code[body]
            problems.append(f"{name}+{instruction.start - begin}: '{instruction.mnemonic} "
                            f"{','.join(instruction.operands)}' moves rsp after the "
                            "prologue, outside an epilogue "
                            f"(add rsp,{hex(allocation)}; pop {pushed[::-1]}; ret)")
        body += 1
    return problems


def file_problems(text, directory, stem):
    """What is wrong with one Win64 file's unwind data against its object's code."""
    source = os.path.join(directory, stem + ".asm")
    obj = os.path.join(directory, stem + ".obj")
    with open(source, "w") as handle:
        handle.write(text)
    subprocess.run(["nasm", "-f", "win64", "-o", obj, source], check=True)
    data = sections(obj)
    symbols, global_names = symbol_table(obj, data)
    code = disassembly(obj)
    starts = {instruction.start: i for i, instruction in enumerate(code)}
    functions = {name for name in global_names if symbols[name][0] == ".text"}
    problems, ranges = [], []
    for begin, end, info in pdata_entries(obj, data[".pdata"], symbols):
        if begin[0] != ".text" or end[0] != ".text" or info[0] != ".xdata":
            problems.append(f"a .pdata entry in the wrong sections: {begin} {end} {info}")
            continue
        begin, end, info = begin[1], end[1], info[1]
        # the function is the name at begin with an end label (an alias, a second name
        # at the same address, has none)
        names = [name for name in functions if symbols[name] == (".text", begin)
                 and f"L.seh_{name}_end" in symbols]
        if len(names) != 1:
            problems.append(f"the .pdata entry at {begin:#x} begins at {names or 'no'} "
                            "function with an end label")
            continue
        name = names[0]
        if symbols[f"L.seh_{name}_end"] != (".text", end):
            problems.append(f"{name}: .pdata ends at {end:#x}, its end label is at "
                            f"{symbols[f'L.seh_{name}_end'][1]:#x}")
        if symbols.get(f"L.seh_{name}_info") != (".xdata", info):
            problems.append(f"{name}: .pdata's unwind info at {info:#x} is not "
                            f"L.seh_{name}_info")
        ranges.append((begin, end))
        if end not in starts and end != code[-1].end:
            problems.append(f"{name}: .pdata's [{begin:#x}, {end:#x}) ends inside an "
                            "instruction")
        problems += function_problems(name, begin, end, code, starts[begin],
                                      data[".xdata"], info)
    begins = {begin for begin, _end in ranges}
    for function in sorted(functions):
        if symbols[function][1] not in begins:
            problems.append(f"{function}: no .pdata entry begins at it")
    # every instruction is one function's (padding is no function's)
    for instruction in code:
        owners = sum(1 for begin, end in ranges if begin <= instruction.start < end)
        if owners > 1 or (owners == 0 and instruction.mnemonic not in PADDING):
            problems.append(f".text+{instruction.start:#x} '{instruction.mnemonic}' lies in "
                            f"{owners} .pdata ranges")
    return problems


@unittest.skipUnless(have("nasm") and have("objdump"), "nasm and objdump needed")
class Win64UnwindOffsets(unittest.TestCase):
    def test_unwind_offsets_match_the_machine_code(self):
        with tempfile.TemporaryDirectory() as tmp:
            for isa, mode in generated_pairs():
                with self.subTest(isa=isa.name, mode=mode.name):
                    problems = file_problems(win_text(mode, isa), tmp,
                                             f"{isa.name}-{mode.name}")
                    if problems:
                        self.fail("\n".join(problems[:8]) + (
                            f"\n... {len(problems)} in all" if len(problems) > 8 else ""))


if __name__ == "__main__":
    unittest.main()
