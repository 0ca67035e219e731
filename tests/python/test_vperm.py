# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The constants of vector-permute AES (generator/vperm.py): the S-box over all 256 bytes
and whole AES-128/192/256 encryptions run through a model of the instruction sequence
templates/lib/vperm.j2 emits (pshufb semantics included: an index with bit 7 set reads
0), against FIPS-197's known answers and a straightforward AES written here."""

import os
import random
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from generator import vperm  # noqa: E402

T = vperm.TABLES


def xtime(a):
    a <<= 1
    return a ^ 0x11B if a & 0x100 else a


def mul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a, b = xtime(a), b >> 1
    return r


def sbox_reference(x):
    inv = next((y for y in range(1, 256) if mul(x, y) == 1), 0)
    out = 0x63
    for shift in range(5):
        out ^= ((inv << shift) | (inv >> (8 - shift))) & 0xFF
    return out


SBOX = [sbox_reference(x) for x in range(256)]


def expand(key):
    nk = len(key) // 4
    rounds = nk + 6
    words = [list(key[4 * i:4 * i + 4]) for i in range(nk)]
    rcon = 1
    for i in range(nk, 4 * (rounds + 1)):
        w = list(words[-1])
        if i % nk == 0:
            w = [SBOX[b] for b in w[1:] + w[:1]]
            w[0] ^= rcon
            rcon = xtime(rcon)
        elif nk > 6 and i % nk == 4:
            w = [SBOX[b] for b in w]
        words.append([a ^ b for a, b in zip(words[i - nk], w)])
    return [sum(words[4 * r:4 * r + 4], []) for r in range(rounds + 1)]


def encrypt_reference(key, block):
    rk = expand(key)
    s = [a ^ b for a, b in zip(block, rk[0])]
    for n in range(1, len(rk)):
        s = [SBOX[b] for b in s]
        s = [s[4 * ((c + r) % 4) + r] for c in range(4) for r in range(4)]
        if n < len(rk) - 1:
            col = []
            for c in range(4):
                a = s[4 * c:4 * c + 4]
                col += [mul(a[r], 2) ^ mul(a[(r + 1) % 4], 3) ^ a[(r + 2) % 4] ^ a[(r + 3) % 4]
                        for r in range(4)]
            s = col
        s = [a ^ b for a, b in zip(s, rk[n])]
    return bytes(s)


INV_SBOX = [SBOX.index(x) for x in range(256)]


def inv_mix_column(a):
    return [mul(a[r], 14) ^ mul(a[(r + 1) % 4], 11) ^ mul(a[(r + 2) % 4], 13)
            ^ mul(a[(r + 3) % 4], 9) for r in range(4)]


def decrypt_reference(key, block):
    """The inverse cipher of FIPS-197 (section 5.3), from the encryption schedule."""
    rk = expand(key)
    rounds = len(rk) - 1
    s = [a ^ b for a, b in zip(block, rk[rounds])]
    for n in range(rounds - 1, -1, -1):
        s = [s[4 * ((c - r) % 4) + r] for c in range(4) for r in range(4)]   # InvShiftRows
        s = [INV_SBOX[b] for b in s]
        s = [a ^ b for a, b in zip(s, rk[n])]
        if n:
            s = sum((inv_mix_column(s[4 * c:4 * c + 4]) for c in range(4)), [])
    return bytes(s)


def dec_schedule(key):
    """asm_abi.h's equivalent-inverse-cipher schedule (AESDEC's)."""
    rk = expand(key)
    rounds = len(rk) - 1
    dk = [rk[rounds]]
    for i in range(1, rounds):
        k = rk[rounds - i]
        dk.append(sum((inv_mix_column(k[4 * c:4 * c + 4]) for c in range(4)), []))
    return dk + [rk[0]]


# ---- the model of the generated instructions --------------------------------------

def pshufb(table, index):
    return [0 if i & 0x80 else table[i & 15] for i in index]


def pxor(a, b):
    return [x ^ y for x, y in zip(a, b)]


def pand(a, b):
    return [x & y for x, y in zip(a, b)]


def psrld4(a):
    out = []
    for d in range(4):
        word = int.from_bytes(bytes(a[4 * d:4 * d + 4]), "little") >> 4
        out += list(word.to_bytes(4, "little"))
    return out


def to_tower(x):
    lo = pand(x, T["low_nibbles"])
    hi = pand(psrld4(x), T["low_nibbles"])
    return pxor(pshufb(T["to_tower_lo"], lo), pshufb(T["to_tower_hi"], hi))


