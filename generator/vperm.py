# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The constants of vector-permute AES (ISA vperm_ssse3), computed from the field
definitions; templates/lib/vperm.j2 emits them and tests/python/test_vperm.py checks them
by running whole AES encryptions through a model of the generated instructions.

The S-box inverts in GF(2^8), which pshufb (a 16-entry byte table indexed by 4-bit
values) cannot do directly.  GF(2^8) is isomorphic to K = GF(2^4)[t]/(t^2 + t + Z),
GF(2^4) = GF(2)[w]/(w^4 + w + 1), Z the first element making t^2 + t + Z irreducible.
phi: GF(2^8) -> K maps the AES generator x to a root of the AES polynomial in K; it is
a field isomorphism and GF(2)-linear on bytes, so one pair of pshufb lookups (low
nibble, high nibble) applies it to 16 bytes.

Coordinates.  t and its conjugate t' = t + 1 are a basis of K over GF(2^4):
v = i*t + j*t'.  A state byte (the "tower byte") holds i in its high nibble and
k = i + j in its low one.  The norm N = v * conj(v) = Z*k^2 + i*j lies in GF(2^4) and
1/v = conj(v)/N.  With only one-input 4-bit tables and XORs (a = 1/Z):
    u  = 1/i + a/k,   io = 1/u + j   ( = N/(Z*k + i) )
    w  = 1/j + a/k,   jo = 1/w + i   ( = N/(Z*k + j) )
1/io and 1/jo are GF(2^4)-linear in the coordinates of 1/v (the matrix
[[Z+1, Z], [Z, Z+1]] has determinant 1), so 1/v = alpha/io + beta/jo for two constants
of K, and any GF(2)-linear function of 1/v (the S-box's affine part, times 1 or 2 of
MixColumns, in the tower basis or back in the standard one) is a table indexed by io
plus a table indexed by jo.  Division by zero is "infinity": the tables 1/x and a/x
give 0x80 at 0, which survives an XOR with a nibble, and pshufb returns 0 for an index
with bit 7 set, which is 1/infinity.  That makes every special case (i, j or k zero, a
zero denominator, v = 0) come out right without a branch.

The S-box's constant 0x63 passes unchanged through ShiftRows and MixColumns (a column of
equal bytes c maps to c, 2 + 3 + 1 + 1 = 1), so it is folded into round keys 1..Nr.

ShiftRows costs no instruction: after round n (m = Nr - n rounds before the last) the
registers hold SR^m(phi(state)), so a middle round's MixColumns is conjugated by SR^m
(its row rotations R_m = SR^m R SR^-m, a pshufb with one of four masks, m mod 4) and the
last round (m = 0) needs no permutation at all; the input is permuted by SR^Nr (SR^2 for
AES-128/256, none for AES-192) and round key n is stored as SR^m(phi(rk[n] ^ 0x63...)).
"""

AES_POLY = 0x11B            # x^8 + x^4 + x^3 + x + 1
NIBBLE_POLY = 0x13          # w^4 + w + 1
INFINITY = 0x80             # a pshufb index that reads as 0


def gf16_mul(a, b):
    r = 0
    for bit in range(4):
        if b >> bit & 1:
            r ^= a << bit
    for bit in (7, 6, 5, 4):
        if r >> bit & 1:
            r ^= NIBBLE_POLY << (bit - 4)
    return r


def gf16_inv(a):
    return next(b for b in range(1, 16) if gf16_mul(a, b) == 1) if a else 0


def gf256_mul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        if a & 0x100:
            a ^= AES_POLY
        b >>= 1
    return r


def gf256_inv(a):
    return next(b for b in range(1, 256) if gf256_mul(a, b) == 1) if a else 0


# Z: the first element of GF(2^4) with no r such that r^2 + r = Z.
Z = next(z for z in range(1, 16) if all(gf16_mul(r, r) ^ r != z for r in range(16)))
A_CONST = gf16_inv(Z)


class K:
    """An element p + q*t of GF(2^4)[t]/(t^2 + t + Z)."""
    __slots__ = ("p", "q")

    def __init__(self, p, q=0):
        self.p, self.q = p, q

    def __add__(self, other):
        return K(self.p ^ other.p, self.q ^ other.q)

    def __mul__(self, other):
        pq = gf16_mul(self.q, other.q)     # t^2 = t + Z
        return K(gf16_mul(self.p, other.p) ^ gf16_mul(pq, Z),
                 gf16_mul(self.p, other.q) ^ gf16_mul(self.q, other.p) ^ pq)

    def __eq__(self, other):
        return (self.p, self.q) == (other.p, other.q)

    def __hash__(self):
        return hash((self.p, self.q))

    # coordinates over the basis t, t' = t + 1: p + q t = j + (i + j) t
    def tower_byte(self):
        i, j = self.p ^ self.q, self.p
        return i << 4 | (i ^ j)

    @staticmethod
    def from_tower_byte(byte):
        i, k = byte >> 4, byte & 15
        j = i ^ k
        return K(j, i ^ j)


def _power(x, n):
    r = K(1)
    for _ in range(n):
        r = r * x
    return r


def _find_root():
    """The first element of K (in (q, p) order) that is a root of the AES polynomial."""
    for value in range(256):
        r = K(value & 15, value >> 4)
        total = K(0)
        for bit in range(9):
            if AES_POLY >> bit & 1:
                total = total + _power(r, bit)
        if total == K(0):
            return r
    raise AssertionError("no root")


ROOT = _find_root()
_ROOT_POWERS = [_power(ROOT, n) for n in range(8)]


def phi(byte):
    """GF(2^8) (AES basis) -> K."""
    total = K(0)
    for bit in range(8):
        if byte >> bit & 1:
            total = total + _ROOT_POWERS[bit]
    return total


_PHI_INVERSE = {phi(b): b for b in range(256)}


def phi_inverse(value):
    return _PHI_INVERSE[value]


def to_tower(byte):
    return phi(byte).tower_byte()


def from_tower(byte):
    return phi_inverse(K.from_tower_byte(byte))


def affine_linear(byte):
    """The S-box's affine map without its constant 0x63."""
    r = 0
    for bit in range(8):
        b = 0
        for k in (0, 4, 5, 6, 7):
            b ^= byte >> ((bit + k) % 8) & 1
        r |= b << bit
    return r


