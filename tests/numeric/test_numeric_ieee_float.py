"""The hw-ieee arithmetic core (device_model/numeric/ieee_float.py) against independent references.

- the per-element Fraction reference (vectors/reference/arithmetic.py) on boundary,
  tie, overflow, underflow, cancellation and random operands, every operation, every
  floating type the ASL accepts and all seven rounding modes;
- exhaustively, the vectorized value-set oracle (vectors/reference/value_set.py) for
  ADD and MUL under every mode: E5M2 all pairs, FP16 every encoding against a fixed
  set of boundary second operands (specials against the Fraction reference);
- numpy as a peer where it is exact (RNE only): binary32 natively, and FP16/BF16
  through binary32 (see ``test_numpy_peer_16_bit`` for why double rounding is innocuous).
"""
from __future__ import annotations

import functools
import random
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from pto_avs.device_model import dtypes
from pto_avs.device_model.numeric import ieee_float, tile_arithmetic, transcendental, words
from pto_avs.device_model.ops import registry, tmul, tmuls  # noqa: F401  (tmul, tmuls: the two join the registry)
from pto_avs.vectors.reference import arithmetic as ref
from pto_avs.vectors.reference import numeric as refnum
from pto_avs.vectors.reference.value_set import ValueSet

MODES = ("RNE", "RTZ", "RTM", "RTP", "RNA", "RTO", "RHB")
TYPES = ieee_float.FLOAT_TYPES
U64 = np.uint64


def test_type_set_is_the_asl_floating_arithmetic_set():
    # TileVecArithmeticDataTypeSupported and TileFloatingElementwiseDataTypeSupported
    # (asl/tile/model/legality/dtype-layout.asl): the same eight floating types.
    assert set(TYPES) == {"FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E4M3", "E5M2"}
    assert set(ref.ARITHMETIC_TYPES) == set(TYPES)
    with pytest.raises(ValueError, match="HiF8"):
        ieee_float.add([0], [0], "HiF8")


# ----------------------------------------------------------------------------- operands


def code(name: str, value) -> int:
    """Encoding of an exactly representable value (Fraction, int, or 'inf'/'-inf'/'qnan'/'snan')."""
    f = refnum.FORMATS[name]
    if value in ("inf", "-inf"):
        return refnum.infinity_code(name, value == "-inf") if f.has_inf else refnum.canonical_nan(name)
    if value == "qnan":
        return refnum.canonical_nan(name)
    if value == "snan":  # quiet bit clear, payload 1 (formats with IEEE NaNs)
        return refnum.infinity_code(name, False) | (1 << f.frac_lsb)
    v = Fraction(value)
    if v == 0:
        return 0
    bits, flags = refnum.encode_value(name, v < 0, abs(v), "RNE", False)
    assert flags == 0, (name, value)
    return bits


def top_quantum(name: str) -> Fraction:
    """The spacing of the largest binade."""
    return refnum.pow2(refnum.floor_log2(refnum.max_finite(name)) - refnum.FORMATS[name].frac_bits)


