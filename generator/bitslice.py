# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Bitsliced AES on eight blocks: the bulk path of the vperm_ssse3 ISA (UNROLL=8).

Why.  A vector-permute round costs 12 pshufb per block, and pshufb has two pipes on the
CPUs we meet, so a block-round cannot go below 6 cycles there; the S-box as a Boolean
circuit over bit planes spends about one logic instruction per S-box instead, on every
vector ALU.  Both are constant-time: no address and no branch depends on data.

Layout.  Eight blocks X_0..X_7 become eight bit planes: byte q of plane b holds bit b
of byte q of every block (one bit per block).  Inside a plane the bytes are in
row-major order (q = 4*row + col, not AES's column-major), so MixColumns' row rotation
is a dword rotation, pshufd, and ShiftRows a pshufb.  The counter blocks are permuted
to row-major on the way in (CTR folds it into its byte swap) and the last round's
ShiftRows mask permutes back to column-major, so the output is in the standard order.
The transposition X -> planes is three stages of swap-moves (bit distance 1, 2, 4
between registers 1, 2, 4 apart); it is its own inverse.

The S-box is the depth-16 circuit of Boyar and Peralta (J. Boyar, R. Peralta, "A
depth-16 circuit for the AES S-box", SEC 2012; 128 gates: 34 AND, 90 XOR, 4 XNOR).
The XNORs are XORs here: the circuit then computes S(x) ^ 0x63, and 0x63 passes
unchanged through ShiftRows and MixColumns (a column of equal bytes c maps to c), so it
is folded into round keys 1..Nr, as vperm.py does for its own constant.

MixColumns, per plane, with R = rows up by one (pshufd 0x39) and t = a + R(a):
    MC(a) = 2a + 3R(a) + R^2(a) + R^3(a) = 2t + R(a) + R^2(t)
and 2t on planes is a renaming plus three XORs (x^8 = x^4 + x^3 + x + 1).

Decryption (inverse_round_program, round_lines(..., decrypt=True)) is the equivalent
inverse cipher on the AESDEC schedule: InvShiftRows (one pshufb per plane), InvSubBytes,
InvMixColumns, + key.  InvSbox(y) = inv(L^-1(y + 0x63)), L the S-box affine's linear
part, and the circuit above is top (T1..T27 and U7 from the input bits) -> middle
(M1..M63; the bottom reads only M46..M63) -> bottom (M46..M63 -> L(inv(x)), XOR-only).
So the generator keeps the middle and derives two new linear layers as GF(2) matrices,
evaluated on basis vectors: the top composed with L^-1 (the middle's 22 T inputs and
U7 from y' = y + 0x63) and L^-1 composed with the bottom (inv's 8 bits from
M46..M63), each synthesised as a XOR network by Paar's greedy common-subexpression
elimination (xor_network): 31 + 63 + 35 = 129 gates, 34 AND and 95 XOR, against the
forward circuit's 27 + 63 + 38.  The 0x63 is again folded into the keys: the caller
adds it to dk[0] .. dk[Nr-1] (each is followed by an InvSubBytes), not to dk[Nr].
With u = a + R^2(a), InvMixColumns(a) = MixColumns(a + 4u), as
(03x^3 + x^2 + x + 02)(04x^2 + 05) = 0Bx^3 + 0Dx^2 + 09x + 0E mod x^4 + 1: 8 pshufd
and 22 XORs more than MixColumns.  A middle round is 218 operations (encryption's 187),
276 instructions after allocation with 12 spill stores (encryption: 245 and 11).

Registers.  A round is a straight-line SSA program (Program) of about 200 operations
with up to ~25 values alive; Allocator maps it onto the 16 xmm registers with
two-operand SSE forms, spilling the value whose next use is farthest (Belady) to a
stack slot once and reading it back as a memory operand.  The round runs in a loop
over the round keys (one body for AES-128/192/256), so its inputs and outputs sit in
fixed registers: PLANE_REGISTERS.
"""

# Boyar-Peralta, top linear layer (T), middle non-linear part (M), bottom linear layer
# (L, S).  U0 is the most significant input bit, S0 the most significant output bit.
# "+" is XOR, "x" AND, "#" XNOR (computed as XOR; see the module comment).
SBOX_CIRCUIT_TEXT = """
T1 = U0 + U3      T2 = U0 + U5      T3 = U0 + U6      T4 = U3 + U5
T5 = U4 + U6      T6 = T1 + T5      T7 = U1 + U2      T8 = U7 + T6
T9 = U7 + T7      T10 = T6 + T7     T11 = U1 + U5     T12 = U2 + U5
T13 = T3 + T4     T14 = T6 + T11    T15 = T5 + T11    T16 = T5 + T12
T17 = T9 + T16    T18 = U3 + U7     T19 = T7 + T18    T20 = T1 + T19
T21 = U6 + U7     T22 = T7 + T21    T23 = T2 + T22    T24 = T2 + T10
T25 = T20 + T17   T26 = T3 + T16    T27 = T1 + T12
M1 = T13 x T6     M2 = T23 x T8     M3 = T14 + M1     M4 = T19 x U7
M5 = M4 + M1      M6 = T3 x T16     M7 = T22 x T9     M8 = T26 + M6
M9 = T20 x T17    M10 = M9 + M6     M11 = T1 x T15    M12 = T4 x T27
M13 = M12 + M11   M14 = T2 x T10    M15 = M14 + M11   M16 = M3 + M2
M17 = M5 + T24    M18 = M8 + M7     M19 = M10 + M15   M20 = M16 + M13
M21 = M17 + M15   M22 = M18 + M13   M23 = M19 + T25   M24 = M22 + M23
M25 = M22 x M20   M26 = M21 + M25   M27 = M20 + M21   M28 = M23 + M25
M29 = M28 x M27   M30 = M26 x M24   M31 = M20 x M23   M32 = M27 x M31
M33 = M27 + M25   M34 = M21 x M22   M35 = M24 x M34   M36 = M24 + M25
M37 = M21 + M29   M38 = M32 + M33   M39 = M23 + M30   M40 = M35 + M36
M41 = M38 + M40   M42 = M37 + M39   M43 = M37 + M38   M44 = M39 + M40
M45 = M42 + M41   M46 = M44 x T6    M47 = M40 x T8    M48 = M39 x U7
M49 = M43 x T16   M50 = M38 x T9    M51 = M37 x T17   M52 = M42 x T15
M53 = M45 x T27   M54 = M41 x T10   M55 = M44 x T13   M56 = M40 x T23
M57 = M39 x T19   M58 = M43 x T3    M59 = M38 x T22   M60 = M37 x T20
M61 = M42 x T1    M62 = M45 x T4    M63 = M41 x T2
L0 = M61 + M62    L1 = M50 + M56    L2 = M46 + M48    L3 = M47 + M55
L4 = M54 + M58    L5 = M49 + M61    L6 = M62 + L5     L7 = M46 + L3
L8 = M51 + M59    L9 = M52 + M53    L10 = M53 + L4    L11 = M60 + L2
L12 = M48 + M51   L13 = M50 + L0    L14 = M52 + M61   L15 = M55 + L1
L16 = M56 + L0    L17 = M57 + L1    L18 = M58 + L8    L19 = M63 + L4
L20 = L0 + L1     L21 = L1 + L7     L22 = L3 + L12    L23 = L18 + L2
L24 = L15 + L9    L25 = L6 + L10    L26 = L7 + L9     L27 = L8 + L10
L28 = L11 + L14   L29 = L11 + L17
S0 = L6 + L24     S1 = L16 # L26    S2 = L19 # L28    S3 = L6 + L21
S4 = L20 + L22    S5 = L25 + L29    S6 = L13 # L27    S7 = L6 # L23
"""

# The constant the XNOR-free circuit adds to every S-box output (S1, S2, S6, S7 are
# bits 6, 5, 1, 0).
SBOX_OFFSET = 0x63


def _parse_circuit(text):
    gates = []
    words = text.split()
    for at in range(0, len(words), 5):
        dest, eq, a, op, b = words[at:at + 5]
        assert eq == "=" and op in "+x#", words[at:at + 5]
        gates.append((dest, {"+": "xor", "x": "and", "#": "xor"}[op], a, b))
    return tuple(gates)


SBOX_CIRCUIT = _parse_circuit(SBOX_CIRCUIT_TEXT)


def sbox_by_circuit(x):
    """The XNOR-free circuit on one byte (tests compare it with FIPS-197's S-box)."""
    value = {f"U{i}": x >> (7 - i) & 1 for i in range(8)}
    for dest, op, a, b in SBOX_CIRCUIT:
        value[dest] = value[a] ^ value[b] if op == "xor" else value[a] & value[b]
    return sum(value[f"S{i}"] << (7 - i) for i in range(8)) ^ SBOX_OFFSET


# ---- the inverse S-box circuit, derived from the one above -------------------------

def affine_linear(x):
    """The linear part L of the S-box's affine map (FIPS-197 5.1.1): bit i of L(x) is
    x_i + x_{i+4} + x_{i+5} + x_{i+6} + x_{i+7} (indices mod 8), i.e. x and its
    rotations left by 1..4."""
    out = 0
    for shift in range(5):
        out ^= ((x << shift) | (x >> (8 - shift))) & 0xFF
    return out


# L is a bijection of the 256 bytes; its inverse by table.
_L_TABLE = [affine_linear(x) for x in range(256)]
assert sorted(_L_TABLE) == list(range(256))
AFFINE_LINEAR_INVERSE = [_L_TABLE.index(y) for y in range(256)]


def _layers(circuit):
    """The forward circuit's top (T), middle (M) and bottom (L, S) gates."""
    top = [g for g in circuit if g[0][0] == "T"]
    middle = [g for g in circuit if g[0][0] == "M"]
    bottom = [g for g in circuit if g[0][0] in "LS"]
    assert len(top) + len(middle) + len(bottom) == len(circuit)
    assert all(op == "xor" for _, op, _, _ in top + bottom)
    return top, middle, bottom


def _evaluate(gates, value):
    for dest, op, a, b in gates:
        value[dest] = value[a] ^ value[b] if op == "xor" else value[a] & value[b]
    return value


def xor_network(rows, inputs, prefix):
    """A XOR network computing each row (target name, bit mask over `inputs`) by Paar's
    greedy common-subexpression elimination: while some target needs more than one
    signal, add the XOR of the pair of signals shared by the most targets (the first
    such pair in signal order on a tie) and substitute it.  Returns (gates, outputs):
    gates (dest, "xor", a, b) in order, outputs target -> the signal holding it (a gate
    is named after the first target it completes, so most outputs are their own gate)."""
    signals = list(inputs)
    need = {name: {i for i in range(len(inputs)) if mask >> i & 1} for name, mask in rows}
    assert all(need.values()), "a target is constant zero"
    gates = []
    while True:
        count = {}
        for cols in need.values():
            cols = sorted(cols)
            for x in range(len(cols)):
                for y in range(x + 1, len(cols)):
                    count[cols[x], cols[y]] = count.get((cols[x], cols[y]), 0) + 1
        if not count:
            break
        pair = max(sorted(count), key=lambda p: count[p])   # stable: the first on a tie
        new = len(signals)
        signals.append(f"{prefix}{new - len(inputs) + 1}")
        gates.append((signals[new], "xor", signals[pair[0]], signals[pair[1]]))
        for cols in need.values():
            if pair[0] in cols and pair[1] in cols:
                cols -= set(pair)
                cols.add(new)
    outputs = {name: signals[next(iter(cols))] for name, cols in need.items()}
    rename = {}
    for name, signal in outputs.items():
        if signal.startswith(prefix) and signal not in rename:
            rename[signal] = name
    gates = [(rename.get(d, d), op, rename.get(a, a), rename.get(b, b)) for d, op, a, b in gates]
    outputs = {name: rename.get(s, s) for name, s in outputs.items()}
    return tuple(gates), outputs


def _inverse_sbox_circuit(circuit):
    """InvSbox(y) = inv(L^-1(y + 0x63)).  The forward circuit is top (z -> T1..T27, U7),
    middle (-> M46..M63, the only values the bottom reads) and bottom (M46..M63 ->
    L(inv(z)), XOR-only); on input y' = y + 0x63 the middle must see the top's values
    at z = L^-1(y'), and inv(z) = L^-1(bottom).  Both new linear layers are computed
    as GF(2) matrices over a basis and synthesised by xor_network.  Inputs Y<b> = bit b
    of y' (plane b), outputs W<b> = bit b of InvSbox(y)."""
    top, middle, bottom = _layers(circuit)
    made = {d for d, _, _, _ in middle}
    middle_inputs = sorted({v for _, _, a, b in middle for v in (a, b) if v not in made},
                           key=lambda v: (v[0], int(v[1:])))
    assert all(v[0] == "T" for v in middle_inputs[:-1]) and middle_inputs[-1] == "U7"
    bottom_made = {d for d, _, _, _ in bottom}
    bottom_inputs = sorted({v for _, _, a, b in bottom for v in (a, b) if v not in bottom_made},
                           key=lambda v: int(v[1:]))
    assert bottom_inputs == [f"M{k}" for k in range(46, 64)], bottom_inputs

    # top: each middle input as a function of y' (bit j of y' -> its column)
    top_rows = dict.fromkeys(middle_inputs, 0)
    for j in range(8):
        z = AFFINE_LINEAR_INVERSE[1 << j]
        value = _evaluate(top, {f"U{i}": z >> (7 - i) & 1 for i in range(8)})
        for name in middle_inputs:
            top_rows[name] |= value[name] << j
    # bottom: each bit of inv(z) = L^-1(S) as a function of M46..M63
    bottom_rows = dict.fromkeys(range(8), 0)
    for k, m in enumerate(bottom_inputs):
        value = _evaluate(bottom, {v: int(v == m) for v in bottom_inputs})
        w = AFFINE_LINEAR_INVERSE[sum(value[f"S{i}"] << (7 - i) for i in range(8))]
        for b in range(8):
            bottom_rows[b] |= (w >> b & 1) << k

    top_gates, top_out = xor_network(list(top_rows.items()), [f"Y{j}" for j in range(8)], "A")
    bottom_gates, bottom_out = xor_network([(f"W{b}", bottom_rows[b]) for b in range(8)],
                                           bottom_inputs, "B")
    return top_gates, top_out, tuple(middle), bottom_gates, bottom_out


(INV_TOP, INV_TOP_OUTPUTS, INV_MIDDLE, INV_BOTTOM,
 INV_BOTTOM_OUTPUTS) = _inverse_sbox_circuit(SBOX_CIRCUIT)


def _inverse_sbox_gates(gate, planes):
    """Runs the inverse circuit on planes = Y0..Y7 through gate(dest, op, a, b, name_a,
    name_b) -> the new value (a, b the operands' values); a layer's target that is an
    input or another target's signal costs no gate.  Returns W0..W7."""
    value = {f"Y{j}": planes[j] for j in range(8)}
    for layer, outputs in ((INV_TOP, INV_TOP_OUTPUTS), (INV_MIDDLE, None),
                           (INV_BOTTOM, INV_BOTTOM_OUTPUTS)):
        for dest, op, a, b in layer:
            value[dest] = gate(dest, op, value[a], value[b], a, b)
        for name, signal in (outputs or {}).items():
            value[name] = value[signal]
    return [value[f"W{b}"] for b in range(8)]


def inv_sbox_by_circuit(x):
    """The derived inverse circuit on one byte (tests compare it with FIPS-197's
    inverse S-box)."""
    y = x ^ SBOX_OFFSET
    w = _inverse_sbox_gates(lambda d, op, a, b, na, nb: a ^ b if op == "xor" else a & b,
                            [y >> j & 1 for j in range(8)])
    return sum(bit << b for b, bit in enumerate(w))


# ---- byte orders and constants -----------------------------------------------------

def _row_major(q):
    """Row-major position 4*row + col -> AES's column-major index 4*col + row."""
    row, col = divmod(q, 4)
    return 4 * col + row


# pshufb masks (dest byte i takes source byte mask[i]).
ROW_MAJOR = [_row_major(q) for q in range(16)]                  # column- -> row-major
SHIFT_ROWS = [4 * (q // 4) + (q % 4 + q // 4) % 4 for q in range(16)]   # row-major
# The last round: ShiftRows, then back to column-major.
SHIFT_ROWS_TO_COLUMNS = [SHIFT_ROWS[ROW_MAJOR.index(i)] for i in range(16)]
# Decryption's InvShiftRows (row r rotated right by r), row-major; and the last round's
# InvShiftRows back to column-major.
INV_SHIFT_ROWS = [4 * (q // 4) + (q % 4 - q // 4) % 4 for q in range(16)]
INV_SHIFT_ROWS_TO_COLUMNS = [INV_SHIFT_ROWS[ROW_MAJOR.index(i)] for i in range(16)]
# CTR's counter: little-endian 128-bit integer -> big-endian block -> row-major.
BYTE_SWAP_ROW_MAJOR = [15 - ROW_MAJOR[q] for q in range(16)]

ROTATE_ROWS = 0x39          # pshufd: dword r <- dword r + 1 (R)
ROTATE_ROWS_TWICE = 0x4E    # pshufd: dword r <- dword r + 2 (R^2)

TABLES = {
    "row_major": ROW_MAJOR,
    "shift_rows": SHIFT_ROWS,
    "shift_rows_to_columns": SHIFT_ROWS_TO_COLUMNS,
    "bswap_row_major": BYTE_SWAP_ROW_MAJOR,
    "swap1": [0x55] * 16,
    "swap2": [0x33] * 16,
    "swap4": [0x0F] * 16,
    "sbox_offset": [SBOX_OFFSET] * 16,
}
for _b in range(8):
    TABLES[f"bit{_b}"] = [1 << _b] * 16

# The decryption round's masks (inverse_round_program), apart from TABLES so that the
# files without a bitsliced decryption (CTR, XCTR) do not carry them.
DECRYPT_TABLES = {
    "inv_shift_rows": INV_SHIFT_ROWS,
    "inv_shift_rows_to_columns": INV_SHIFT_ROWS_TO_COLUMNS,
}

# The planes a round key's S-box offset complements (the bits of 0x63).
OFFSET_PLANES = tuple(b for b in range(8) if SBOX_OFFSET >> b & 1)

# The swap-move network: (distance, mask, register pairs); stage by stage.
TRANSPOSE = ((1, "swap1", ((0, 1), (2, 3), (4, 5), (6, 7))),
             (2, "swap2", ((0, 2), (1, 3), (4, 6), (5, 7))),
             (4, "swap4", ((0, 4), (1, 5), (2, 6), (3, 7))))


def transpose_model(regs):
    """The network on eight 128-bit integers (tests use it to find the plane order)."""
    regs = list(regs)
    for n, mask, pairs in TRANSPOSE:
        m = int.from_bytes(bytes(TABLES[mask]), "little")
        for lo, hi in pairs:
            t = ((regs[lo] >> n) ^ regs[hi]) & m
            regs[hi] ^= t
            regs[lo] ^= t << n
    return regs


def _plane_of_register():
    """After the network, register k holds bit plane PLANE[k]; block j's bits sit at bit
    position BLOCK_BIT[j] of each byte."""
    planes, bits = {}, {}
    for j in range(8):
        for b in range(8):
            blocks = [0] * 8
            blocks[j] = 1 << b                       # bit b of byte 0 of block j
            out = transpose_model(blocks)
            (k,) = [k for k in range(8) if out[k]]
            planes.setdefault(b, set()).add(k)
            bits.setdefault(j, set()).add(out[k].bit_length() - 1)
    assert all(len(v) == 1 for v in planes.values()) and all(len(v) == 1 for v in bits.values())
    return ({next(iter(v)): b for b, v in planes.items()}, {j: next(iter(v)) for j, v in bits.items()})


PLANE_OF_REGISTER, BLOCK_BIT = _plane_of_register()


# ---- SSA programs over planes ------------------------------------------------------

class Program:
    """Straight-line operations on 128-bit values named by strings.  kinds:
    xor/and (commutative, two values), pshufd (value, immediate), pshufb (value, mask
    operand; in place), xorm (value, memory operand)."""

    def __init__(self, inputs):
        self.inputs = list(inputs)
        self.ops = []
        self.outputs = []
        self._count = 0

    def _new(self, hint):
        self._count += 1
        return f"{hint}.{self._count}"

    def op(self, kind, a, b, hint="v", note=""):
        dest = self._new(hint)
        self.ops.append((kind, dest, a, b, note))
        return dest


def round_program(key_operand, last):
    """One round on planes P0..P7 (bit b in P<b>): ShiftRows (last: and back to column
    order), SubBytes by the circuit, then (not last) MixColumns and the round key,
    key_operand(b) being plane b's memory operand.  Outputs: the eight planes."""
    prog = Program([f"P{b}" for b in range(8)])
    mask = "shift_rows_to_columns" if last else "shift_rows"
    note = "ShiftRows, back to column order" if last else "ShiftRows"
    shifted = [prog.op("pshufb", f"P{b}", mask, f"sr{b}", f"{note}: plane {b} = U{7 - b}")
               for b in range(8)]
    value = {f"U{i}": shifted[7 - i] for i in range(8)}
    for dest, op, a, b in SBOX_CIRCUIT:
        value[dest] = prog.op(op, value[a], value[b], dest,
                              f"{dest} = {a} {'&' if op == 'and' else '^'} {b}")
    s = [value[f"S{7 - b}"] for b in range(8)]
    if last:
        prog.outputs = s
        return prog
    prog.outputs = _mix_columns_and_key(prog, s, [f"S{7 - b}" for b in range(8)], key_operand)
    return prog


def inverse_round_program(key_operand, last):
    """One round of the equivalent inverse cipher (AESDEC's order) on planes P0..P7
    holding state + 0x63 in every byte: InvShiftRows (last: and back to column order),
    InvSubBytes by the derived circuit, then (not last) InvMixColumns and the round key
    key_operand(b) (the AESDEC schedule's, the caller having added 0x63 to it when an
    InvSubBytes follows).  InvMixColumns = MixColumns(P(a)), P(a) = a + 4(a + R^2(a)).
    Outputs: the eight planes."""
    prog = Program([f"P{b}" for b in range(8)])
    mask = "inv_shift_rows_to_columns" if last else "inv_shift_rows"
    note = "InvShiftRows, back to column order" if last else "InvShiftRows"
    shifted = [prog.op("pshufb", f"P{b}", mask, f"isr{b}", f"{note}: plane {b} = Y{b}")
               for b in range(8)]

    def gate(dest, op, a, b, name_a, name_b):
        symbol = "&" if op == "and" else "^"
        return prog.op(op, a, b, dest, f"{dest} = {name_a} {symbol} {name_b}")

    w = _inverse_sbox_gates(gate, shifted)
    if last:
        prog.outputs = w
        return prog
    # InvMixColumns(w) = MixColumns(p), p = w + 4u, u = w + R^2(w)
    u = [prog.op("xor", w[b], prog.op("pshufd", w[b], ROTATE_ROWS_TWICE, f"r2w{b}",
                                      f"w{b} = W{b}; R^2(w{b})"),
                 f"u{b}", f"u{b} = w{b} + R^2(w{b})") for b in range(8)]
    quad = _times_two(prog, _times_two(prog, u, "u"), "(2u)")
    p = [prog.op("xor", w[b], quad[b], f"p{b}", f"p{b} = w{b} + 4u{b}") for b in range(8)]
    prog.outputs = _mix_columns_and_key(prog, p, [f"p{b}" for b in range(8)], key_operand)
    return prog


def _times_two(prog, v, name):
    """2v on planes v[0..7] (bit b in v[b]): a renaming and three XORs, as
    x^8 = x^4 + x^3 + x + 1."""
    return [v[7], prog.op("xor", v[0], v[7], "d1", f"2{name}, plane 1 = {name}0 + {name}7"),
            v[1], prog.op("xor", v[2], v[7], "d3", f"2{name}, plane 3 = {name}2 + {name}7"),
            prog.op("xor", v[3], v[7], "d4", f"2{name}, plane 4 = {name}3 + {name}7"),
            v[4], v[5], v[6]]


def _mix_columns_and_key(prog, s, source, key_operand):
    """MixColumns of the planes s (plane b called source[b] in the notes), then the
    round key: MC(a) = 2t + R(a) + R^2(t), t = a + R(a).  Returns the eight planes."""
    ra = [prog.op("pshufd", s[b], ROTATE_ROWS, f"ra{b}", f"a{b} = {source[b]}; R(a{b})")
          for b in range(8)]
    t = [prog.op("xor", s[b], ra[b], f"t{b}", f"t{b} = a{b} + R(a{b})") for b in range(8)]
    double = _times_two(prog, t, "t")
    out = []
    for b in range(8):
        r2t = prog.op("pshufd", t[b], ROTATE_ROWS_TWICE, f"r2t{b}", f"R^2(t{b})")
        x = prog.op("xor", double[b], ra[b], f"o{b}", f"plane {b}: 2t + R(a)")
        x = prog.op("xorm", x, key_operand(b), f"o{b}", "+ round key")
        out.append(prog.op("xor", x, r2t, f"o{b}", "+ R^2(t): MixColumns done"))
    return out


# schedule(): above this many live values, operations that end a value's life first.
PRESSURE_LIMIT = 15

# Stack slots a round may spill to (Allocator.emit checks it).
SPILL_SLOTS = 16

# The bulk path's part of the stack frame, after vector-permute's 272 bytes
# (lib/vperm.j2): round key 0 in row-major order, the last round key (column-major), the
# spill slots, the middle round keys as planes (the key m rounds before the last,
# m = 1 .. 13, at KEYS + 128 * (13 - m), plane b 16 b further), and XTS's tweaks of an
# iteration's eight blocks and the next one.
FRAME_BASE = 272
FIRST_KEY = FRAME_BASE
LAST_KEY = FRAME_BASE + 16
SPILL = FRAME_BASE + 32
KEYS = SPILL + 16 * SPILL_SLOTS
TWEAKS = KEYS + 13 * 128
FRAME_END = TWEAKS + 16 * 9


def middle_key(m):
    """Frame offset of the planes of the round key m rounds before the last."""
    return KEYS + 128 * (13 - m)


class Allocator:
    """Two-operand register allocation of a Program onto `registers`, spilling to
    slots (spill_operand(i) = slot i's memory operand).  inputs: value -> register at
    entry; outputs must end in out_registers (list, in program output order)."""

    def __init__(self, registers, spill_operand, table_operand):
        self.registers = list(registers)
        self.spill_operand = spill_operand
        self.table_operand = table_operand
        self.slots_used = 0

    def emit(self, prog, inputs, out_registers):
        ops = prog.ops
        uses = {}
        for i, (kind, dest, a, b, _) in enumerate(ops):
            for v in ((a, b) if kind in ("xor", "and") else (a,)):
                uses.setdefault(v, []).append(i)
        end = len(ops)
        for v in prog.outputs:
            uses.setdefault(v, []).append(end)
        reg_of, value_in = dict(inputs), {r: v for v, r in inputs.items()}
        slot_of = {}
        free_slots = []
        lines = []

        def next_use(v, i):
            return next((u for u in uses.get(v, ()) if u > i), None)

        def memory(v):
            return self.spill_operand(slot_of[v])

        def release(v):
            r = reg_of.pop(v, None)
            if r is not None:
                del value_in[r]

        def take_register(i, keep):
            free = [r for r in self.registers if r not in value_in]
            if free:
                return free[0]
            # Belady: evict the value needed farthest ahead (never one this op reads)
            victim = max((v for v in value_in.values() if v not in keep),
                         key=lambda v: (next_use(v, i) or 10 ** 9))
            r = reg_of[victim]
            if victim not in slot_of:
                if free_slots:
                    slot_of[victim] = free_slots.pop()
                else:
                    slot_of[victim] = self.slots_used
                    self.slots_used += 1
                lines.append(f"movdqa {memory(victim)}, {r}")
            release(victim)
            return r

        def operand(v):
            return reg_of[v] if v in reg_of else memory(v)

        def retire(v, i):
            if next_use(v, i) is None:
                release(v)
                if v in slot_of:
                    free_slots.append(slot_of.pop(v))

        for i, (kind, dest, a, b, note) in enumerate(ops):
            if kind in ("xor", "and"):
                insn = "pxor" if kind == "xor" else "pand"
                dying = [v for v in (a, b) if next_use(v, i) is None and v in reg_of]
                if dying:
                    x = dying[0]
                    other = b if x == a else a
                    r = reg_of[x]
                    release(x)
                    lines.append(f"{insn} {r}, {operand(other)}")
                else:
                    # copy one source (a register one if any, so the other may be memory)
                    x, other = (a, b) if a in reg_of or b not in reg_of else (b, a)
                    r = take_register(i, (a, b))
                    lines.append(f"movdqa {r}, {operand(x)}")
                    lines.append(f"{insn} {r}, {operand(other)}")
                for v in (a, b):
                    if v in reg_of or v in slot_of:
                        retire(v, i)
            elif kind == "pshufd":
                if next_use(a, i) is None and a in reg_of:
                    r = reg_of[a]
                    release(a)
                    lines.append(f"pshufd {r}, {r}, {b:#04x}")
                else:
                    r = take_register(i, (a,))
                    lines.append(f"pshufd {r}, {operand(a)}, {b:#04x}")
                    retire(a, i)
            else:   # pshufb / xorm: in place on a, b a memory operand
                insn = "pshufb" if kind == "pshufb" else "pxor"
                mem = self.table_operand(b) if kind == "pshufb" else b
                if next_use(a, i) is None and a in reg_of:
                    r = reg_of[a]
                    release(a)
                else:
                    r = take_register(i, (a,))
                    lines.append(f"movdqa {r}, {operand(a)}")
                    retire(a, i)
                lines.append(f"{insn} {r}, {mem}")
            if note:
                lines[-1] = f"{lines[-1]:<31} # {note}"
            reg_of[dest], value_in[r] = r, dest
            if next_use(dest, i) is None:
                raise AssertionError(f"{dest} is never used")
        lines += self._place(prog.outputs, out_registers, reg_of, value_in, slot_of)
        return lines

    def _place(self, outputs, targets, reg_of, value_in, slot_of):
        """Moves the outputs into their registers (a parallel move through a free
        register when they form a cycle)."""
        lines = []
        want = dict(zip(outputs, targets))
        spare = [r for r in self.registers if r not in value_in and r not in targets]
        pending = {v: t for v, t in want.items() if reg_of.get(v) != t}
        while pending:
            progress = False
            for v, t in list(pending.items()):
                if t not in value_in:
                    src = reg_of[v] if v in reg_of else self.spill_operand(slot_of[v])
                    lines.append(f"movdqa {t}, {src}")
                    if v in reg_of:
                        del value_in[reg_of[v]]
                    reg_of[v], value_in[t] = t, v
                    del pending[v]
                    progress = True
            if not progress:    # a cycle: park one value in a spare register
                v = next(iter(pending))
                s = spare[0] if spare else None
                if s is None:
                    raise AssertionError("no spare register to break a cycle")
                lines.append(f"movdqa {s}, {reg_of[v]}")
                del value_in[reg_of[v]]
                reg_of[v], value_in[s] = s, v
        return lines


def transpose_lines(regs, temp, table_operand):
    """The swap-move network on the registers regs[0..7], with one scratch register."""
    lines = []
    for n, mask, pairs in TRANSPOSE:
        for lo, hi in pairs:
            a, b = regs[lo], regs[hi]
            lines += [f"movdqa {temp}, {a}", f"psrlq {temp}, {n}", f"pxor {temp}, {b}",
                      f"pand {temp}, {table_operand(mask)}", f"pxor {b}, {temp}",
                      f"psllq {temp}, {n}", f"pxor {a}, {temp}"]
    return lines


# ---- what the templates call (templates/lib/bitslice.j2) ---------------------------

# The planes between rounds, and every register the rounds may use.
PLANE_REGISTERS = tuple(f"xmm{b}" for b in range(8))
ROUND_REGISTERS = tuple(f"xmm{r}" for r in range(16))


def table_operand(name):
    return f"xmmword [rip + .Lbs_{name}]"


def round_lines(m, frame, decrypt=False):
    """The round m rounds before the last (0: the last round), planes in and out in
    PLANE_REGISTERS; frame: the frame base register's name.  decrypt: the equivalent
    inverse cipher's round (inverse_round_program), its key planes at the same
    middle_key(m)."""
    alloc = Allocator(ROUND_REGISTERS, lambda i: f"xmmword [{frame} + {SPILL + 16 * i}]",
                      table_operand)
    build = inverse_round_program if decrypt else round_program
    prog = schedule(build(lambda b: f"xmmword [{frame} + {middle_key(m) + 16 * b}]", m == 0))
    lines = alloc.emit(prog, dict(zip(prog.inputs, PLANE_REGISTERS)), PLANE_REGISTERS)
    if alloc.slots_used > SPILL_SLOTS:
        raise AssertionError(f"a round spills to {alloc.slots_used} slots, the frame has "
                             f"{SPILL_SLOTS}")
    return lines


def transpose_plane_lines():
    return transpose_lines(PLANE_REGISTERS, "xmm8", table_operand)


def schedule(prog, pressure=PRESSURE_LIMIT):
    """Reorders prog.ops (a topological order still): ready operations by their
    longest path to an output first, so the chain that bounds a round is fed before
    the work that has slack; but while `pressure` values or more are alive, an
    operation that ends a value's life goes first, so fewer values go to the stack (a
    spill's store-to-load forwarding is on the round's chain)."""
    ops = prog.ops
    producer = {op[1]: i for i, op in enumerate(ops)}
    operands = []
    for kind, dest, a, b, _ in ops:
        operands.append([a, b] if kind in ("xor", "and") else [a])
    srcs = [[producer[v] for v in vs if v in producer] for vs in operands]
    users = [[] for _ in ops]
    for i, s in enumerate(srcs):
        for p in s:
            users[p].append(i)
    height = [0] * len(ops)
    for i in range(len(ops) - 1, -1, -1):
        height[i] = 1 + max((height[u] for u in users[i]), default=0)
    remaining = {}
    for vs in operands:
        for v in vs:
            remaining[v] = remaining.get(v, 0) + 1
    for v in prog.outputs:
        remaining[v] = remaining.get(v, 0) + 1
    live = len(prog.inputs)
    waiting = [len(s) for s in srcs]
    ready = [i for i in range(len(ops)) if not waiting[i]]
    order = []

    def freed(i):
        return sum(1 for v in set(operands[i]) if remaining[v] == operands[i].count(v))

    while ready:
        if live >= pressure:
            ready.sort(key=lambda i: (-(freed(i) >= 1), -height[i], i))
        else:
            ready.sort(key=lambda i: (-height[i], i))
        i = ready.pop(0)
        order.append(i)
        live += 1 - freed(i)
        for v in operands[i]:
            remaining[v] -= 1
        for u in users[i]:
            waiting[u] -= 1
            if not waiting[u]:
                ready.append(u)
    prog.ops = [ops[i] for i in order]
    return prog