# 1/v = ALPHA/io + BETA/jo (see the module comment): 1/io = (Z+1) y_t' + Z y_t,
# 1/jo = Z y_t' + (Z+1) y_t with 1/v = y_t t + y_t' t'; solving gives
# y_t' = (Z+1)/io + Z/jo and y_t = Z/io + (Z+1)/jo.
_T, _T_CONJ = K(0, 1), K(1, 1)
ALPHA = K(Z) * _T + K(Z ^ 1) * _T_CONJ
BETA = K(Z ^ 1) * _T + K(Z) * _T_CONJ


def _output_table(weight, out):
    """Entry n: out(weight / n) as a byte (0 at n = 0: that index never occurs)."""
    return [out(weight * K(gf16_inv(n))) if n else 0 for n in range(16)]


def _sbox_tower(value, factor):
    """The S-box's linear part times factor (in GF(2^8)), tower byte in and out."""
    return to_tower(gf256_mul(affine_linear(phi_inverse(value)), factor))


def _sbox_standard(value):
    return affine_linear(phi_inverse(value))


_AFFINE_INVERSE = {affine_linear(b): b for b in range(256)}


def affine_linear_inverse(byte):
    return _AFFINE_INVERSE[byte]


def to_tower_dec(byte):
    """The inverse cipher's input map: tower form of the affine map's inverse (InvSubBytes
    is inverse(affine^-1(s ^ 0x63)); the 0x63 is folded into the round keys)."""
    return to_tower(affine_linear_inverse(byte))


def _inv_mix_tower(value, factor):
    """The inverse: 1/v (tower) back to standard, times an InvMixColumns factor, into the
    next round's input form."""
    return to_tower_dec(gf256_mul(phi_inverse(value), factor))


def _nibble_table(function):
    return [function(n) for n in range(16)]


TABLES = {
    # nibble mask
    "low_nibbles": [0x0F] * 16,
    # standard byte -> tower byte, by the low and the high nibble
    "to_tower_lo": _nibble_table(lambda n: to_tower(n)),
    "to_tower_hi": _nibble_table(lambda n: to_tower(n << 4)),
    # GF(2^4) inverse and a/k, infinity at 0
    "inverse": [INFINITY] + [gf16_inv(n) for n in range(1, 16)],
    "a_over": [INFINITY] + [gf16_mul(A_CONST, gf16_inv(n)) for n in range(1, 16)],
    # S-box (linear part) in the tower basis: times 1 and times 2 (MixColumns)
    "sbox1_io": _output_table(ALPHA, lambda v: _sbox_tower(v, 1)),
    "sbox1_jo": _output_table(BETA, lambda v: _sbox_tower(v, 1)),
    "sbox2_io": _output_table(ALPHA, lambda v: _sbox_tower(v, 2)),
    "sbox2_jo": _output_table(BETA, lambda v: _sbox_tower(v, 2)),
    # the last round's S-box (linear part), back in the standard basis
    "sbox0_io": _output_table(ALPHA, _sbox_standard),
    "sbox0_jo": _output_table(BETA, _sbox_standard),
}


