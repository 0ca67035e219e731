# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Static constant-time check of the generated assembly (gen/<isa>/<mode>.S).

valgrind cannot run VAES or AVX-512 code, so the constant-time check under valgrind
(tests/ct) covers only generic, vperm_ssse3 and aesni_avx.  This test reads the code instead, with
a small taint analysis per function, in layout order:

- Secret: any value moved from a vector (or mask) register into a general register
  (vmovd, vmovq, vpextr*, vpmovmskb, kmov to a GPR, and vperm_ssse3's legacy-SSE movd,
  movq, pextr*, pmovmskb).  Vector registers hold keys,
  data, tweaks and, in GCM, counters derived from J0 (a secret unless the IV is
  12 bytes).  Taint follows every general-register and flag write.
- A violation: a conditional branch, setcc or cmovcc on flags computed from a secret,
  or a secret register in a memory address.  adc and sbb read the carry as data (fixed
  latency arithmetic, as XTS TWEAK=gpr's 128-bit doubling does): their result is secret
  when the carry is.
- The one sanctioned exception, the EVEX GCM bulk loop's counter-carry decision
  (templates/gcm.j2, bulk_counters): the counter's low byte, zero-extended
  (movzx), OR'ed with the AESGEN_GCM_SECRET_COUNTER flag taken from bit 63 of the
  length at entry (mov len; shr 55: 256 when the counter is secret), then changed
  only by byte adds, and compared as a whole 32-bit register with a constant below
  256.  For a secret counter the register is then always >= 256, so the branch
  outcome is constant; for a public one it depends only on public data.  The flag
  register's bits above 31, which that 32-bit OR does not read, may carry public
  flags of their own (bts/btr with such a bit; gcm_record.j2's lengths-block flag).
Besides: every GCM update and record function clears bit 63 of len (btr 63), and
every `_ctr_carry` branch is decided by such a gated register.

The self-tests break a copy of gen/avx10_512/gcm.S in the ways the fix guards
against (a byte compare, the flag not OR'ed in) and must see violations.
"""

import glob
import os
import re
import unittest

from repo import GEN
from generator.parse import split_operands

GPRS = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp") + tuple(f"r{i}" for i in range(8, 16))


def _aliases():
    """Every general-register name -> (64-bit name, width in bits)."""
    table = {}
    for legacy in ("ax", "bx", "cx", "dx"):
        full = "r" + legacy
        table.update({full: (full, 64), "e" + legacy: (full, 32), legacy: (full, 16),
                      legacy[0] + "l": (full, 8), legacy[0] + "h": (full, 8)})
    for legacy in ("si", "di", "bp", "sp"):
        full = "r" + legacy
        table.update({full: (full, 64), "e" + legacy: (full, 32), legacy: (full, 16),
                      legacy + "l": (full, 8)})
    for i in range(8, 16):
        full = f"r{i}"
        table.update({full: (full, 64), full + "d": (full, 32), full + "w": (full, 16),
                      full + "b": (full, 8)})
    return table


ALIASES = _aliases()
LEN_REGISTER = "rcx"         # the 4th argument: len in every GCM function (asm_abi.h)

# States of a general register.
CLEAN, TAINT, TAINT8, GATED, LEN, FLAG = "clean", "taint", "taint8", "gated", "len", "flag"
SECRET_STATES = (TAINT, TAINT8, GATED)

# Instructions that write the arithmetic flags (those the generated code uses).
FLAG_WRITERS = {"add", "sub", "and", "or", "xor", "cmp", "test", "inc", "dec", "neg", "shl",
                "shr", "sar", "rol", "ror", "bt", "btr", "bts", "btc", "adc", "sbb", "imul",
                "bzhi", "andn", "blsr", "blsi", "blsmsk", "popcnt", "lzcnt", "tzcnt",
                "vptest", "ktestq", "ktestd", "ktestw", "ktestb", "kortestq", "kortestd",
                "kortestw", "kortestb"}
# Their destination is also a source (two-operand ALU forms).
READ_MODIFY = {"add", "sub", "and", "or", "xor", "inc", "dec", "neg", "shl", "shr", "sar",
               "rol", "ror", "btr", "bts", "btc", "adc", "sbb", "imul"}
NO_DESTINATION = {"cmp", "test", "bt", "push", "vptest"}
FLAG_READERS = re.compile(r"^(j(?!mp)[a-z]+|set[a-z]+|cmov[a-z]+)$")
CARRY_AS_DATA = {"adc", "sbb"}
VECTOR_TO_GPR = re.compile(r"^(v?movd|v?movq|v?pextr[bwdq]|v?pmovmskb|v?movmskp[sd]|kmov[bwdq])$")

LINE = re.compile(r"^\s+(?:\{disp32\}\s+)?([a-z][a-z0-9]*)\s*(.*?)\s*(?:#.*)?$")


def register(op):
    """(64-bit name, width) of a general-register operand, else None."""
    m = re.fullmatch(r"%([a-z0-9]+)", op)
    return ALIASES.get(m.group(1)) if m else None


def address_registers(op):
    """General registers used in a memory operand's address."""
    m = re.search(r"\(([^)]*)\)", op)
    if not m:
        return []
    return [ALIASES[r][0] for r in re.findall(r"%([a-z0-9]+)", m.group(1)) if r in ALIASES]


def immediate(op):
    m = re.fullmatch(r"\$(-?(?:0x[0-9a-f]+|\d+))", op)
    return int(m.group(1), 0) if m else None


def check_function(name, lines):
    """Violations (strings) of one function's instructions, in layout order."""
    state = {r: CLEAN for r in GPRS}
    state[LEN_REGISTER] = LEN
    flags = CLEAN
    violations = []
    stripped = False
    for number, line in lines:
        m = LINE.match(line)
        if not m or line.lstrip().startswith("."):
            continue
        mnemonic, ops = m.group(1), split_operands(m.group(2))
        where = f"{name}: line {number}: {line.strip()}"

        for op in ops:
            for reg in address_registers(op):
                if state[reg] in SECRET_STATES:
                    violations.append(f"{where}: secret {reg} in an address")
        if FLAG_READERS.match(mnemonic) and flags == TAINT:
            violations.append(f"{where}: branch/select on flags computed from a secret")

        regs = [register(op) for op in ops]
        sources = [state[r[0]] for r in regs if r]
        tainted = any(s in SECRET_STATES for s in sources) or \
            (mnemonic in CARRY_AS_DATA and flags == TAINT)
        dest = regs[-1] if regs and mnemonic not in NO_DESTINATION else None
        if ops and not register(ops[-1]):
            dest = None                                  # memory or vector destination

        # The sanctioned decision register (see the module docstring).
        if mnemonic == "btr" and len(ops) == 2 and immediate(ops[0]) == 63 and \
                regs[1] and regs[1][0] == LEN_REGISTER:
            stripped = True
            flags = CLEAN
            continue
        if mnemonic == "mov" and regs[0] and regs[1] and state[regs[0][0]] == LEN and \
                regs[0][1] == 64 and regs[1][1] == 64:
            state[regs[1][0]] = LEN
            continue
        if mnemonic == "shr" and len(ops) == 2 and immediate(ops[0]) == 55 and regs[1] and \
                state[regs[1][0]] == LEN and regs[1][1] == 64:
            state[regs[1][0]] = FLAG
            flags = CLEAN
            continue
        if mnemonic in ("bts", "btr") and len(ops) == 2 and regs[1] and \
                state[regs[1][0]] == FLAG and regs[1][1] == 64:
            bit = immediate(ops[0])
            if bit is not None and 32 <= bit < 64:
                flags = CLEAN                            # CF: the old bit, a public flag
                continue                                 # bits 0..31 unchanged: still FLAG
        if mnemonic == "movzx" or mnemonic.startswith("movzb"):
            if regs[0] and regs[1] and regs[0][1] == 8 and state[regs[0][0]] in SECRET_STATES:
                state[regs[1][0]] = TAINT8
                continue
        if mnemonic == "or" and regs[0] and regs[1] and state[regs[0][0]] == FLAG and \
                state[regs[1][0]] == TAINT8 and regs[1][1] == 32:
            state[regs[1][0]] = GATED
            flags = CLEAN                                # the flags are never read after or
            continue
        if mnemonic == "add" and regs[1] and state[regs[1][0]] == GATED and regs[1][1] == 8 \
                and immediate(ops[0]) is not None:
            flags = TAINT                                # the byte's carry is secret
            continue                                     # bits 8..31 unchanged: still gated
        if mnemonic == "cmp" and regs[1] and state[regs[1][0]] == GATED and regs[1][1] >= 32:
            k = immediate(ops[0])
            if k is not None and 0 <= k < 256:
                flags = CLEAN                            # constant when secret (>= 256)
                continue

        if VECTOR_TO_GPR.match(mnemonic) and dest and not register(ops[0]):
            state[dest[0]] = TAINT
        elif dest and mnemonic in ("xor", "sub") and len(ops) == 2 and ops[0] == ops[1]:
            state[dest[0]] = CLEAN                       # the zeroing idiom
            flags = CLEAN
            continue
        elif dest:
            if mnemonic in READ_MODIFY or dest[1] < 32:
                # Partial writes and read-modify-writes keep what was there.
                old = state[dest[0]]
                keeps = old in SECRET_STATES
                state[dest[0]] = TAINT if (tainted or keeps) else CLEAN
            else:
                srcs = [state[r[0]] for r in regs[:-1] if r]
                mem_tainted = any(state[a] in SECRET_STATES for op in ops[:-1]
                                  for a in address_registers(op))
                state[dest[0]] = TAINT if any(s in SECRET_STATES for s in srcs) or mem_tainted \
                    else CLEAN
        if mnemonic in FLAG_WRITERS:
            flags = TAINT if tainted else CLEAN
    return violations, stripped


def functions(text):
    """(name, [(line number, line)]) of every function between .cfi_startproc/endproc."""
    result, name, body = [], None, None
    pending = None
    for number, line in enumerate(text.splitlines(), 1):
        label = re.match(r"^([A-Za-z_][\w.]*):", line)
        if label and not label.group(1).startswith(".L"):
            pending = label.group(1)
        if ".cfi_startproc" in line:
            name, body = pending, []
        elif ".cfi_endproc" in line and body is not None:
            result.append((name, body))
            name, body = None, None
        elif body is not None:
            body.append((number, line))
    return result


def check_file(text, gcm):
    """All violations of one generated file (gcm: also the GCM structure rules)."""
    violations = []
    for name, body in functions(text):
        found, stripped = check_function(name, body)
        violations += found
        if gcm and re.search(r"_(update|record)_", name or "") and not stripped:
            violations.append(f"{name}: bit 63 of len (AESGEN_GCM_SECRET_COUNTER) is not cleared")
    if gcm:
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if re.search(r"\sj[a-z]+\s+\.L\w*_ctr_carry\b", line):
                previous = lines[i - 1].strip()
                if not re.match(r"cmp\s+\$\d+, %(e[a-z]{2}|r\d+d)\b", previous):
                    violations.append(f"line {i + 1}: {line.strip()}: not decided by a whole "
                                      f"32-bit compare (previous: {previous})")
    return violations


class GeneratedCodeIsConstantTime(unittest.TestCase):
    def test_every_generated_file(self):
        files = sorted(glob.glob(os.path.join(GEN, "*", "*.S")))
        self.assertTrue(files, "no gen/*/*.S")
        for path in files:
            with self.subTest(file=os.path.relpath(path, GEN)):
                with open(path) as f:
                    text = f.read()
                violations = check_file(text, os.path.basename(path) == "gcm.S")
                self.assertEqual(violations, [], "\n".join(violations[:20]))

    def test_evex_gcm_has_gated_carry_branches(self):
        # The analysis must actually see the branches it sanctions.
        for isa in ("avx10_256", "avx10_512"):
            with open(os.path.join(GEN, isa, "gcm.S")) as f:
                text = f.read()
            with self.subTest(isa=isa):
                self.assertGreaterEqual(len(re.findall(r"j[a-z]+\s+\.L\w*_ctr_carry", text)), 12)


class CheckerSelfTest(unittest.TestCase):
    """Copies of gen/avx10_512/gcm.S broken on purpose: each must be caught."""

    def setUp(self):
        with open(os.path.join(GEN, "avx10_512", "gcm.S")) as f:
            self.text = f.read()

    def assertCaught(self, broken):
        self.assertNotEqual(broken, self.text, "the mutation did not apply")
        self.assertTrue(check_file(broken, gcm=True), "the broken copy passed")

    def test_byte_compare_of_the_counter(self):
        # The code before the fix: the branch on the counter's low byte alone.
        self.assertCaught(re.sub(r"cmp(\s+)\$(\d+), %r11d", r"cmp\1$\2, %r11b", self.text))

    def test_flag_not_ored_in(self):
        self.assertCaught(re.sub(r"\n\s+or\s+%ebx, %r11d[^\n]*", "", self.text))

    def test_flag_register_changed_below_bit_32(self):
        # A public flag may ride above bit 31 of the gate (gcm_record.j2 sets bit 40);
        # one in the bits the OR reads would change the gate.
        broken = self.text.replace("shr             $55, %rbx",
                                   "shr             $55, %rbx\n\tbts $8, %rbx", 1)
        self.assertCaught(broken)

    def test_flag_not_cleared_from_len(self):
        self.assertCaught(re.sub(r"\n\s+btr\s+\$63, %rcx[^\n]*", "", self.text))

    def test_secret_in_an_address(self):
        broken = self.text.replace("movzbl          %r11b, %r11d",
                                   "movzbl          %r11b, %r11d\n\tmov (%rdi,%r11,1), %rax", 1)
        self.assertCaught(broken)


class LegacySseMoves(unittest.TestCase):
    """vperm_ssse3's legacy-SSE moves out of a vector register make a secret too (the
    valgrind check does not see an address made so: memcheck 3.19 reported no error for
    movd xmm -> and -> add -> load in a probe, while it reports the branch)."""

    @staticmethod
    def violations(move, *body):
        text = "\n".join(["f:", "\t.cfi_startproc", f"\t{move}", *body, "\t.cfi_endproc"])
        return check_file(text, gcm=False)

    def test_each_move_taints_an_address(self):
        for move in ("movd %xmm0, %r11d", "movq %xmm0, %r11", "pextrw $1, %xmm0, %r11d",
                     "pmovmskb %xmm0, %r11d"):
            with self.subTest(move=move):
                self.assertTrue(self.violations(move, "\tand $48, %r11d",
                                                "\tmovdqa (%rbx,%r11,1), %xmm1"))

    def test_moves_into_vectors_and_between_general_registers_do_not(self):
        self.assertEqual(self.violations("movq %r9, %xmm0", "\tmov (%rbx,%r9,1), %rax"), [])
        self.assertEqual(self.violations("movq %rax, %r11", "\tmov (%rbx,%r11,1), %rax"), [])


class CarryAsData(unittest.TestCase):
    """adc/sbb on a secret carry are arithmetic, not a select: allowed, but the result is
    secret from then on (in an address, or its flags in a branch, it is caught)."""

    @staticmethod
    def violations(*body):
        text = "\n".join(["f:", "\t.cfi_startproc", "\tvmovq %xmm0, %rax",
                          "\tadd %rax, %rax", "\tmov $0, %rdx", *body, "\t.cfi_endproc"])
        return check_file(text, gcm=False)

    def test_adc_on_a_secret_carry_is_allowed(self):
        self.assertEqual(self.violations("\tadc $0, %rdx"), [])

    def test_its_result_is_secret(self):
        self.assertTrue(self.violations("\tadc $0, %rdx", "\tmov (%rdi,%rdx,1), %rcx"))
        self.assertTrue(self.violations("\tsbb %rcx, %rdx", "\ttest %rdx, %rdx", "\tjz .Lx"))

    def test_a_public_carry_stays_public(self):
        self.assertEqual(self.violations("\tmov $1, %rcx", "\tadd %rcx, %rcx",
                                         "\tadc $0, %rdx", "\tmov (%rdi,%rdx,1), %rcx"), [])

    def test_a_branch_on_the_carry_is_caught(self):
        self.assertTrue(self.violations("\tjc .Lx"))


if __name__ == "__main__":
    unittest.main()
