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
to row-major on the way in (one pshufb per block) and the last round's
ShiftRows mask permutes back to column-major, so the output is in the standard order.
The transposition X -> planes is three stages of swap-moves (bit distance 1, 2, 4
between registers 1, 2, 4 apart); it is its own inverse.

SubBytes and InvSubBytes are Boolean circuits over the planes (generator/sbox_circuit.py:
Boyar and Peralta's depth-16 S-box with the bottom layer of their 113-gate one, 118
gates, and an inverse derived from it, 122).
Their XOR-only forms add 0x63 to every byte, which passes unchanged through ShiftRows and
MixColumns (a column of equal bytes c maps to c), so it is folded into the round keys,
as vperm.py does for its own constant: encryption's keys 1..Nr, decryption's dk[0] ..
dk[Nr-1] (each is followed by an InvSubBytes), not dk[Nr].

MixColumns, per plane, with R = rows up by one (pshufd 0x39) and t = a + R(a):
    MC(a) = 2a + 3R(a) + R^2(a) + R^3(a) = 2t + R(a) + R^2(t)
and 2t on planes is a renaming plus three XORs (x^8 = x^4 + x^3 + x + 1).

Decryption (inverse_round_program, round_lines(..., decrypt=True)) is the equivalent
inverse cipher on the AESDEC schedule: InvShiftRows (one pshufb per plane), InvSubBytes,
InvMixColumns, + key.  With u = a + R^2(a), InvMixColumns(a) = MixColumns(a + 4u), as
(03x^3 + x^2 + x + 02)(04x^2 + 05) = 0Bx^3 + 0Dx^2 + 09x + 0E mod x^4 + 1: 8 pshufd
and 22 XORs more than MixColumns.  A middle round is 211 operations (encryption's 177),
273 instructions after allocation with 13 spill stores (encryption: 235 and 11).

Counter modes' first round (ROUND1_*, lib/bitslice.j2 round1_table, counter_planes_fast,
counter_round1_save).  The eight blocks of a CTR or XCTR batch differ in one byte, so
after round 1 they differ only in one column: SubBytes changes that byte alone, ShiftRows
moves it, MixColumns spreads its S-box output s over the column as s, 2s, 3s.  The rest
of round 1's output is the same for every batch whose counter agrees above the low byte
(its tag), and s depends only on the key and the low byte.  So a call makes a table of s
and 2s for all 256 low bytes once (the S-box circuit on two sets of planes), keeps
round 1's output with s removed for the current tag, and starts every other batch at
round 2: per plane two pshufb of the batch's table entry and two XORs, about 56
instructions in place of a round of about 250 (and of the counter planes' 45).  Round 2
goes the same way one level down (ROUND2_*): after round 1 only one column varies, so
round 2's S-box has four varying inputs, whose outputs y_0..y_3 MixColumns spreads over
every byte as y, 2y, 3y; for each counter tag with enough batches left, the S-box
circuit makes the y of the batches the tag and the message have (one run of sixteen
inputs, about 300 instructions, per four batches) and the tag's later batches start at
round 3 from ROUND2_BASE ^ V2(y), about 60 instructions.  The tables and the saved
planes are secret, on the stack, wiped with the rest; an entry's index is the counter,
which is public.

Registers.  A round is a straight-line SSA program (generator/regalloc.py's Program) of
about 200 operations with up to ~25 values alive; regalloc's schedule() and Allocator
map it onto the 16 xmm registers in two-operand form, with spills to the frame's slots,
the S-box middle's first layer in the order CLUSTER_ORDER gives (below).
The templates loop over the middle rounds (one body, its key planes at a register
offset: round_lines(..., key=...)), then the last round, each starting and ending with
the planes in PLANE_REGISTERS.  Rolled, the bulk path's code is 16 KB smaller per
function than with the 13 rounds unrolled, which is what a short message gains from: on
Zen 4 XTS-256 at 256 B went from 0.94x to 1.14x OpenSSL's fallback, the steady state
unchanged.
"""

from .regalloc import Allocator, Program, schedule
from .sbox_circuit import SBOX_CIRCUIT, SBOX_OFFSET, inverse_sbox_gates


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

ROTATE_ROWS = 0x39          # pshufd: dword r <- dword r + 1 (R)
ROTATE_ROWS_TWICE = 0x4E    # pshufd: dword r <- dword r + 2 (R^2)

TABLES = {
    "row_major": ROW_MAJOR,
    "shift_rows": SHIFT_ROWS,
    "shift_rows_to_columns": SHIFT_ROWS_TO_COLUMNS,
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

def round_program(key_operand, last):
    """One round on planes P0..P7 (bit b in P<b>): ShiftRows (last: and back to column
    order), SubBytes by the circuit, then (not last) MixColumns and the round key,
    key_operand(b) being plane b's memory operand.  Outputs: the eight planes."""
    prog = Program([f"P{b}" for b in range(8)])
    mask = "shift_rows_to_columns" if last else "shift_rows"
    note = "ShiftRows, back to column order" if last else "ShiftRows"
    shifted = [prog.op("pshufb", f"P{b}", mask, f"sr{b}", f"{note}: plane {b} = U{7 - b}")
               for b in range(8)]
    s = _sbox(prog, [shifted[7 - i] for i in range(8)])
    if last:
        prog.outputs = s
        return prog
    prog.outputs = _mix_columns_and_key(prog, s, [f"S{7 - b}" for b in range(8)], key_operand)
    return prog


def _sbox(prog, inputs):
    """The S-box circuit in prog on inputs U0..U7; returns the output planes, bit b
    (S7 - b) first."""
    value = {f"U{i}": inputs[i] for i in range(8)}
    for dest, op, a, b in SBOX_CIRCUIT:
        value[dest] = prog.op(op, value[a], value[b], dest,
                              f"{dest} = {a} {'&' if op == 'and' else '^'} {b}")
    return [value[f"S{7 - b}"] for b in range(8)]


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

    w = inverse_sbox_gates(gate, shifted)
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


# The order the rounds compute the first layer of the S-box's middle in (regalloc
# schedule(first=...)): the top's values are then made just before their first AND,
# and the ones the bottom reads again go to the stack after that use, not before it,
# so their reloads are far from their stores.  (With the plain schedule some top values
# were spilled and read back within a few cycles, each reload waiting for its store to
# forward.)  The layer is five clusters, an AND of top values with the XORs that join
# it: A = M1 M3 M2 M16, B = M4 M5, C = M6 M8 M7 M18, D = M9 M10, E = M11..M15.  Their
# order is perf/bitslice_order.py's choice: the best of the 120 by its out-of-order
# model (tests/python/test_bitslice_order.py checks it still is); measured on Zen 4,
# a middle round went from 60 to 56.6 cycles (E A C B D) and an inverse round from 73
# to 67 (B A E D C).  With the inverse's shorter top layer (generator/sbox_circuit.py)
# the model's best inverse order became B A E C D, also the fastest of five timed on a
# busy host (76.0 cycles against 78.2 to 82.2; B A E D C 81.2).
MIDDLE_CLUSTERS = {
    "A": ("M1", "M3", "M2", "M16"),
    "B": ("M4", "M5"),
    "C": ("M6", "M8", "M7", "M18"),
    "D": ("M9", "M10"),
    "E": ("M11", "M12", "M13", "M14", "M15"),
}
CLUSTER_ORDER = {False: "EACBD", True: "BAECD"}     # decrypt -> the order


def middle_first(order):
    """The hints schedule(first=...) takes for a cluster order such as "EACBD"."""
    return tuple(g for c in order for g in MIDDLE_CLUSTERS[c])


# Stack slots a round may spill to (Allocator.emit checks it).
SPILL_SLOTS = 16

# The bulk path's part of the stack frame, after vector-permute's 272 bytes
# (lib/vperm.j2): round key 0 in row-major order, the last round key (column-major), the
# spill slots, the middle round keys as planes (the key m rounds before the last,
# m = 1 .. 13, at KEYS + 128 * (13 - m), plane b 16 b further), XTS's tweaks of an
# iteration's eight blocks and the next one, and the eight blocks (XTS) or keystream
# blocks (CTR, XCTR) of a last, partly used iteration (FINAL_BLOCKS: the main loop's
# body runs once more on a copy of the bytes left, so that only the message's bytes are
# read and written; FINAL_STATE: the message's SRC, DST and bytes left meanwhile).
FRAME_BASE = 272
FIRST_KEY = FRAME_BASE
LAST_KEY = FRAME_BASE + 16
SPILL = FRAME_BASE + 32
KEYS = SPILL + 16 * SPILL_SLOTS
TWEAKS = KEYS + 13 * 128
FINAL_BLOCKS = TWEAKS + 16 * 9
FINAL_STATE = FINAL_BLOCKS + 16 * 8
FRAME_END = FINAL_STATE + 32

# CTR and XCTR (no tweaks) keep their counter planes in the tweaks' slots: eight blocks
# ctr .. ctr + 7 differ only in the counter's low byte as long as it does not wrap, so
# their planes after round key 0 are the saved planes of such a batch (COUNTER_BASE:
# that byte cleared) with that byte's eight bits put back, one byte per plane
# (lib/bitslice.j2 counter_planes_fast), instead of eight blocks built and transposed.
# COUNTER_TAG: the counter >> 8 the saved planes belong to (-1: none); COUNTER_MASK:
# what the varying byte is XORed with (the round key's byte, XCTR: and the IV's), in
# all eight bytes.  A batch whose low byte starts above COUNTER_BATCH_LAST wraps inside.
COUNTER_BASE = TWEAKS
COUNTER_TAG = TWEAKS + 128
COUNTER_MASK = TWEAKS + 136
COUNTER_BATCH_LAST = 256 - 8

# CTR and XCTR also skip the first round (counter-mode caching, after Bernstein and
# Schwabe, "New AES software speed records", 2008).  In a batch only the byte at the
# counter's position P varies, so after round 1 the planes are ROUND1_BASE (the
# round-1 output with that byte's S-box output s replaced by 0; saved per counter tag
# like COUNTER_BASE) XOR V(s): s moved by ShiftRows to P' and spread by MixColumns over
# P''s column as 1s, 2s or 3s (round1_select).  s = S(c ^ mask) for the batch's eight
# counter bytes c comes from ROUND1_TABLE, made once per call when the message is long
# enough (ROUND1_MIN_BYTES): the S-box circuit on the low bytes the call's batches start
# at, in the 8 x 8 transposed form (byte b = bit b of s for the blocks j = 0..7 of a
# batch, in bit j), s's entries at ROUND1_TABLE, 2s's at ROUND1_TABLE + 256.  Batch k of
# a call starts at low byte w0 + 8k (mod 256; w0: the first batch's), so entry k mod 32
# is batch k's, found from a batch's w as ((w >> 3) - (w0 >> 3)) mod 32 (ROUND1_FIRST =
# w0 >> 3); entries 16..31 are made only for a call of ROUND1_FULL_BYTES or more, as
# shorter ones have at most 16 batches.  The index is the counter, which is public.
# ROUND1_TAG: the counter >> 8 that ROUND1_BASE belongs to; -1 none yet; -2 no table
# in this call.
ROUND1_BASE = FRAME_END
ROUND1_TAG = ROUND1_BASE + 128
ROUND1_FIRST = ROUND1_TAG + 8
ROUND1_TABLE = ROUND1_TAG + 16
# Round 2 as well (ROUND2_*): after round 1 only the column round1_positions() varies,
# so round 2's S-box has four varying inputs, y_i = S(ROUND1_BASE's byte p_i ^ c_i s)
# (c_i MixColumns' coefficient of s there), which ShiftRows sends to four columns and
# MixColumns spreads over all sixteen bytes as 1y, 2y or 3y (round2_select).  The y_i
# depend on the tag (through ROUND1_BASE), so ROUND2_TABLE is made per tag, when its
# first batch has saved ROUND1_BASE and the message and the tag have ROUND2_MIN_BATCHES
# more batches, for the batches they have: the S-box circuit on four batches' four
# inputs at a time (a run; eight for all of a tag's 32 batches), the inputs from
# ROUND1_TABLE's s and 2s entries.  Entry k (batch k, indexed as ROUND1_TABLE's) is 32
# bytes: dword b of its first half holds plane b of y_0..y_3 (byte i: y_i's bits for
# the blocks 0..7), planes 4..7 in the second; 2y is made from them in the lookup (two
# palignr, a broadcast of plane 7).
# Every later batch of the tag starts at round 3 from ROUND2_BASE ^ V2(y).
# ROUND2_TAG: the tag ROUND2_BASE is for; -1 none yet (the table holds data), -2 none
# made in this call.
ROUND2_BASE = ROUND1_TABLE + 512
ROUND2_TAG = ROUND2_BASE + 128
ROUND2_TABLE = ROUND2_TAG + 16
COUNTER_FRAME_END = ROUND2_TABLE + 32 * 32
# A run (four batches' entries) costs about 55 TSC ticks on Zen 4 and each batch that
# then starts at round 3 saves about 37; a tag's first batch takes the full path, and
# saving ROUND2_BASE costs about one more batch's lookup.  Measured on Zen 4 (TSC ticks
# per byte, best of 12-15 alternating runs, AES-128 / AES-256), CTR with the table from
# 5 batches against from 8: 640 B 0% / 0%, 768 B -1.3% / -0.7%, 896 B -2.5% / -1.6%;
# but GCM's one-shot (whose keystream is one such call between GHASH passes) took
# +0.6% to +1.6% at 768 B with it from 6 (best of 6, against round 1 only), and is
# within 1% of that from 896 B to 1 KiB with it from 7.
ROUND2_MIN_BATCHES = 7
# 16 batches: 15 iterations and the final one (FINAL_BATCH_BLOCKS) stay below 2048 bytes
ROUND1_FULL_BYTES = 16 * 128
ROUND1_NO_TABLE = -2


def counter_select(position, b):
    """pshufb mask: byte `position` takes byte b of the source, every other byte 0."""
    return [b if q == position else 0x80 for q in range(16)]


def counter_clear(position):
    """pand mask: every byte but `position` kept."""
    return [0 if q == position else 0xFF for q in range(16)]


def _round1_column(position):
    """Where round 1 puts the varying byte's S-box output s (row-major position P'
    after ShiftRows) and MixColumns' coefficient of s at each position of its column:
    {position: 1, 2 or 3}."""
    shifted = SHIFT_ROWS.index(position)
    row, col = divmod(shifted, 4)
    # MC(a)[r] = 2a[r] + 3a[r+1] + a[r+2] + a[r+3]: s in row `row` counts (2, 3, 1, 1)
    # [(row - r) mod 4] in row r
    return {4 * r + col: (2, 3, 1, 1)[(row - r) % 4] for r in range(4)}


def round1_select(position, b, double):
    """pshufb mask giving plane b of V(s) from a table entry (byte b = plane b of s,
    double: of 2s): byte b where the coefficient takes s (1, 3) or 2s (2, 3), else 0."""
    wanted = (2, 3) if double else (1, 3)
    column = _round1_column(position)
    return [b if column.get(q) in wanted else 0x80 for q in range(16)]


def round1_positions(position):
    """[(p_i, c_i)] for i = 0..3: the row-major positions round 1's output varies at, in
    order, and MixColumns' coefficient of s at each."""
    return sorted(_round1_column(position).items())


def _round2_sources(position):
    """{q: (i, coefficient)}: after round 2, byte q is the constant part ^ coefficient *
    y_i (ShiftRows moves p_i to one column, which MixColumns spreads)."""
    out = {}
    for i, (p, _) in enumerate(round1_positions(position)):
        for q, coefficient in _round1_column(p).items():
            out[q] = (i, coefficient)
    return out


def round2_input_select(position, b, double):
    """pshufb mask making plane b of round 2's S-box inputs, byte 4n + i (batch n of a
    run, input i), from a register whose dword b mod 4 holds plane b of s (double:
    2s) for the run's batches n = 0..3: byte 4 (b mod 4) + n where c_i takes s (1, 3;
    double: 2s, 2, 3), else 0."""
    wanted = (2, 3) if double else (1, 3)
    return [4 * (b % 4) + n if c in wanted else 0x80
            for n in range(4) for _, c in round1_positions(position)]


def round2_input_base(position):
    """pshufb mask on a ROUND1_BASE plane: byte 4n + i = its byte p_i."""
    return [p for n in range(4) for p, _ in round1_positions(position)]


def round2_select(position, b, double):
    """pshufb mask giving plane b of V2(y) from an entry half (dword b mod 4 = plane b
    of y_0..y_3; double: of 2y): byte 4 (b mod 4) + i where the coefficient of y_i
    takes y (1, 3; double: 2y, 2, 3), else 0."""
    wanted = (2, 3) if double else (1, 3)
    sources = _round2_sources(position)
    return [4 * (b % 4) + sources[q][0] if sources[q][1] in wanted else 0x80
            for q in range(16)]


# Two eight-byte entries side by side -> their bytes interleaved (entry a's byte m at 2m,
# b's at 2m + 1), the first step of gathering four entries' byte b into a dword.
ROUND2_INTERLEAVE = [m // 2 + 8 * (m % 2) for m in range(16)]
# 2y from y's planes: plane 7 into 2y's planes 1 and 3 (dwords 1, 3 of the first half)
# and 4 (dword 0 of the second), as x^8 = x^4 + x^3 + x + 1.
ROUND2_DOUBLE_LOW = [0] * 4 + [0xFF] * 4 + [0] * 4 + [0xFF] * 4
ROUND2_DOUBLE_HIGH = [0xFF] * 4 + [0] * 12


def round2_run_lines(frame, index):
    """One run of ROUND2_TABLE's making: batches 4g..4g+3, `index` = 32 g (a general
    register).  Their s and 2s entries gathered into planes of round 2's S-box inputs
    (round2_input_select, ^ ROUND1_BASE's bytes p_i), the S-box circuit, then each
    batch's entry: a 4 x 4 transposition of dwords per half.  Uses every vector register
    and the spill slots."""
    t = table_operand
    lines = []
    for source, low, high, spare in ((ROUND1_TABLE, "xmm8", "xmm10", "xmm9"),
                                     (ROUND1_TABLE + 256, "xmm11", "xmm9", "xmm12")):
        name = "s" if source == ROUND1_TABLE else "2s"
        lines += [f"movdqa {low}, xmmword [{frame} + {index} + {source}]",
                  f"movdqa {spare}, xmmword [{frame} + {index} + {source + 16}]",
                  f"pshufb {low}, {t('round2_interleave')}",
                  f"pshufb {spare}, {t('round2_interleave')}",
                  f"movdqa {high}, {low}",
                  f"punpcklwd {low}, {spare}          # {name}: dword b = plane b, batches 0..3",
                  f"punpckhwd {high}, {spare}         # {name}: planes 4..7"]
    for b in range(8):
        single, double = ("xmm8", "xmm11") if b < 4 else ("xmm10", "xmm9")
        lines += [f"movdqa xmm{b}, {single}",
                  f"pshufb xmm{b}, {t(f'round2_input_single{b % 4}')}",
                  "movdqa xmm12, " + double,
                  f"pshufb xmm12, {t(f'round2_input_double{b % 4}')}",
                  f"pxor xmm{b}, xmm12",
                  f"movdqa xmm12, xmmword [{frame} + {ROUND1_BASE + 16 * b}]",
                  f"pshufb xmm12, {t('round2_input_base')}",
                  f"pxor xmm{b}, xmm12                 # plane {b} of round 2's S-box inputs"]
    lines += sbox_lines(frame)
    for half in (0, 1):
        p = [f"xmm{4 * half + r}" for r in range(4)]
        lines += [f"movdqa xmm8, {p[0]}", f"punpckldq xmm8, {p[1]}",
                  f"movdqa xmm9, {p[0]}", f"punpckhdq xmm9, {p[1]}",
                  f"movdqa xmm10, {p[2]}", f"punpckldq xmm10, {p[3]}",
                  f"movdqa xmm11, {p[2]}", f"punpckhdq xmm11, {p[3]}"]
        for n, (a, c, kind) in enumerate((("xmm8", "xmm10", "l"), ("xmm8", "xmm10", "h"),
                                          ("xmm9", "xmm11", "l"), ("xmm9", "xmm11", "h"))):
            lines += [f"movdqa xmm12, {a}", f"punpck{kind}qdq xmm12, {c}",
                      f"movdqa xmmword [{frame} + {index}*4 + "
                      f"{ROUND2_TABLE + 32 * n + 16 * half}], xmm12"
                      f"   # batch {n}: planes {4 * half}..{4 * half + 3} of y"]
    return lines


def round2_v_lines(frame, entry, save):
    """V2(y) of a batch from its entry at [frame + entry + ROUND2_TABLE] XORed with
    ROUND2_BASE into xmm0..xmm7 (save: the planes in xmm0..xmm7 ^ V2(y) stored to
    ROUND2_BASE instead).  Clobbers xmm8..xmm13."""
    t = table_operand
    lines = [f"movdqa xmm8, xmmword [{frame} + {entry} + {ROUND2_TABLE}]   # y, planes 0..3",
             f"movdqa xmm9, xmmword [{frame} + {entry} + {ROUND2_TABLE + 16}]   # planes 4..7",
             "movdqa xmm10, xmm8",
             "palignr xmm10, xmm9, 12          # y's planes 7, 0, 1, 2",
             "movdqa xmm11, xmm9",
             "palignr xmm11, xmm8, 12          # y's planes 3, 4, 5, 6",
             "pshufd xmm12, xmm9, 0xff         # plane 7 in every dword",
             "movdqa xmm13, xmm12",
             f"pand xmm12, {t('round2_double_low')}",
             f"pand xmm13, {t('round2_double_high')}",
             "pxor xmm10, xmm12                # 2y, planes 0..3",
             "pxor xmm11, xmm13                # 2y, planes 4..7"]
    for b in range(8):
        y, double = ("xmm8", "xmm10") if b < 4 else ("xmm9", "xmm11")
        v = "xmm12" if save else f"xmm{b}"
        lines += [f"movdqa {v}, {y}", f"pshufb {v}, {t(f'round2_single{b % 4}')}",
                  f"movdqa xmm13, {double}", f"pshufb xmm13, {t(f'round2_double{b % 4}')}",
                  f"pxor {v}, xmm13"]
        if save:
            lines += [f"pxor {v}, xmm{b}",
                      f"movdqa xmmword [{frame} + {ROUND2_BASE + 16 * b}], {v}"]
        else:
            lines.append(f"pxor {v}, xmmword [{frame} + {ROUND2_BASE + 16 * b}]"
                         f"   # plane {b} after round 2")
    return lines


def round2_tables(position):
    """The round-2 path's constants, name -> 16 bytes (lib/bitslice.j2 counter_tables)."""
    out = {"round2_interleave": ROUND2_INTERLEAVE,
           "round2_input_base": round2_input_base(position),
           "round2_double_low": ROUND2_DOUBLE_LOW,
           "round2_double_high": ROUND2_DOUBLE_HIGH}
    for r in range(4):
        out[f"round2_input_single{r}"] = round2_input_select(position, r, False)
        out[f"round2_input_double{r}"] = round2_input_select(position, r, True)
        out[f"round2_single{r}"] = round2_select(position, r, False)
        out[f"round2_double{r}"] = round2_select(position, r, True)
    return out


def round1_lanes(j):
    """The table's S-box inputs, lane q of block j: counter byte 8q + j (+ w0, + 128
    for the table's second half, ^ the mask, added in code)."""
    return [(8 * q + j) & 0xFF for q in range(16)]


# A call of at least this many bytes makes ROUND1_TABLE (about 450 instructions per
# half) and then runs one round fewer per batch (about 190 instructions fewer).  Measured
# on Zen 4 (TSC ticks, best of 12-20 alternating runs, AES-128 / AES-256; with the table
# against the same code without it): 256 B +6.7% / +4.9%, 384 B +2.2% / +1.7%, 512 B
# -0.4% / -0.4%, 640 B -2.1% / -1.4%, 768 B -4.3% / -3.4%, 1 KiB -6.2% / -4.6%,
# 1420 B -4.9% / -3.6%, 2 KiB -4.2% / -4.1%, 4 KiB -4.5% / -3.3%.
ROUND1_MIN_BYTES = 640


def sbox_lines(frame):
    """The S-box circuit alone on planes xmm0..xmm7 (bit b in xmm<b>), the output's
    planes back in xmm0..xmm7 (with the circuit's 0x63 offset, as in the rounds)."""
    prog = Program([f"P{b}" for b in range(8)])
    prog.outputs = _sbox(prog, [f"P{7 - i}" for i in range(8)])
    return _plane_lines(schedule(prog, first=middle_first(CLUSTER_ORDER[False])), frame,
                        "the S-box")


def byte_transpose_lines(temps):
    """Planes xmm0..xmm7 (lane m = byte m of each) to 16 eight-byte entries (entry m:
    byte b = byte m of plane b), by unpacking bytes, words, dwords.  temps: eight free
    registers.  Returns (lines, [(register, m)]): the register holds entries m, m + 1."""
    content = {f"xmm{b}": [(b, m) for m in range(16)] for b in range(8)}
    free = list(temps)
    lines = []
    width = {"bw": 1, "wd": 2, "dq": 4}

    def unpack(kind, a, b):
        t = free.pop(0)
        lines.extend([f"movdqa {t}, {a}", f"punpckl{kind} {a}, {b}",
                       f"punpckh{kind} {t}, {b}"])
        n = width[kind]
        ca, cb = content[a], content[b]
        units = lambda c: [c[i:i + n] for i in range(0, 16, n)]
        ua, ub = units(ca), units(cb)
        content[a] = [x for i in range(len(ua) // 2) for x in ua[i] + ub[i]]
        content[t] = [x for i in range(len(ua) // 2, len(ua)) for x in ua[i] + ub[i]]
        del content[b]
        free.append(b)
        return a, t

    s1 = [unpack("bw", f"xmm{b}", f"xmm{b + 1}") for b in (0, 2, 4, 6)]
    s2 = []
    for (lo_a, hi_a), (lo_b, hi_b) in ((s1[0], s1[1]), (s1[2], s1[3])):
        s2.append(unpack("wd", lo_a, lo_b) + unpack("wd", hi_a, hi_b))
    out = []
    for i in range(4):
        out.extend(unpack("dq", s2[0][i], s2[1][i]))
    entries = []
    for reg in out:
        c = content[reg]
        m = c[0][1]
        assert c == [(b, m) for b in range(8)] + [(b, m + 1) for b in range(8)], (reg, c)
        entries.append((reg, m))
    return lines, entries

# From this many blocks left after the bitsliced loop (XTS: whole blocks, up to 7; CTR
# and XCTR: keystream blocks, a final partial one counting), one more bitsliced
# iteration on them (the other lanes idle) beats vector-permute groups (XTS two blocks,
# CTR three) and single blocks: its eight lanes cost about what five vector-permute
# blocks do (Zen 4).
FINAL_BATCH_BLOCKS = 5


def middle_key(m):
    """Frame offset of the planes of the round key m rounds before the last."""
    return KEYS + 128 * (13 - m)


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


def round_lines(m, frame, decrypt=False, cluster_order=None, key=None):
    """The round m rounds before the last (0: the last round), planes in and out in
    PLANE_REGISTERS; frame: the frame base register's name.  decrypt: the equivalent
    inverse cipher's round (inverse_round_program), its key planes at the same
    middle_key(m), or, with key (an address such as "rbx + rdi": the templates' loop over
    the middle rounds), at key + 16 b.  cluster_order: instead of CLUSTER_ORDER's
    (perf/bitslice_order.py tries them all)."""
    build = inverse_round_program if decrypt else round_program
    if key:
        def key_operand(b):
            return f"xmmword [{key} + {16 * b}]" if b else f"xmmword [{key}]"
    else:
        def key_operand(b):
            return f"xmmword [{frame} + {middle_key(m) + 16 * b}]"
    prog = schedule(build(key_operand, m == 0),
                    first=middle_first(cluster_order or CLUSTER_ORDER[decrypt]))
    return _plane_lines(prog, frame, "a round")


def _plane_lines(prog, frame, what):
    """A scheduled program on the planes, allocated to ROUND_REGISTERS (planes in and out
    in PLANE_REGISTERS) with the frame's spill slots."""
    alloc = Allocator(ROUND_REGISTERS, lambda i: f"xmmword [{frame} + {SPILL + 16 * i}]",
                      table_operand)
    lines = alloc.emit(prog, dict(zip(prog.inputs, PLANE_REGISTERS)), PLANE_REGISTERS)
    if alloc.slots_used > SPILL_SLOTS:
        raise AssertionError(f"{what} spills to {alloc.slots_used} slots, the frame has "
                             f"{SPILL_SLOTS}")
    return lines


def transpose_plane_lines():
    return transpose_lines(PLANE_REGISTERS, "xmm8", table_operand)