# ---- byte permutations (pshufb masks: out[i] = in[mask[i]]) ---------------------------

def compose(outer, inner):
    """The mask of applying inner, then outer."""
    return [inner[outer[i]] for i in range(16)]


def power(mask, n):
    result = list(range(16))
    for _ in range(n % 4):
        result = compose(mask, result)
    return result


IDENTITY = list(range(16))
# ShiftRows: row r (byte 4c + r) moves left by r columns.
SHIFT_ROWS = [4 * ((c + r) % 4) + r for c in range(4) for r in range(4)]
# MixColumns' row rotation within each column: out row r = in row r + 1.
ROTATE_ROWS = [4 * c + (r + 1) % 4 for c in range(4) for r in range(4)]


def shift_rows_power(m):
    return power(SHIFT_ROWS, m)


def rotation(m, k):
    """R_m^k = SR^m R^k SR^-m (the rotation of MixColumns at phase m mod 4)."""
    return compose(shift_rows_power(m), compose(power(ROTATE_ROWS, k), shift_rows_power(-m % 4)))


for _m in range(4):
    TABLES[f"rotate1_phase{_m}"] = rotation(_m, 1)
    TABLES[f"rotate2_phase{_m}"] = rotation(_m, 2)
    TABLES[f"rotate3_phase{_m}"] = rotation(_m, 3)

# The inverse cipher (equivalent inverse cipher, the AESDEC schedule): its input map, the
# InvMixColumns factors 14, 11, 13, 9 applied to InvSubBytes' output (each a table pair
# indexed by io and jo, straight into the next round's input form), and the last round's
# InvSubBytes in the standard basis.  Its rotations are the encryption's at phase -m.
TABLES["to_dec_lo"] = _nibble_table(lambda n: to_tower_dec(n))
TABLES["to_dec_hi"] = _nibble_table(lambda n: to_tower_dec(n << 4))
for _factor in (14, 11, 13, 9):
    TABLES[f"inv{_factor}_io"] = _output_table(ALPHA, lambda v, f=_factor: _inv_mix_tower(v, f))
    TABLES[f"inv{_factor}_jo"] = _output_table(BETA, lambda v, f=_factor: _inv_mix_tower(v, f))
TABLES["inv0_io"] = _output_table(ALPHA, phi_inverse)
TABLES["inv0_jo"] = _output_table(BETA, phi_inverse)

# Which tables each direction reads (a file holds only what its functions use).
COMMON_TABLES = ("low_nibbles", "inverse", "a_over", "identity", "shift_rows1",
                 "shift_rows2", "shift_rows3", "sbox_constant", "to_tower_lo", "to_tower_hi",
                 "rotate1_phase0", "rotate1_phase1", "rotate1_phase2", "rotate1_phase3",
                 "rotate3_phase0", "rotate3_phase1", "rotate3_phase2", "rotate3_phase3")
ENCRYPT_TABLES = COMMON_TABLES + ("sbox1_io", "sbox1_jo", "sbox2_io", "sbox2_jo",
                                  "sbox0_io", "sbox0_jo")
DECRYPT_TABLES = ("to_dec_lo", "to_dec_hi", "rotate2_phase0", "rotate2_phase1",
                  "rotate2_phase2", "rotate2_phase3", "inv14_io", "inv14_jo", "inv11_io",
                  "inv11_jo", "inv13_io", "inv13_jo", "inv9_io", "inv9_jo", "inv0_io",
                  "inv0_jo")
for _m in (1, 2, 3):
    TABLES[f"shift_rows{_m}"] = shift_rows_power(_m)
TABLES["identity"] = IDENTITY
# The folded S-box constant, standard basis: XORed into round keys 1..Nr.
TABLES["sbox_constant"] = [0x63] * 16

# The rotation masks by round key, for a loop of one middle round a pass (XTS's BULK=vperm,
# lib/vperm.j2 encrypt, rolled="one"): the round m rounds before the last reads its key
# at frame offset 224 - 16m, and its masks at that same offset from the start of
# ROTATE_BY_KEY[decrypt][k - 1] (R^k at the round's phase: m mod 4, the inverse cipher
# -m mod 4), so one register offset addresses both and no mask depends on a phase
# counter.  Offsets 16 .. 208 (m = 13 .. 1) are read; m = 14 (offset 0) only fills the
# table.  224 bytes each, laid out one after another (ROTATE_BY_KEY_STRIDE apart).
ROTATE_BY_KEY_STRIDE = 224
ROTATE_BY_KEY = {
    decrypt: [[TABLES[f"rotate{k}_phase{(-m if decrypt else m) % 4}"]
               for m in range(14, 0, -1)] for k in (1, 2, 3)]
    for decrypt in (False, True)}