def inversion(u):
    hi = pand(psrld4(u), T["low_nibbles"])
    k = pand(u, T["low_nibbles"])
    ak = pshufb(T["a_over"], k)
    j = pxor(k, hi)
    u1 = pxor(pshufb(T["inverse"], hi), ak)
    w1 = pxor(pshufb(T["inverse"], j), ak)
    io = pxor(pshufb(T["inverse"], u1), j)
    jo = pxor(pshufb(T["inverse"], w1), hi)
    return io, jo


def schedule(key):
    """Round keys as the prologue stores them: {m: key m rounds before the last}."""
    rk = expand(key)
    rounds = len(rk) - 1
    keys = {}
    for n, k in enumerate(rk):
        m = rounds - n
        if m == 0:
            keys[m] = pxor(k, T["sbox_constant"])
        else:
            k = k if n == 0 else pxor(k, T["sbox_constant"])
            keys[m] = pshufb(to_tower(k), vperm.shift_rows_power(m))
    return keys, rounds


def encrypt_model(key, block):
    keys, rounds = schedule(key)
    first = T["identity"] if rounds == 12 else T["shift_rows2"]
    u = pxor(pshufb(to_tower(list(block)), first), keys[rounds])
    for m in range(rounds - 1, 0, -1):
        io, jo = inversion(u)
        a = pxor(pshufb(T["sbox1_io"], io), pshufb(T["sbox1_jo"], jo))
        a2 = pxor(pshufb(T["sbox2_io"], io), pshufb(T["sbox2_jo"], jo))
        x = pxor(a2, pshufb(a, T[f"rotate1_phase{m % 4}"]))
        u = pxor(pxor(x, pshufb(x, T[f"rotate1_phase{m % 4}"])),
                 pxor(pshufb(a, T[f"rotate3_phase{m % 4}"]), keys[m]))
    io, jo = inversion(u)
    out = pxor(pxor(pshufb(T["sbox0_io"], io), pshufb(T["sbox0_jo"], jo)), keys[0])
    return bytes(out)


def to_dec(x):
    lo = pand(x, T["low_nibbles"])
    hi = pand(psrld4(x), T["low_nibbles"])
    return pxor(pshufb(T["to_dec_lo"], lo), pshufb(T["to_dec_hi"], hi))


def dec_keys(key):
    """The inverse cipher's keys as the prologue stores them: {m: key}."""
    dk = dec_schedule(key)
    rounds = len(dk) - 1
    keys = {}
    for n, k in enumerate(dk):
        m = rounds - n
        if m == 0:
            keys[m] = k
        else:
            keys[m] = pshufb(to_dec(pxor(k, T["sbox_constant"])),
                             vperm.shift_rows_power(-m % 4))
    return keys, rounds


def decrypt_model(key, block):
    keys, rounds = dec_keys(key)
    first = T["identity"] if rounds == 12 else T["shift_rows2"]
    u = pxor(pshufb(to_dec(list(block)), first), keys[rounds])
    for m in range(rounds - 1, 0, -1):
        io, jo = inversion(u)
        phase = -m % 4
        out = pxor(pxor(pshufb(T["inv14_io"], io), pshufb(T["inv14_jo"], jo)), keys[m])
        for factor, k in ((11, 1), (13, 2), (9, 3)):
            part = pxor(pshufb(T[f"inv{factor}_io"], io), pshufb(T[f"inv{factor}_jo"], jo))
            out = pxor(out, pshufb(part, T[f"rotate{k}_phase{phase}"]))
        u = out
    io, jo = inversion(u)
    return bytes(pxor(pxor(pshufb(T["inv0_io"], io), pshufb(T["inv0_jo"], jo)), keys[0]))


FIPS197_PLAINTEXT = bytes.fromhex("00112233445566778899aabbccddeeff")
FIPS197 = {  # appendix C: key 000102..., the ciphertexts
    16: "69c4e0d86a7b0430d8cdb78070b4c55a",
    24: "dda97ca4864cdfe06eaf70a0ec0d7191",
    32: "8ea2b7ca516745bfeafc49904b496089",
}