def boundary_values(name: str) -> list[int]:
    """Specials, range edges and values around 1 and the largest value, both signs."""
    f = refnum.FORMATS[name]
    p = f.frac_bits + 1
    min_normal = refnum.min_normal(name)
    tiny = min_normal / 2 ** f.frac_bits
    top = refnum.max_finite(name)
    ulp1 = Fraction(1, 2 ** f.frac_bits)
    magnitudes = [tiny, 2 * tiny, min_normal - tiny, min_normal, min_normal + tiny, Fraction(1, 2),
                  1 - ulp1 / 2, 1, 1 + ulp1, Fraction(3, 2), 2, 3, top - top_quantum(name), top,
                  Fraction(2) ** (p // 2)]
    values = [code(name, m) for m in magnitudes]
    values += [v | (1 << f.sign_bit) for v in values]
    values += [0, 1 << f.sign_bit, code(name, "qnan")]
    if f.has_inf:
        values += [code(name, "inf"), code(name, "-inf"), code(name, "snan")]
    return sorted(set(values))


def targeted_pairs(name: str) -> list[tuple[int, int]]:
    """Pairs whose sums or products sit on ties, overflow edges, the tiny edge and
    exact cancellation."""
    f = refnum.FORMATS[name]
    p = f.frac_bits + 1
    half_ulp1 = Fraction(1, 2 ** p)
    top = refnum.max_finite(name)
    top_half_ulp = top_quantum(name) / 2
    min_normal = refnum.min_normal(name)
    tiny = min_normal / 2 ** f.frac_bits
    ulp1 = Fraction(1, 2 ** f.frac_bits)
    c = lambda v: code(name, v)  # noqa: E731
    neg = 1 << f.sign_bit
    pairs = [(c(1), c(half_ulp1)), (c(1 + ulp1), c(half_ulp1)), (c(1), c(3 * half_ulp1 / 2)),
             (c(1), c(half_ulp1 / 2) if half_ulp1 / 2 >= tiny else c(tiny)),
             (c(top), c(top_half_ulp) if top_half_ulp <= top else c(top)), (c(top), c(top)),
             (c(min_normal), c(tiny) | neg), (c(min_normal), c(min_normal - tiny) | neg),
             (c(1 + ulp1), c(1 + ulp1)), (c(1 + ulp1), c(1) | neg), (c(3), c(3) | neg),
             (c(tiny), c(Fraction(1, 2))), (c(tiny), c(Fraction(3, 4))), (c(min_normal), c(1 - ulp1 / 2)),
             (0, neg), (neg, neg), (0, 0), (c(2), c(0) | neg)]
    return pairs


def random_codes(name: str, rng: random.Random, n: int) -> list[int]:
    f = refnum.FORMATS[name]
    payload = f.width - f.frac_lsb
    return [rng.getrandbits(payload) << f.frac_lsb for _ in range(n)]


def operand_pairs(name: str, op: str) -> list[tuple[int, int]]:
    rng = random.Random(f"{name}-{op}")
    b = boundary_values(name)
    pairs = targeted_pairs(name) + [(rng.choice(b), rng.choice(b)) for _ in range(40)]
    codes = random_codes(name, rng, 30)
    pairs += list(zip(codes, random_codes(name, rng, 30)))
    # near-cancellation: b = -(a +- a few codes)
    f = refnum.FORMATS[name]
    neg = 1 << f.sign_bit
    pairs += [(a, max(0, a + (rng.randint(-3, 3) << f.frac_lsb)) ^ neg) for a in codes[:10]]
    return pairs


def run(function, *columns, name, mode):
    arrays = [np.array(c, dtype=U64) for c in columns]
    words, flags = function(*arrays, name, mode)
    return [(int(w), int(fl)) for w, fl in zip(words, flags)]


# ----------------------------------------------------------------------------- against the Fraction reference


def _compare(model, expected, inputs, label):
    bad = [(i, m, e) for i, m, e in zip(inputs, model, expected) if m != e]
    assert not bad, f"{label}: {len(bad)}/{len(inputs)} disagree, first (inputs, model, reference): {bad[:4]}"


@pytest.mark.parametrize("name", TYPES)
@pytest.mark.parametrize("op", sorted(ieee_float.BINARY))
def test_binary_against_reference(name, op):
    pairs = operand_pairs(name, op)
    a, b = zip(*pairs)
    for mode in MODES:
        model = run(ieee_float.BINARY[op], a, b, name=name, mode=mode)
        expected = [ref.BINARY[op](name, x, y, mode) for x, y in pairs]
        _compare(model, expected, pairs, f"{op} {name} {mode}")


@pytest.mark.parametrize("name", TYPES)
@pytest.mark.parametrize("op", sorted(ieee_float.UNARY))
def test_unary_against_reference(name, op):
    rng = random.Random(f"{name}-{op}")
    values = boundary_values(name) + random_codes(name, rng, 40)
    for mode in MODES:
        model = run(ieee_float.UNARY[op], values, name=name, mode=mode)
        expected = [ref.UNARY[op](name, x, mode) for x in values]
        _compare(model, expected, values, f"{op} {name} {mode}")


@pytest.mark.parametrize("name", TYPES)
def test_fma_against_reference(name):
    rng = random.Random(f"{name}-fma")
    b = boundary_values(name)
    f = refnum.FORMATS[name]
    neg = 1 << f.sign_bit
    triples = [(rng.choice(b), rng.choice(b), rng.choice(b)) for _ in range(40)]
    codes = random_codes(name, rng, 45)
    triples += list(zip(codes[:15], codes[15:30], codes[30:]))
    # exact zero products meeting zeros, cancellation of the product by the addend
    one, two = code(name, 1), code(name, 2)
    triples += [(0, one, neg), (neg, one, neg), (neg, one, 0), (0, neg, 0), (one, two, two | neg),
                (two | neg, two, code(name, 4)), (code(name, "inf"), 0, code(name, "qnan")),
                (code(name, "qnan"), code(name, "inf"), code(name, "-inf")),
                (code(name, "qnan"), code(name, "-inf"), code(name, "-inf"))]
    # product with more bits than the format, cancelled by the addend near it
    ulp1 = Fraction(1, 2 ** f.frac_bits)
    x = code(name, 1 + ulp1)
    triples += [(x, x, code(name, 1 + 2 * ulp1) | neg), (x, x | neg, code(name, 1 + 2 * ulp1)),
                (x, x, code(name, 1) | neg)]
    for mode in MODES:
        a, bb, c = zip(*triples)
        model = run(ieee_float.fma, a, bb, c, name=name, mode=mode)
        expected = [ref.fma(name, *t, mode) for t in triples]
        _compare(model, expected, triples, f"fma {name} {mode}")


def test_hand_checked_values():
    """A few results derived by hand from IEEE 754 (FP32 encodings)."""
    f32 = lambda x: int(np.array(x, dtype=np.float32).view(np.uint32))  # noqa: E731
    one, ulp = f32(1.0), 2.0 ** -23
    # 1 + 2**-24 is a tie: RNE keeps 1.0, RNA/RHB/RTP go up, RTO takes the odd neighbour
    tie = f32(2.0 ** -24)
    for mode, expected in (("RNE", one), ("RNA", one + 1), ("RHB", one + 1), ("RTP", one + 1),
                           ("RTZ", one), ("RTM", one), ("RTO", one + 1)):
        assert run(ieee_float.add, [one], [tie], name="FP32", mode=mode) == [(expected, 0x10)], mode
    # x - x is +0, except -0 under RTM
    assert run(ieee_float.sub, [one], [one], name="FP32", mode="RNE") == [(0, 0)]
    assert run(ieee_float.sub, [one], [one], name="FP32", mode="RTM") == [(0x80000000, 0)]
    # 1/3 rounds down under RNE (0x3EAAAAAB is the up neighbour)
    assert run(ieee_float.div, [one], [f32(3.0)], name="FP32", mode="RNE") == [(0x3EAAAAAB, 0x10)]
    assert run(ieee_float.div, [one], [f32(3.0)], name="FP32", mode="RTZ") == [(0x3EAAAAAA, 0x10)]
    # max * 2: overflow; RTZ gives max, RNE infinity
    assert run(ieee_float.mul, [0x7F7FFFFF], [f32(2.0)], name="FP32", mode="RNE") == [(0x7F800000, 0x14)]
    assert run(ieee_float.mul, [0x7F7FFFFF], [f32(2.0)], name="FP32", mode="RTZ") == [(0x7F7FFFFF, 0x14)]
    # min subnormal / 2: a tie to zero (RNE) with UF|NX; RNA gives the subnormal back
    assert run(ieee_float.mul, [1], [f32(0.5)], name="FP32", mode="RNE") == [(0, 0x18)]
    assert run(ieee_float.mul, [1], [f32(0.5)], name="FP32", mode="RNA") == [(1, 0x18)]
    # sqrt(-0) = -0; sqrt(-1) invalid; rsqrt(4) = 0.5 exactly; 1/0 = inf with DZ
    assert run(ieee_float.sqrt, [0x80000000, f32(-1.0)], name="FP32", mode="RNE") == [(0x80000000, 0), (0x7FC00000, 1)]
    assert run(ieee_float.rsqrt, [f32(4.0)], name="FP32", mode="RNE") == [(f32(0.5), 0)]
    assert run(ieee_float.recip, [0x80000000], name="FP32", mode="RNE") == [(0xFF800000, 0x02)]
    # floor modulo: -1 rem 3 = 2, 1 rem -3 = -2, -3 rem 3 = +0, -1 rem inf = inf
    assert run(ieee_float.rem, [f32(-1.0), f32(1.0), f32(-3.0), f32(-1.0)],
               [f32(3.0), f32(-3.0), f32(3.0), 0x7F800000], name="FP32", mode="RNE") == \
        [(f32(2.0), 0), (f32(-2.0), 0), (0, 0), (0x7F800000, 0)]
    # fma rounds once: (1+u)(1-u) - 1 = -u**2 exactly, which a rounded product would lose
    assert run(ieee_float.fma, [f32(1 + ulp)], [f32(1 - ulp)], [f32(-1.0)], name="FP32", mode="RNE") == \
        [(f32(-(ulp * ulp)), 0)]
    # E4M3 has no infinity: 1/0 is its NaN 0x7F with DZ
    assert run(ieee_float.div, [0x38], [0x00], name="E4M3", mode="RNE") == [(0x7F, 0x02)]


def test_tmuls_and_tmul_share_one_multiply():
    """TMULS's element function (a tile times its scalar) and TMUL's give the same words and
    flags in both profiles, and under hw-ieee they are ieee_float.mul rounded RNE."""
    by_scalar, by_tile = registry.find("TMULS").element, registry.find("TMUL").element
    for name in TYPES:
        t = dtypes.dtype(name)
        pairs = operand_pairs(name, "MUL")
        a = np.array([p[0] for p in pairs], dtype=U64)
        b = np.array([p[1] for p in pairs], dtype=U64)
        for profile in ("pto-v0", "hw-ieee"):
            words, flags = by_scalar(t, profile, a, b)
            w2, f2 = by_tile(t, profile, a, b)
            assert (words == w2).all() and (np.asarray(flags) == np.asarray(f2)).all(), (name, profile)
        w3, f3 = ieee_float.mul(a, b, name)
        assert (words == w3).all() and (flags == f3).all(), name


# ----------------------------------------------------------------------------- exhaustive (value-set oracle)


@functools.lru_cache(maxsize=None)
def _table(name: str, scale: int):
    """Per code: finite?, negative?, magnitude * 2**scale (uint64), read off the oracle's
    value list (checked against the Fraction decoder by the oracle test below)."""
    f = refnum.FORMATS[name]
    codes = np.arange(1 << f.width)
    magnitude_code = codes & ((1 << f.sign_bit) - 1)
    finite = magnitude_code <= refnum.max_finite_code(name)
    values = _oracle(name, scale).values
    magnitude = np.where(finite, values[np.minimum(magnitude_code, values.size - 1)], U64(0))
    return finite, (codes >> f.sign_bit) == 1, magnitude.astype(U64)


@functools.lru_cache(maxsize=None)
def _oracle(name: str, scale: int) -> ValueSet:
    return ValueSet(name, scale)


def _expect_oracle(name, op, a, words, flags, expected_words, expected_flags, selected, label):
    mismatch = (words[selected] != expected_words) | (flags[selected] != expected_flags)
    if mismatch.any():
        i = np.flatnonzero(mismatch)[:4]
        raise AssertionError(f"{op} {name} {label}: {int(mismatch.sum())}/{int(selected.sum())} disagree with the "
                             f"value-set oracle, first a={a[selected][i]} model={words[selected][i]}/"
                             f"{flags[selected][i]} oracle={expected_words[i]}/{expected_flags[i]}")


def _exhaustive_check(name, a, b, op, mode, scale):
    """Model vs value-set oracle on the pairs of finite operands; returns their count and
    the indices of the other pairs."""
    finite, negative, table = _table(name, scale)
    words, flags = ieee_float.BINARY[op](a, b, name, mode)
    both = finite[a] & finite[b]
    na, nb = negative[a], negative[b]
    ma, mb = table[a], table[b]
    if op == "ADD":
        same = na == nb
        total = np.where(same, ma + mb, np.where(ma >= mb, ma - mb, mb - ma))
        result_negative = np.where(same, na, np.where(ma >= mb, na, nb))
        # exact zero: like-signed zeros keep their sign, otherwise -0 only under RTM
        result_negative = np.where(total == 0, np.where(same, na, mode == "RTM"), result_negative)
        oracle = _oracle(name, scale)
    else:
        total = ma * mb
        result_negative = na != nb
        oracle = _oracle(name, 2 * scale)
    expected_words, expected_flags = oracle.round(result_negative[both], total[both], mode)
    _expect_oracle(name, op, a, words, flags, expected_words, expected_flags, both, f"{mode} b={b[both][:1]}")
    return int(both.sum()), np.flatnonzero(~both)


@pytest.mark.parametrize("op", ("ADD", "MUL"))
def test_exhaustive_e5m2_all_pairs(op):
    """Every pair of E5M2 encodings (65536) under every mode; finite pairs against the
    value-set oracle, pairs with a NaN or infinity against the Fraction reference (RNE, RTM)."""
    name = "E5M2"
    codes = np.arange(256, dtype=U64)
    a, b = np.repeat(codes, 256), np.tile(codes, 256)
    scale = 16  # the smallest E5M2 subnormal is 2**-16
    for mode in MODES:
        checked, specials = _exhaustive_check(name, a, b, op, mode, scale)
        assert checked == 248 * 248
        if mode in ("RNE", "RTM"):
            fn = ieee_float.add if op == "ADD" else ieee_float.mul
            words, flags = fn(a[specials], b[specials], name, mode)
            expected = [ref.BINARY[op](name, int(x), int(y), mode) for x, y in zip(a[specials], b[specials])]
            assert [(int(w), int(f)) for w, f in zip(words, flags)] == expected


FP16_SECOND_OPERANDS = (0x3C00, 0x3C01, 0x3555, 0xBBFF, 0x0001, 0x83FF, 0x0400, 0x7BFF, 0x1400, 0xC500)


@pytest.mark.slow  # every FP16 operand against one fixed operand
@pytest.mark.parametrize("op", ("ADD", "MUL"))
def test_exhaustive_fp16_one_operand(op):
    """Every FP16 encoding against ten boundary second operands, every mode.

    Second operands: 1, 1+ulp, ~1/3, -(1-ulp/2), the smallest and (negated) largest
    subnormal, the smallest normal, the largest finite, 2**-10 and -5. Products with a
    subnormal second operand or one below 2**-12 need the oracle beyond 2**-46, which
    overflows uint64 for large first operands; MUL takes the second operands of at least
    2**-10 (subnormal products are covered by the E5M2 all-pairs check)."""
    name = "FP16"
    codes = np.arange(1 << 16, dtype=U64)
    seconds = [s for s in FP16_SECOND_OPERANDS if op == "ADD" or (s & 0x7C00) >= 0x1400]
    a = np.tile(codes, len(seconds))
    b = np.repeat(np.array(seconds, dtype=U64), codes.size)
    for mode in MODES:
        if op == "ADD":
            checked, _ = _exhaustive_check(name, a, b, op, mode, 24)
        else:
            checked = sum(_exhaustive_mul_fp16(codes, s, mode) for s in seconds)
        assert checked >= len(seconds) * 63488


def _exhaustive_mul_fp16(a, s, mode):
    """FP16 products a*s for a normal s = S * 2**e (S its 11-bit integer significand):
    with A = a * 2**24 the exact product is A*S at 2**-(24 - e), an integer below 2**51
    (shifted to 2**-24 for e > 0)."""
    name = "FP16"
    finite, negative, table = _table(name, 24)
    e = int(s >> 10 & 0x1F) - 15 - 10
    total = table[a] * U64((s & 0x3FF) | 0x400)
    if e > 0:  # keep the scale at 2**-24, where every FP16 value is an integer
        total, e = total << U64(e), 0
    ok = finite[a]
    expected_words, expected_flags = _oracle(name, 24 - e).round((negative[a] != bool(s & 0x8000))[ok], total[ok], mode)
    words, flags = ieee_float.mul(a, np.full(a.shape, s, dtype=U64), name, mode)
    _expect_oracle(name, "MUL", a, words, flags, expected_words, expected_flags, ok, f"{mode} b={s:#x}")
    return int(ok.sum())


def test_value_set_oracle_agrees_with_the_fraction_reference():
    """The two references (value set, classic method) agree: the value list against the
    Fraction decoder, and E4M3 products and FP16 sums of sampled finite pairs in every mode."""
    rng = random.Random(7)
    for name, scale in (("E4M3", 9), ("E5M2", 16), ("FP16", 24)):
        finite, negative, magnitude = _table(name, scale)
        for c in (range(256) if name != "FP16" else rng.sample(range(1 << 16), 3000)):
            v = refnum.decode(name, c)
            assert finite[c] == (v.cls == "finite") and (not finite[c] or (
                negative[c] == v.negative and int(magnitude[c]) == v.magnitude * 2 ** scale)), (name, c)
    for name, op, scale in (("E4M3", "MUL", 18), ("FP16", "ADD", 24)):
        f = refnum.FORMATS[name]
        oracle = _oracle(name, scale)
        checked = 0
        for mode in MODES:
            for _ in range(150):
                x, y = rng.getrandbits(f.width), rng.getrandbits(f.width)
                vx, vy = refnum.decode(name, x), refnum.decode(name, y)
                if vx.cls != "finite" or vy.cls != "finite" or vx.is_zero or vy.is_zero:
                    continue
                exact = vx.exact * vy.exact if op == "MUL" else vx.exact + vy.exact
                if exact == 0:
                    continue
                w, fl = oracle.round(np.array([exact < 0]), np.array([int(abs(exact) * 2 ** scale)], dtype=U64), mode)
                assert (int(w[0]), int(fl[0])) == ref.BINARY[op](name, x, y, mode), (name, mode, hex(x), hex(y))
                checked += 1
        assert checked > 500


# ----------------------------------------------------------------------------- numpy peer


def _numpy_peer(op, a, b, np_type):
    with np.errstate(all="ignore"):
        x, y = a.astype(np_type), (b.astype(np_type) if b is not None else None)
        return {"ADD": lambda: x + y, "SUB": lambda: x - y, "MUL": lambda: x * y, "DIV": lambda: x / y,
                "REM": lambda: np.remainder(x, y), "SQRT": lambda: np.sqrt(x),
                "RECIP": lambda: np.reciprocal(x)}[op]()


def _agree(words, peer, nan_mask):
    """Bit equality, except that any NaN matches any NaN (numpy keeps payloads)."""
    return np.where(nan_mask, True, words == peer)


PEER_OPS = ("ADD", "SUB", "MUL", "DIV", "REM", "SQRT", "RECIP")


def _peer_operands(name, n, seed):
    rng = np.random.default_rng(seed)
    bits = 32 if name == "FP32" else 16
    b = np.array(boundary_values(name), dtype=U64)
    grid = np.array(np.meshgrid(b, b)).reshape(2, -1).astype(U64)
    a = np.concatenate([grid[0], rng.integers(0, 1 << bits, n, dtype=np.uint64)])
    c = np.concatenate([grid[1], rng.integers(0, 1 << bits, n, dtype=np.uint64)])
    return a, c


def _peer_check(name, op, a, b, np_type, view_type):
    fn = ieee_float.BINARY.get(op) or ieee_float.UNARY[op]
    words, _ = fn(a, b, name) if op in ieee_float.BINARY else fn(a, name)
    storage = np.uint32 if name == "FP32" else np.uint16
    peer = _numpy_peer(op, a.astype(storage).view(view_type), b.astype(storage).view(view_type)
                       if op in ieee_float.BINARY else None, np_type)
    with np.errstate(over="ignore"):
        peer = peer.astype(view_type)  # binary32 -> the 16-bit type: the second rounding (RNE)
    peer_bits = peer.view(storage).astype(U64)
    nan = np.isnan(peer.astype(np.float32)) & np.isnan(
        words.astype(storage).view(view_type).astype(np.float32))
    agree = _agree(words, peer_bits, nan)
    bad = np.flatnonzero(~agree)[:4]
    assert agree.all(), f"{op} {name}: {int((~agree).sum())}/{agree.size} differ from numpy, " \
                        f"first a={a[bad]} b={b[bad]} model={words[bad]} numpy={peer_bits[bad]}"
    return agree.size


@pytest.mark.parametrize("op", PEER_OPS)
def test_numpy_peer_binary32(op):
    """numpy's float32 arithmetic is IEEE binary32 with RNE (np.remainder: an exact fmod
    plus at most one rounded addition of the divisor, i.e. the floor modulo rounded once)."""
    a, b = _peer_operands("FP32", 20000, 1)
    assert _peer_check("FP32", op, a, b, np.float32, np.float32) > 20000


@pytest.mark.parametrize("name, view_type", (("FP16", np.float16), ("BF16", ml_dtypes.bfloat16)))
@pytest.mark.parametrize("op", PEER_OPS)
def test_numpy_peer_16_bit(name, view_type, op):
    """FP16 and BF16 through binary32, then RNE to the 16-bit type.

    Double rounding is innocuous here: binary32 keeps p' = 24 >= 2p + 2 bits (FP16 p = 11,
    BF16 p = 8), which is Figueroa's condition for +, -, *, / and sqrt of p-bit operands;
    binary32 holds every FP16 result range as normals; in BF16's subnormal range binary32
    still has 16 bits below BF16's quantum and an exact product (at most 2p = 16 significant
    bits) or quotient of BF16 values cannot lie within half a binary32 quantum of a BF16
    midpoint without being on it; sums there are exact in both. The floor modulo is an exact
    fmod plus one addition of two p-bit values (p' >= 2p + 1 suffices for addition)."""
    a, b = _peer_operands(name, 20000, 2)
    assert _peer_check(name, op, a, b, np.float32, view_type) > 20000


# ----------------------------------------------------------------------------- exp, log (correctly rounded)


def _transcendental_values(name, op):
    rng = random.Random(f"{name}-{op}")
    values = boundary_values(name) + random_codes(name, rng, 12)
    f = refnum.FORMATS[name]
    if op == "EXP":  # arguments around the overflow and underflow thresholds, where representable
        for v in (Fraction(88), Fraction(-87), Fraction(11), Fraction(-9), Fraction(-17), Fraction(710)):
            bits, flags = refnum.encode_value(name, v < 0, abs(v), "RNE", False)
            if flags == 0:
                values.append(bits)
    return [v & ((1 << f.width) - 1) for v in values]


@pytest.mark.parametrize("name", TYPES)
@pytest.mark.parametrize("op", ("EXP", "LOG"))
def test_transcendental_against_reference(name, op):
    """Correctly rounded exp/log (a SPEC-CHOICE) with the SFU special values, every mode."""
    values = _transcendental_values(name, op)
    for mode in MODES:
        words, flags = ieee_transcendental(op, values, name, mode)
        model = [(int(w), int(fl)) for w, fl in zip(words, flags)]
        expected = [ref.UNARY[op](name, x, mode) for x in values]
        _compare(model, expected, values, f"{op} {name} {mode}")


def ieee_transcendental(op, values, name, mode):
    """hw-ieee unary with the special-value path, under a chosen rounding mode."""
    handled, words, flags = tile_arithmetic.sfu_special(op, np.array(values, dtype=U64), tile_arithmetic._dtype(name))
    rest = np.flatnonzero(~handled)
    fn = transcendental.exp_finite if op == "EXP" else transcendental.log_finite
    words[rest], flags[rest] = fn(np.array(values, dtype=U64)[rest], name, mode)
    return words, flags


def test_exp_matches_the_profile_pinned_values():
    """HardwareNumericMixedExpdifDiscriminator (mx-formats.asl) fixes two FP32 results of
    exp(a - b) after an FP32 subtraction: exp(2**-7 - 2**-24) = 0x3F810100 and
    exp(1 - 2**-9) = 0x402DA16E; correctly rounded exp gives both."""
    d, _ = ieee_float.sub(np.array([0x3C000000, 0x3F800000], dtype=U64), np.array([0x33800000, 0x3B000000], dtype=U64),
                          "FP32")
    words, flags = transcendental.exp_finite(d, "FP32")
    assert words.tolist() == [0x3F810100, 0x402DA16E] and flags.tolist() == [0x10, 0x10]


@pytest.mark.parametrize("op", ("EXP", "LOG"))
def test_transcendental_numpy_binary64_peer(op):
    """numpy's float64 exp/log rounded to binary32: the peer differs from the correctly
    rounded result only where the float64 value is within 2**-29 ulp of an FP32 midpoint
    or glibc is off by one float64 ulp; none of these 3000 random operands is such a case."""
    rng = np.random.default_rng(3)
    x = rng.uniform(-87, 88, 3000) if op == "EXP" else np.exp(rng.uniform(-100, 88, 3000))
    x = x.astype(np.float32)
    fn = transcendental.exp_finite if op == "EXP" else transcendental.log_finite
    words, _ = fn(x.view(np.uint32), "FP32")
    peer = (np.exp if op == "EXP" else np.log)(x.astype(np.float64)).astype(np.float32).view(np.uint32)
    assert (words.astype(np.uint32) == peer).all()


def test_ulp_distance():
    w = lambda *v: np.array(v, dtype=U64)  # noqa: E731
    assert transcendental.ulp_distance(w(0x3F800000, 0x3F800000, 0x00000000, 0x3F800000, 0x7FC00000),
                                       w(0x3F800001, 0x3F800000, 0x80000000, 0x3F7FFFFF, 0x3F800000),
                                       "FP32").tolist() == [1, 0, 0, 1, -1]
    assert transcendental.ulp_distance(w(0x0001), w(0x8001), "FP16").tolist() == [2]  # across zero
    assert transcendental.ulp_distance(w(0x3F802000), w(0x3F806000), "TF32").tolist() == [2]


def test_bit_length_is_exact_near_powers_of_two():
    """words.bit_length (binary64 exponent, corrected by an integer shift) equals
    int.bit_length, in particular where the float conversion rounds up."""
    values = [0, 1, 2, 3, (1 << 64) - 1, (1 << 64) - 1024, (1 << 64) - 1025]
    for k in range(1, 64):
        values += [1 << k, (1 << k) - 1, (1 << k) + 1, (1 << (k + 1)) - 1]
    rng = random.Random(11)
    values += [rng.getrandbits(rng.randint(1, 64)) for _ in range(2000)]
    got = words.bit_length(np.array(values, dtype=U64))
    assert got.tolist() == [v.bit_length() for v in values]
