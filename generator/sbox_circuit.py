# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The AES S-box and its inverse as Boolean circuits, for the bitsliced rounds of
generator/bitslice.py.

Forward: 118 gates (34 AND, 80 XOR, 4 XNOR), depth 19, from two published circuits.
- Top (T1..T27) and middle (M1..M63): the depth-16 circuit of Boyar and Peralta
  (J. Boyar, R. Peralta, "A depth-16 circuit for the AES S-box", SEC 2012; 128 gates).
  The middle inverts in GF(2^8) through a tower field and ends in 18 products
  M46..M63 of inverse bits with top values; the bottom reads only those.
- Bottom (L, S): that of the 113-gate circuit of Boyar, Peralta and Calik (straight-
  line program SLP_AES_113 of Yale's Circuit Minimization Team, after J. Boyar,
  R. Peralta, "A new combinational logic minimization technique with applications
  to cryptology", SEA 2010).  Its 18 products z0..z17 are, bit for bit on all 256
  inputs, the depth-16 circuit's M46..M63 (the two share the tower field and the
  products' order), so its 28-gate bottom replaces the depth-16 one's 38 gates.
Why the mix: the bitsliced round is bound by its operation count and by how little a
narrow stretch of the circuit leaves to run beside it.  The 113-gate circuit's own
middle is a longer chain (depth 27): on Zen 4 a middle round with it took 61.5 cycles
against the depth-16 circuit's 57.0; with only its bottom, 55.4.  The top as
slp_network makes it (below) is 24 gates, not 27, but one level deeper; CTR and XTS
ran no faster with it (within 0.3%), so the published top stays.
The XNORs are XORs here: the circuit then computes S(x) ^ 0x63 (SBOX_OFFSET), which
the caller folds into round keys (0x63 passes unchanged through ShiftRows and
MixColumns).

Inverse: InvSbox(y) = inv(L^-1(y + 0x63)), L the S-box affine's linear part.  The
forward circuit is top (T1..T27 and U7 from the input bits) -> middle (M1..M63; the
bottom reads only M46..M63) -> bottom (M46..M63 -> L(inv(x)), XOR-only).  So the middle
is kept and two new linear layers are derived as GF(2) matrices, evaluated on basis
vectors: the top composed with L^-1 (the middle's 21 T inputs and U7 from
y' = y + 0x63) and L^-1 composed with the bottom (inv's 8 bits from M46..M63), each
synthesised as a XOR network: the top (8 inputs) by Boyar and Peralta's
distance heuristic (slp_network; 24 gates, where Paar's greedy sharing takes 31), the
bottom (18 inputs, too many for slp_network's exact distances) by Paar's greedy
common-subexpression elimination (xor_network; 35).  24 + 63 + 35 = 122 gates, 34 AND
and 88 XOR.  Here too the caller folds the 0x63 into the keys.  (slp_network run once
over the bottom's 18 inputs, SLP_MAX_INPUTS raised, about 11 s a seed, made it in 31
gates, but 11 levels deep against Paar's 6, and XTS-256 decryption ran 1.8% slower
with it on Zen 4.)

tests/python/test_bitslice.py checks both on all 256 bytes against FIPS-197's tables.
"""

import random

from .vperm import affine_linear_inverse  # L^-1, L the S-box affine's linear part

# Top linear layer (T) and middle non-linear part (M): Boyar-Peralta depth 16, as
# published.  Bottom linear layer (L, S): SLP_AES_113's, its names tc<k> -> L<k> and
# z<k> -> M<46 + k> (so L15, L19 and L22..L25 are outputs S, not L gates).  U0 is the
# most significant input bit, S0 the most significant output bit.  "+" is XOR, "x" AND,
# "#" XNOR (computed as XOR; see the module comment).
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
L1 = M61 + M62    L2 = M56 + L1     L3 = M55 + L2     L4 = M46 + M48
L5 = M47 + M46    L6 = M49 + M50    L7 = M58 + L4     L8 = M53 + L6
L9 = M54 + L7     L10 = L8 + L9     L11 = L6 + L5     L12 = M49 + M51
L13 = M59 + L1    L14 = L4 + L12    S3 = L3 + L11     L16 = M52 + L8
L17 = M60 + L10   L18 = L13 + L14   S7 = M58 # L18    L20 = M61 + L16
L21 = L2 + M57    S0 = L3 + L16     S6 = L10 # L18    S4 = L14 + S3
S1 = S3 # L16     L26 = L17 + L20   S2 = L26 # M63    S5 = L21 + L17
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


# slp_network's last tie-break is random, seeded so the result is fixed: of seeds 0..59,
# 41 (1 the first) make the inverse top in 24 gates, the others in 25.
SLP_SEED = 1
SLP_MAX_INPUTS = 10      # its distances walk all 2^inputs sums


def slp_network(rows, inputs, prefix, seed=SLP_SEED):
    """A XOR network computing each row (target name, bit mask over `inputs`) by Boyar
    and Peralta's heuristic (SEA 2010): keep the signals made so far (the inputs
    first); while a target is not one of them, add the XOR of two signals that
    minimises the sum of the targets' distances (the fewest XORs that would still make
    each from the signals), on a tie the one with the larger sum of squared distances
    (it brings some target close), then a random choice seeded by `seed`.  Distances
    are exact, a breadth-first walk over all 2^n sums, so only for n up to
    SLP_MAX_INPUTS.  Returns (gates, outputs) as xor_network does."""
    n = len(inputs)
    if n > SLP_MAX_INPUTS:
        raise ValueError(f"slp_network: {n} inputs, at most {SLP_MAX_INPUTS}")
    assert all(mask for _, mask in rows), "a target is constant zero"
    rng = random.Random(seed)
    signals = [1 << i for i in range(n)]
    name = {1 << i: inputs[i] for i in range(n)}
    targets = sorted({mask for _, mask in rows})
    first_target = {}
    for target, mask in rows:
        first_target.setdefault(mask, target)
    gates, made = [], 0
    while True:
        have = set(signals)
        left = [t for t in targets if t not in have]
        if not left:
            break
        # sums[v]: the fewest signals whose XOR is v
        sums = bytearray([255]) * (1 << n)
        sums[0], frontier, k = 0, [0], 0
        while frontier:
            k += 1
            reached = []
            for v in frontier:
                for signal in signals:
                    if sums[v ^ signal] == 255:
                        sums[v ^ signal] = k
                        reached.append(v ^ signal)
            frontier = reached
        best, tried = None, set()
        for i in range(len(signals)):
            for j in range(i + 1, len(signals)):
                new = signals[i] ^ signals[j]
                if new in have or new in tried:
                    continue
                tried.add(new)
                dist = [0 if t == new else min(sums[t] - 1, sums[t ^ new]) for t in left]
                key = (sum(dist), -sum(d * d for d in dist), rng.random())
                if best is None or key < best[0]:
                    best = (key, new, signals[i], signals[j])
        _, new, a, b = best
        if new in first_target:
            name[new] = first_target[new]
        else:
            made += 1
            name[new] = f"{prefix}{made}"
        signals.append(new)
        gates.append((name[new], "xor", name[a], name[b]))
    return tuple(gates), {target: name[mask] for target, mask in rows}


def _inverse_sbox_circuit(circuit):
    """InvSbox(y) = inv(L^-1(y + 0x63)).  The forward circuit is top (z -> T1..T27, U7),
    middle (-> M46..M63, the only values the bottom reads) and bottom (M46..M63 ->
    L(inv(z)), XOR-only); on input y' = y + 0x63 the middle must see the top's values
    at z = L^-1(y'), and inv(z) = L^-1(bottom).  Both new linear layers are computed
    as GF(2) matrices over a basis and synthesised, the top by slp_network and the
    bottom by xor_network.  Inputs Y<b> = bit b of y' (plane b), outputs W<b> = bit b
    of InvSbox(y)."""
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
        z = affine_linear_inverse(1 << j)
        value = _evaluate(top, {f"U{i}": z >> (7 - i) & 1 for i in range(8)})
        for name in middle_inputs:
            top_rows[name] |= value[name] << j
    # bottom: each bit of inv(z) = L^-1(S) as a function of M46..M63
    bottom_rows = dict.fromkeys(range(8), 0)
    for k, m in enumerate(bottom_inputs):
        value = _evaluate(bottom, {v: int(v == m) for v in bottom_inputs})
        w = affine_linear_inverse(sum(value[f"S{i}"] << (7 - i) for i in range(8)))
        for b in range(8):
            bottom_rows[b] |= (w >> b & 1) << k

    top_gates, top_out = slp_network(list(top_rows.items()), [f"Y{j}" for j in range(8)], "A")
    bottom_gates, bottom_out = xor_network([(f"W{b}", bottom_rows[b]) for b in range(8)],
                                           bottom_inputs, "B")
    return top_gates, top_out, tuple(middle), bottom_gates, bottom_out


(INV_TOP, INV_TOP_OUTPUTS, INV_MIDDLE, INV_BOTTOM,
 INV_BOTTOM_OUTPUTS) = _inverse_sbox_circuit(SBOX_CIRCUIT)


def inverse_sbox_gates(gate, planes):
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
    w = inverse_sbox_gates(lambda d, op, a, b, na, nb: a ^ b if op == "xor" else a & b,
                            [y >> j & 1 for j in range(8)])
    return sum(bit << b for b, bit in enumerate(w))