class VpermConstants(unittest.TestCase):
    def test_reference_matches_fips197(self):
        for size, expected in FIPS197.items():
            self.assertEqual(encrypt_reference(bytes(range(size)), FIPS197_PLAINTEXT).hex(),
                             expected)

    def test_sbox_every_byte(self):
        # one middle round's S-box path on 16 copies of each byte, back to standard
        for x in range(256):
            io, jo = inversion([vperm.to_tower(x)] * 16)
            out = pxor(pshufb(T["sbox0_io"], io), pshufb(T["sbox0_jo"], jo))
            self.assertEqual(out[0] ^ 0x63, SBOX[x], f"S-box of {x:#04x}")
            tower = pxor(pshufb(T["sbox1_io"], io), pshufb(T["sbox1_jo"], jo))
            self.assertEqual(vperm.from_tower(tower[0]) ^ 0x63, SBOX[x])
            double = pxor(pshufb(T["sbox2_io"], io), pshufb(T["sbox2_jo"], jo))
            self.assertEqual(vperm.from_tower(double[0]), mul(SBOX[x] ^ 0x63, 2))

    def test_tower_is_a_field_isomorphism(self):
        for a in range(0, 256, 7):
            for b in range(0, 256, 5):
                product = vperm.phi(a) * vperm.phi(b)
                self.assertEqual(vperm.phi_inverse(product), mul(a, b))
                self.assertEqual(vperm.to_tower(a ^ b), vperm.to_tower(a) ^ vperm.to_tower(b))

    def test_model_fips197(self):
        for size, expected in FIPS197.items():
            self.assertEqual(encrypt_model(bytes(range(size)), FIPS197_PLAINTEXT).hex(),
                             expected, f"AES-{size * 8}")

    def test_model_random(self):
        rng = random.Random(14)
        for _ in range(60):
            size = rng.choice((16, 24, 32))
            key = bytes(rng.randrange(256) for _ in range(size))
            block = bytes(rng.randrange(256) for _ in range(16))
            self.assertEqual(encrypt_model(key, block), encrypt_reference(key, block))

    def test_decrypt_model_fips197(self):
        for size, expected in FIPS197.items():
            ciphertext = bytes.fromhex(expected)
            self.assertEqual(decrypt_reference(bytes(range(size)), ciphertext),
                             FIPS197_PLAINTEXT, f"reference AES-{size * 8}")
            self.assertEqual(decrypt_model(bytes(range(size)), ciphertext),
                             FIPS197_PLAINTEXT, f"AES-{size * 8}")

    def test_decrypt_model_random(self):
        rng = random.Random(141)
        for _ in range(60):
            size = rng.choice((16, 24, 32))
            key = bytes(rng.randrange(256) for _ in range(size))
            block = bytes(rng.randrange(256) for _ in range(16))
            self.assertEqual(decrypt_model(key, encrypt_reference(key, block)), block)

    def test_masks_are_permutations(self):
        for name, table in T.items():
            if name.startswith(("rotate", "shift_rows", "identity")):
                self.assertEqual(sorted(table), list(range(16)), name)



class VpermLint(unittest.TestCase):
    """The lint knows which ISA allows what: legacy SSE only on vperm_ssse3 (and no
    AVX, SSE4.1 or vzeroupper there); the VEX/EVEX ISAs still refuse legacy SSE."""

    def lint(self, isa_name, body):
        from generator.errors import TemplateError
        from generator.isa import get_isa
        from generator.lint import check_isa_registers, check_no_legacy_sse
        from generator.parse import parse
        statements = parse(body)
        isa = get_isa(isa_name)
        try:
            if not isa.legacy_sse:          # as generator.lint.lint decides
                check_no_legacy_sse(statements)
            check_isa_registers(statements, isa)
        except TemplateError as error:
            return str(error)
        return None

    def test_legacy_sse_allowed_only_on_vperm(self):
        code = "pshufb xmm1, xmm2\npxor xmm1, xmmword [rip + .Lx]\n"
        self.assertIsNone(self.lint("vperm_ssse3", code))
        for isa in ("aesni_avx", "vaes_avx2", "avx10_256", "avx10_512"):
            self.assertIn("legacy SSE", self.lint(isa, code) or "", isa)

    def test_vperm_refuses_what_ssse3_lacks(self):
        for code, missing in (("vpxor xmm1, xmm1, xmm2\n", "avx"),
                              ("pextrq rax, xmm1, 1\n", "sse4.1"),
                              ("aesenc xmm1, xmm2\n", "aes"),
                              ("pxor xmm16, xmm1\n", "")):
            message = self.lint("vperm_ssse3", code)
            self.assertIsNotNone(message, code)
            self.assertIn(missing, message, code)

    def test_generated_vperm_files_hold_no_vex(self):
        gen = os.path.join(os.path.dirname(__file__), "..", "..", "gen", "vperm_ssse3")
        for name in sorted(os.listdir(gen)):
            if name.endswith(".S"):
                with open(os.path.join(gen, name), encoding="utf-8") as handle:
                    code = [line.split()[0] for line in handle
                            if line.startswith("\t") and not line.startswith("\t.")]
                self.assertTrue(code, name)
                self.assertFalse([m for m in code if m.startswith("v")], name)
                self.assertFalse([m for m in code if m.startswith("aes")], name)


if __name__ == "__main__":
    unittest.main()
