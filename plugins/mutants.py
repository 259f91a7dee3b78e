"""Mutant devices: the golden model with one realistic implementation bug each.

    pytest avs/ --device mutant:NAME            # the mutant's own profile (see MUTANTS)
    pytest avs/ --device mutant:NAME@hw-ieee    # the same bug under another profile

A mutant is the mutation self-test of the suite: the shipped vectors must make
every mutant fail (``pto-avs mutants`` prints the kill rate). Each one models a
bug a silicon or simulator implementation could plausibly have, injected from
outside ``device_model`` in one of two ways:

- a *patch*: for the duration of one ``execute`` a named model attribute is
  replaced (``unittest.mock.patch.object``) by a buggy variant built from the
  original. A device runs its cases synchronously in one thread, and every
  patch is undone when ``execute`` returns, so the golden model is never
  affected outside a mutant's own ``execute``. The model's memo caches that
  patched functions could fill (``MODEL_MEMOS``) are empty or uncached during a
  mutant's ``execute``, so the golden model and a mutant never share a memoised result;
- an *observation filter*, for bugs that are purely observational (how a fault
  is reported).

A mutant's profile is where its bug shows: most numeric bugs live in the
IEEE rounding paths, which only the hw-ieee profile uses (pto-v0 converts raw
carriers for most pairs).
"""
from __future__ import annotations

import dataclasses
import importlib
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, Callable, Optional
from unittest import mock

import numpy as np

from ..contract.case import PROFILES, Case, Observation
from .golden import GoldenDevice

NX_FLAG = 0x10
UF_FLAG = 0x08


@dataclass(frozen=True)
class Patch:
    """Replace ``module:attribute`` (or ``module:Class.attribute``) by ``make(original)``."""

    target: str
    make: Callable[[Any], Any]

    def owner_and_name(self):
        module_name, _, path = self.target.partition(":")
        owner = importlib.import_module(module_name)
        *parents, name = path.split(".")
        for parent in parents:
            owner = getattr(owner, parent)
        return owner, name


@dataclass(frozen=True)
class Mutant:
    name: str
    bug: str  # the implementation bug it models, one sentence
    profile: str = "pto-v0"  # the profile where the bug shows
    patches: tuple = ()
    observe: Optional[Callable[[Observation], Observation]] = None


MUTANTS: dict[str, Mutant] = {}


def mutant(name: str, bug: str, profile: str = "pto-v0", observe=None):
    """Register a mutant whose patches the decorated function returns."""

    def register(function):
        MUTANTS[name] = Mutant(name, bug, profile, tuple(function()), observe)
        return function

    return register


def replace_with(value):
    """A patch maker that ignores the original."""
    return lambda _original: value


# ---------------------------------------------------------------------------
# numeric rounding


def _rounder_patches(buggy_increment):
    """The IEEE rounder's increment decision replaced, with the bit-trick fast path
    for narrowing conversions off (so every conversion goes through the rounder)."""
    return (
        Patch("pto_avs.device_model.numeric.convert:_narrowing_applies", replace_with(lambda s, d: False)),
        Patch("pto_avs.device_model.numeric.encode:magnitude_increment", buggy_increment),
        Patch("pto_avs.device_model.numeric.integers:magnitude_increment", buggy_increment),
    )


@mutant("rne-ties-away", "round-to-nearest-even breaks exact ties away from zero (as RNA) in the "
        "conversion rounder", profile="hw-ieee")
def _rne_ties_away():
    from ..device_model.numeric.rounding import RoundingMode

    def make(original):
        def increment(mode, negative, odd, half, sticky):
            if mode is RoundingMode.RNE:
                return half
            return original(mode, negative, odd, half, sticky)
        return increment

    return _rounder_patches(make)


@mutant("rtz-floors-negatives", "round-toward-zero truncates the two's-complement value, so negative "
        "inexact values round toward -infinity (as RTM)", profile="hw-ieee")
def _rtz_floors_negatives():
    from ..device_model.numeric.rounding import RoundingMode

    def make(original):
        def increment(mode, negative, odd, half, sticky):
            if mode is RoundingMode.RTZ:
                return (half | sticky) & negative
            return original(mode, negative, odd, half, sticky)
        return increment

    return _rounder_patches(make)


@mutant("tininess-before-rounding", "underflow is detected before rounding: a value below the smallest "
        "normal that rounds up to it still raises UF", profile="hw-ieee")
def _tininess_before_rounding():
    from ..device_model.numeric.encode import geometry
    from ..device_model.numeric.words import bit_length

    def make(original):
        def round_to_float(negative, sig, exp, t, mode, saturate):
            words, flags = original(negative, sig, exp, t, mode, saturate)
            sig = np.asarray(sig, dtype=np.uint64)
            below_normal = (sig != 0) & (np.asarray(exp) + bit_length(sig) - 1 < geometry(t).tiny_exp)
            inexact = (flags & NX_FLAG) != 0
            return words, (flags | np.where(below_normal & inexact, UF_FLAG, 0)).astype(np.uint8)
        return round_to_float

    return (Patch("pto_avs.device_model.numeric.convert:round_to_float", make),)


@mutant("lost-negative-zero", "the float converter drops the sign of a zero result (-0 and negative "
        "underflows to zero come out as +0)", profile="hw-ieee")
def _lost_negative_zero():
    def make(original):
        def round_to_float(negative, sig, exp, t, mode, saturate):
            words, flags = original(negative, sig, exp, t, mode, saturate)
            sign = np.uint64(1 << t.fmt.sign_bit)
            return np.where((words & ~sign) == 0, np.uint64(0), words), flags
        return round_to_float

    return (Patch("pto_avs.device_model.numeric.convert:round_to_float", make),)


@mutant("e8m0-linear-midpoint", "float -> E8M0 nearest rounding compares the significand with the "
        "linear midpoint 1.5*2^f instead of the log-domain midpoint sqrt(2)*2^f")
def _e8m0_linear_midpoint():
    # Round up iff sig >= 1.5 * 2**h for a significand with top bit h.
    threshold = np.array([0] + [(3 << (h - 1)) - 1 for h in range(1, 64)], dtype=np.uint64)
    return (Patch("pto_avs.device_model.numeric.e8m0:_SQRT2_FLOOR", replace_with(threshold)),)


@mutant("float-int-default-rne", "the TCVT default rounding (RMode NONE) of float -> integer is RNE "
        "instead of RTZ", profile="hw-ieee")
def _float_int_default_rne():
    from ..device_model.numeric.rounding import RoundingMode, rounding_mode

    def resolve(rounding, src, dst):
        if rounding is None or (isinstance(rounding, str) and rounding.strip().upper() == "NONE"):
            return RoundingMode.RNE
        return rounding_mode(rounding)

    return (Patch("pto_avs.device_model.numeric.convert:resolve_conversion_rounding", replace_with(resolve)),)


# ---------------------------------------------------------------------------
# flags and controls of TCVT


@mutant("missing-nx", "TCVT never raises the inexact flag NX (the converter's inexact output is not "
        "wired to NumericStatus)")
def _missing_nx():
    def make(original):
        def convert(*args, **kwargs):
            words, flags = original(*args, **kwargs)
            return words, flags & np.uint8(~NX_FLAG & 0xFF)
        return convert

    return (Patch("pto_avs.device_model.ops.tcvt:convert", make),)


@mutant("always-saturate", "TCVT saturates whatever B.DATR Sat says (the Sat bit is not decoded): "
        "integer narrowing clamps instead of wrapping, E8M0 overflow gives 0xFE instead of NaN")
def _always_saturate():
    def make(original):
        def convert(bits, src, dst, rounding="RNE", saturate=False, profile="pto-v0", canonicalize=False):
            return original(bits, src, dst, rounding=rounding, saturate=True, profile=profile,
                            canonicalize=canonicalize)
        return convert

    return (Patch("pto_avs.device_model.ops.tcvt:convert", make),)


@mutant("flags-not-sticky", "NumericStatus is overwritten with the operation's flags instead of "
        "OR-ed into the sticky status")
def _flags_not_sticky():
    def make(_original):
        def apply(self, state):
            new = state.copy()
            for index, tile in self.tiles.items():
                new.tiles[index] = tile
            new.status = self.flags & 0x1F
            return new
        return apply

    return (Patch("pto_avs.device_model.ops.common:Publication.apply", make),)


# ---------------------------------------------------------------------------
# padding and layouts


@mutant("null-pad-defined", "PadValue Null writes zero padding and marks it defined, like Zero")
def _null_pad_defined():
    return (Patch("pto_avs.device_model.ops.common:pad_defines", replace_with(lambda pad: True)),)


@mutant("pad-max-min-swapped", "the PadValue decoder swaps Max (01) and Min (10)")
def _pad_max_min_swapped():
    swap = {"Max": "Min", "Min": "Max"}

    def make(original):
        return lambda pad, dtype: original(swap.get(pad, pad), dtype)

    return (Patch("pto_avs.device_model.ops.common:pad_word", make),)


@mutant("zn-nz-swapped", "the storage index of ZN tiles is computed with the NZ formula and vice versa")
def _zn_nz_swapped():
    swap = {"ZN": "NZ", "NZ": "ZN"}

    def make(original):
        return lambda layout, bits, rows, cols: original(swap.get(layout, layout), bits, rows, cols)

    return (Patch("pto_avs.device_model.state:ordinary_index_map", make),)


# ---------------------------------------------------------------------------
# legality, faults, allocation


def _legality_as_allocation(observation: Observation) -> Observation:
    if observation.fault == "Fault_TileLegality":
        return dataclasses.replace(observation, fault="Fault_TileAllocation")
    return observation


@mutant("legality-as-allocation", "the fault-cause encoder reports Fault_TileLegality with the "
        "Fault_TileAllocation code", observe=_legality_as_allocation)
def _legality_reported_as_allocation():
    return ()


@mutant("allocation-as-legality", "destination rename and capacity failures of TEPL bundles raise "
        "Fault_TileLegality instead of Fault_TileAllocation")
def _allocation_as_legality():
    from ..device_model.faults import tile_legality

    return (Patch("pto_avs.device_model.block:tile_allocation", replace_with(tile_legality)),)


@mutant("e8m0-pair-after-allocation", "the TCVT E8M0 type-pair check (only FP16/BF16/FP32 sources) "
        "runs after destination allocation instead of in the closed schema before it")
def _e8m0_pair_after_allocation():
    from ..device_model.ops import tcvt

    def make(original):
        def closed_schema_check(state, block):
            with mock.patch.object(tcvt, "pair_supported", lambda source, destination: True):
                original(state, block)
        return closed_schema_check

    return (Patch("pto_avs.device_model.ops.tcvt:closed_schema_check", make),)


@mutant("datr-applicability-unchecked", "B.DATR fields an operation does not use (TMULS Sat, TQUANT "
        "PadValue, ...) are ignored instead of faulting")
def _datr_applicability_unchecked():
    return (Patch("pto_avs.device_model.block:_check_datr_applicability", replace_with(lambda block, op: None)),)


@mutant("tcvt-canonicalize-unchecked", "TCVT does not check that Canonicalize is set exactly for a "
        "private (Matrix) source")
def _tcvt_canonicalize_unchecked():
    def make(original):
        return lambda source, destination, canonicalize, layout_code: original(
            source, destination, source.location == "Matrix", layout_code)

    return (Patch("pto_avs.device_model.ops.tcvt:_check_layouts", make),)


@mutant("dtype-none-as-fp64", "B.DATR DataType DTYPE_NONE (31) is decoded as FP64 (code 0) instead of "
        "'inherit the BSTART type'")
def _dtype_none_as_fp64():
    from ..device_model import dtypes

    def make(original):
        def explicit_type(self):
            if self.datr is not None and self.datr["DataType"] == dtypes.DTYPE_NONE:
                return dtypes.BY_NAME["FP64"]
            return original(self)
        return explicit_type

    return (Patch("pto_avs.device_model.block:BlockState.explicit_type", make),)


@mutant("zero-mask-allocates", "B.IOT PEMode 000 is decoded as mask 1111, so a zero-participation "
        "binding executes and allocates instead of being a no-op")
def _zero_mask_allocates():
    from ..device_model.state import PE_MASK_OF_MODE

    return (Patch("pto_avs.device_model.block:PE_MASK_OF_MODE", replace_with((0b1111,) + PE_MASK_OF_MODE[1:])),)


@mutant("rename-last-free", "destination rename picks the last free TileIndex of the hand instead of "
        "the first")
def _rename_last_free():
    def make(original):
        def resolve_destination(state, block, shape=None):
            mirrored = state.copy()  # each hand's 16 indices in reverse order
            for hand in range(4):
                mirrored.tiles[hand * 16:hand * 16 + 16] = state.tiles[hand * 16:hand * 16 + 16][::-1]
            index, tile = original(mirrored, block, shape)
            return index - index % 16 + 15 - index % 16, tile
        return resolve_destination

    return (Patch("pto_avs.device_model.block:resolve_destination", make),)


@mutant("capacity-ignores-mask", "tile-capacity accounting charges one PE's TSize per tile, ignoring "
        "how many PEs the allocation mask selects")
def _capacity_ignores_mask():
    def charge(mask, capacity):
        return capacity

    return (Patch("pto_avs.device_model.block:allocation_bytes", replace_with(charge)),
            Patch("pto_avs.device_model.state:allocation_bytes", replace_with(charge)))


# ---------------------------------------------------------------------------
# TQUANT, TMULS, TGEMV_MX_ACC arithmetic


@mutant("tquant-zero-point-first", "TQUANT adds the zero point before multiplying: (x + zp) * m "
        "(the FP32 sum rounded to nearest even) instead of x * m + zp")
def _tquant_zero_point_first():
    def make(original):
        def quantize(x_bits, multiplier_bits, zero_point, dst="S8", rounding="RNE", saturate=False,
                     profile="pto-v0"):
            low = int(zero_point) & 0xFF
            zp = low - 256 if dst == "S8" and low >= 128 else low
            x = (np.asarray(x_bits, dtype=np.uint64) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
            with np.errstate(all="ignore"):
                shifted = (x.view(np.float32) + np.float32(zp)).view(np.uint32)
            return original(shifted.astype(np.uint64), multiplier_bits, 0, dst, rounding, saturate, profile)
        return quantize

    return (Patch("pto_avs.device_model.ops.tquant:quantize", make),)


@mutant("tmuls-int-saturates", "TMULS integer products saturate at the element range instead of "
        "wrapping modulo 2^width")
def _tmuls_int_saturates():
    from ..device_model import dtypes

    def make(original):
        def multiply(a_bits, scalar_bits, dtype, profile="pto-v0"):
            t = dtypes.dtype(dtype)
            if not t.is_integer:
                return original(a_bits, scalar_bits, dtype, profile=profile)
            a = np.asarray(a_bits, dtype=np.uint64)

            def values(words):  # exact Python integers (object arrays): products need up to 128 bits
                low = (np.atleast_1d(np.asarray(words, dtype=np.uint64)) & np.uint64(t.mask)).astype(object)
                return np.where(low >> (t.bits - 1), low - (1 << t.bits), low) if t.signed else low

            products = np.clip(values(a) * values(scalar_bits), t.int_min, t.int_max) & ((1 << 64) - 1)
            return products.astype(np.uint64), np.zeros(a.shape, dtype=np.uint8)
        return multiply

    return (Patch("pto_avs.device_model.ops.tmuls:multiply", make),)


@mutant("mx-scale-block-16", "TGEMV_MX_ACC applies one E8M0 scale per 16 K elements (and sizes the "
        "scale tiles by ceil(K/16)) instead of per 32")
def _mx_scale_block_16():
    return (Patch("pto_avs.device_model.ops.cube:SCALE_BLOCK", replace_with(16)),)


@mutant("k-order-reversed", "TGEMV_MX_ACC accumulates the K products in decreasing K order (the "
        "rounded FP32 FMA chain runs backwards)", profile="hw-ieee")
def _k_order_reversed():
    def make(original):
        def accumulate(acc, a, a_type, a_scale, b, b_type, b_scale, profile, accumulator="FP32"):
            columns = (lambda x: None if x is None else x[:, ::-1])  # A and A-scale are M x K
            rows = (lambda x: None if x is None else x[::-1])  # B and B-scale are K x N
            return original(acc, columns(a), a_type, columns(a_scale), rows(b), b_type, rows(b_scale), profile,
                            accumulator)
        return accumulate

    return (Patch("pto_avs.device_model.ops.cube:accumulate", make),)


@mutant("accumulator-overwritten", "TGEMV_MX_ACC writes the result D back into the accumulator tile C "
        "as well (C must be left unchanged)")
def _accumulator_overwritten():
    def overwrite(publication, state, c_index, d_index):
        c, d = state.tiles[c_index], publication.tiles[d_index]
        payload = c.payload.copy()
        payload[c.valid_index] = d.valid_words()
        publication.tiles[c_index] = c.with_contents(payload, c.defined)
        return publication

    def make_bundle(original):
        def bundle_flow(op, state, block, profile):
            publication = original(op, state, block, profile)
            if not op.acc:
                return publication
            return overwrite(publication, state, block.sources()[0], next(iter(publication.tiles)))
        return bundle_flow

    def make_direct(original):
        def direct_flow(op, state, call, profile):
            publication = original(op, state, call, profile)
            return overwrite(publication, state, call["acc"], call["dst"]) if op.acc else publication
        return direct_flow

    return (Patch("pto_avs.device_model.ops.cube:bundle_flow", make_bundle),
            Patch("pto_avs.device_model.ops.cube:direct_flow", make_direct))


@mutant("bias-before-dot-product", "The CUBE BIAS forms add the bias to the initial accumulator and then "
        "run the K fused steps on it, instead of adding it once after the complete dot product",
        profile="hw-ieee")
def _bias_before_dot_product():
    from ..device_model.ops import cube

    def make(original):
        def product(acc, bias, a, a_type, a_scale, b, b_type, b_scale, profile, accumulator):
            if bias is not None:
                acc, flags = cube.add_bias(np.asarray(acc, dtype=np.uint64), bias, profile, accumulator)
            else:
                flags = 0
            raw, more = cube.accumulate(np.asarray(acc, dtype=np.uint64), a, a_type, a_scale, b, b_type, b_scale,
                                        profile, accumulator)
            return np.asarray(raw, dtype=np.uint64), flags | more
        return product

    return (Patch("pto_avs.device_model.ops.cube:product", make),)


@mutant("u8-accumulates-as-s32", "The ordinary CUBE input U8 is put in the signed class: U8 x U8 "
        "accumulates into S32 (and U8 with U16 or U4X2 is a mixed-class pair)")
def _u8_accumulates_as_s32():
    def make(original):
        return {**original, "S32": original["S32"] | {"U8"}, "U32": original["U32"] - {"U8"}}

    return (Patch("pto_avs.device_model.ops.cube:ORDINARY_CLASSES", make),)


@mutant("mx-scale-per-k", "The MX forms take one E8M0 scale per K element (scale column/row k, the "
        "last one for k past it) instead of one per 32-element block")
def _mx_scale_per_k():
    def make(original):
        def scale_block_of(k):
            return np.minimum(np.arange(k), original(k)[-1])
        return scale_block_of

    return (Patch("pto_avs.device_model.ops.cube:scale_block_of", make),)


@mutant("shared-transb-ignored", "A Shared B under B.FPATR TransB=1 is read as stored: B(k, n) from the "
        "register's own element (k, n) at its row stride, instead of its element (n, k)")
def _shared_transb_ignored():
    def make(original):
        def shared_primary(register, shared_id, rows, cols, transpose, side):
            if not (transpose and side == "B") or register is None:
                return original(register, shared_id, rows, cols, transpose, side)
            flat = register.words().ravel()  # the register's logical elements, row-major at its own stride
            r, c = np.indices((rows, cols))
            return flat[(r * register.cols + c) % flat.size].astype(np.uint64)
        return shared_primary

    return (Patch("pto_avs.device_model.ops.cube:shared_primary", make),)


# ---------------------------------------------------------------------------
# one value class's flags, padding carrier Words (each killed only by the flag-isolation
# vectors PTO-AVS-X-*-HW-*-FLAGS-001 or by the padding vectors' `padding.word`)


def _source_classes(bits, src):
    from ..device_model.numeric import formats

    return formats.classify(bits, src), formats.ValueClass


@mutant("nan-to-int-no-nv", "TCVT float -> integer without Sat writes the indefinite value for a "
        "NaN source but forgets to raise NV", profile="hw-ieee")
def _nan_to_int_no_nv():
    from ..device_model import dtypes

    def make(original):
        def convert(bits, src, dst, rounding="RNE", saturate=False, profile="pto-v0", canonicalize=False):
            words, flags = original(bits, src, dst, rounding=rounding, saturate=saturate, profile=profile,
                                    canonicalize=canonicalize)
            if dtypes.dtype(src).is_float and dtypes.dtype(dst).is_integer and not saturate:
                cls, value_class = _source_classes(bits, src)
                nan = (cls == value_class.QUIET_NAN) | (cls == value_class.SIGNALING_NAN)
                flags = np.where(nan, flags & np.uint8(0xFE), flags).astype(np.uint8)
            return words, flags
        return convert

    return (Patch("pto_avs.device_model.ops.tcvt:convert", make),)


@mutant("unsigned-sat-negative-nv", "TCVT float -> unsigned integer with Sat raises NV for every "
        "negative source, also for -0 and small negatives that round to 0", profile="hw-ieee")
def _unsigned_sat_negative_nv():
    from ..device_model import dtypes

    def make(original):
        def convert(bits, src, dst, rounding="RNE", saturate=False, profile="pto-v0", canonicalize=False):
            words, flags = original(bits, src, dst, rounding=rounding, saturate=saturate, profile=profile,
                                    canonicalize=canonicalize)
            d = dtypes.dtype(dst)
            if dtypes.dtype(src).is_float and d.is_integer and not d.signed and saturate:
                cls, value_class = _source_classes(bits, src)
                negative = np.isin(cls, [value_class.NEGATIVE_ZERO, value_class.NEGATIVE_SUBNORMAL,
                                         value_class.NEGATIVE_NORMAL])
                flags = np.where(negative, flags | np.uint8(0x01), flags).astype(np.uint8)
            return words, flags
        return convert

    return (Patch("pto_avs.device_model.ops.tcvt:convert", make),)


@mutant("signed-min-pad-sign-extended", "PadValue Min of S8/S16/S32 is written sign-extended to the "
        "64-bit carrier (S8: 0xFFFFFFFFFFFFFF80) instead of the Word 0x80")
def _signed_min_pad_sign_extended():
    def make(original):
        def pad_word(pad, dtype):
            word = original(pad, dtype)
            if pad == "Min" and dtype.signed and dtype.bits < 64 and word >> (dtype.bits - 1) & 1:
                word |= ((1 << 64) - 1) ^ dtype.mask
            return word
        return pad_word

    return (Patch("pto_avs.device_model.ops.common:pad_word", make),)


@mutant("pad-word-element-bits", "padding Words are written reduced to the element width, so the "
        "all-ones Max and 0x8000000000000000 Min of HiF8, E3M2, E2M3 and E8M0 read 0xFF and 0x00")
def _pad_word_element_bits():
    def make(original):
        return lambda pad, dtype: original(pad, dtype) & dtype.mask

    return (Patch("pto_avs.device_model.ops.common:pad_word", make),)


@mutant("postprocess-hif8-rne", "B.FPATR PreQuantMode 25/28 (FP32 -> HiF8) rounds to nearest even "
        "instead of the fixed round-half-toward-+infinity (RHB)")
def _postprocess_hif8_rne():
    def make(original):
        return lambda mode, rmode: "RNE" if mode in (25, 28) else original(mode, rmode)

    return (Patch("pto_avs.device_model.ops.postprocess:effective_rounding", make),)


@mutant("postprocess-tie-no-nx", "the post-processing rounder reports an exact tie as exact, so a "
        "result halfway between two FP32/FP16/BF16/S8 values raises no NX")
def _postprocess_tie_no_nx():
    def make(original):
        def round_scaled(sig, shift, negative, mode):
            magnitude, exact = original(sig, shift, negative, mode)
            right = np.clip(-np.asarray(shift, dtype=np.int64), 0, 62)
            sig = np.asarray(sig, dtype=np.int64)
            rest = sig - ((sig >> right) << right)
            tie = (right > 0) & (rest == (np.int64(1) << np.maximum(right - 1, 0)))
            return magnitude, exact | tie
        return round_scaled

    return (Patch("pto_avs.device_model.ops.postprocess:round_scaled", make),)


# ---------------------------------------------------------------------------
# the device


class MutantDevice(GoldenDevice):
    """The golden model of ``profile`` with ``mutant``'s bug."""

    def __init__(self, mutant: Mutant, profile: str):
        super().__init__(profile)
        self.mutant = mutant
        self.name = f"mutant:{mutant.name}@{profile}"

    def execute(self, case: Case) -> Observation:
        with ExitStack() as stack:
            for patch in (*MODEL_MEMOS, *self.mutant.patches):
                owner, name = patch.owner_and_name()
                stack.enter_context(mock.patch.object(owner, name, patch.make(getattr(owner, name))))
            observation = super().execute(case)
        return self.mutant.observe(observation) if self.mutant.observe else observation


def _fresh_table(original):
    return {}


def _uncached(original):
    return original.__wrapped__


# The model's memo caches filled by functions a mutant may patch (conversion tables and the
# casts verified against them, narrowing kernels, blank tiles): a mutant's execute runs with
# them empty or uncached, so a result the golden model memoised in the same process never
# hides the mutant's bug, and one the mutant computed never reaches the golden model.
MODEL_MEMOS = (
    Patch("pto_avs.device_model.numeric.convert_fast:_TABLES", _fresh_table),
    Patch("pto_avs.device_model.numeric.convert_fast:_VERIFIED", _fresh_table),
    Patch("pto_avs.device_model.numeric.convert:_narrowing_kernel", _uncached),
    Patch("pto_avs.device_model.machine:_blank_configured_tile", _uncached),
)


def parse(arg: Optional[str]) -> tuple[Mutant, str]:
    """``NAME`` or ``NAME@PROFILE`` -> (mutant, profile); ValueError naming the choices."""
    name, _, profile = (arg or "").partition("@")
    if name not in MUTANTS:
        known = ", ".join(sorted(MUTANTS))
        raise ValueError(f"mutant {name!r} is not defined; use mutant:NAME[@PROFILE] with NAME one of {known}"
                         if name else f"name a mutant: mutant:NAME[@PROFILE] with NAME one of {known}")
    chosen = MUTANTS[name]
    profile = profile or chosen.profile
    if profile not in PROFILES:
        raise ValueError(f"mutant:{name}@{profile}: profile must be one of {', '.join(PROFILES)}")
    return chosen, profile


def open_device(arg: Optional[str]) -> MutantDevice:
    return MutantDevice(*parse(arg))


# ---------------------------------------------------------------------------
# the exact elementwise families (TAND ... TEXPANDS): each bug replaces the element
# function of some registry entries for the length of a case


def _elements_replaced(names, make):
    """A patch of the operation registry: the entries ``names`` get ``make(original element)``."""
    import copy

    def entries(original):
        out = dict(original)
        for name in names:
            out[name] = copy.copy(original[name])
            out[name].element = make(original[name].element)
        return out

    return Patch("pto_avs.device_model.ops.registry:OPERATIONS", entries)


@mutant("xor-as-or", "the bitwise unit's XOR select line is wired to OR: TXOR and TXORS compute a | b")
def _xor_as_or():
    def make(original):
        return lambda dtype, profile, left, right: original(dtype, profile, left, np.asarray(left) | right)
    return (_elements_replaced(("TXOR", "TXORS"), make),)


@mutant("shift-count-unmasked", "TSHL/TSHLS take the shift count modulo 64 (the 64-bit shifter's field) "
        "instead of modulo the element width, so a count at or beyond the width clears the element")
def _shift_count_unmasked():
    def make(original):
        def shift(dtype, profile, left, right):
            count = np.asarray(right, dtype=np.uint64) & np.uint64(63)
            return np.left_shift(np.asarray(left, dtype=np.uint64), count) & np.uint64(dtype.mask), 0
        return shift
    return (_elements_replaced(("TSHL", "TSHLS"), make),)


@mutant("minmax-nan-propagates", "floating TMAX/TMIN/TMAXS/TMINS propagate a single NaN operand "
        "(canonical NaN, as IEEE 754-2008 minimum/maximum) instead of returning the numeric operand")
def _minmax_nan_propagates():
    from ..device_model.numeric import ValueClass, classify

    def make(original):
        def minmax(dtype, profile, left, right):
            words, flags = original(dtype, profile, left, right)
            if dtype.is_integer:
                return words, flags
            nan = (classify(left, dtype) >= ValueClass.QUIET_NAN) | (classify(right, dtype) >= ValueClass.QUIET_NAN)
            return np.where(nan, np.uint64(dtype.canonical_nan), words), flags
        return minmax
    return (_elements_replaced(("TMAX", "TMIN", "TMAXS", "TMINS"), make),)


@mutant("relu-nan-passthrough", "TRELU passes NaN inputs through unchanged (payload kept, no NV for a "
        "signaling NaN) instead of the canonical quiet NaN with NV")
def _relu_nan_passthrough():
    from ..device_model.numeric import ValueClass, classify

    def make(original):
        def relu(dtype, profile, value):
            words, flags = original(dtype, profile, value)
            if dtype.is_integer:
                return words, flags
            nan = classify(value, dtype) >= ValueClass.QUIET_NAN
            bits = np.asarray(value, dtype=np.uint64) & np.uint64(dtype.mask)
            return np.where(nan, bits, words), np.where(nan, np.uint8(0), flags)
        return relu
    return (_elements_replaced(("TRELU",), make),)


def _unmasked_fill(entries):
    """TEXPANDS's entry whose scalar skips TileRawElementValue (the raw GPR reaches the element)."""
    import copy

    entry = copy.copy(entries["TEXPANDS"])
    original_run = entry.run

    def run(tiles, dst, sources, scalar, pad, profile, limit):
        publication = original_run(tiles, dst, sources, scalar, pad, profile, limit)
        tile = publication.tiles[dst]
        if not tile.packed:
            payload = tile.payload.copy()
            payload[tile.valid_index] = np.uint64(scalar)
            publication.tiles[dst] = tile.with_contents(payload, tile.defined)
        return publication

    entry.run = run
    return {**entries, "TEXPANDS": entry}


@mutant("expands-scalar-unmasked", "TEXPANDS writes the whole GPR Word into every element instead of the "
        "scalar's element bits (TileRawElementValue is skipped)")
def _expands_scalar_unmasked():
    return (Patch("pto_avs.device_model.ops.registry:OPERATIONS", _unmasked_fill),)


# ---------------------------------------------------------------------------
# the arithmetic elementwise families (TADD ... TREMS), the same way


@mutant("cancellation-negative-zero", "the floating adder gives an exact zero sum the left operand's sign "
        "(x + -x is -0 for a negative x) instead of +0 under round-to-nearest", profile="hw-ieee")
def _cancellation_negative_zero():
    def make(original):
        def add(dtype, profile, left, right):
            words, flags = original(dtype, profile, left, right)
            if dtype.is_integer:
                return words, flags
            sign = np.uint64(1 << (dtype.bits - 1))
            left = np.asarray(left, dtype=np.uint64)
            return np.where(np.asarray(words) == 0, left & sign, words), flags
        return add
    return (_elements_replaced(("TADD", "TSUB", "TADDS", "TSUBS"), make),)


@mutant("mul-zero-sign-lost", "the floating multiplier gives every exactly zero product +0, losing the "
        "sign of (-x) * 0", profile="hw-ieee")
def _mul_zero_sign_lost():
    def make(original):
        def multiply(dtype, profile, left, right):
            words, flags = original(dtype, profile, left, right)
            if dtype.is_integer:
                return words, flags
            return np.where(np.asarray(words) == np.uint64(1 << (dtype.bits - 1)), np.uint64(0), words), flags
        return multiply
    return (_elements_replaced(("TMUL",), make),)


@mutant("signed-rem-truncated", "signed integer TREM/TREMS take the truncated remainder (C's %, the "
        "dividend's sign) instead of the floor modulo that follows the divisor's sign")
def _signed_rem_truncated():
    from ..device_model.numeric.words import normalize_integer

    def make(original):
        def remainder(dtype, profile, left, right):
            words, flags = original(dtype, profile, left, right)
            if not dtype.signed:
                return words, flags
            a = normalize_integer(np.asarray(left, dtype=np.uint64), dtype).view(np.int64)
            b = normalize_integer(np.broadcast_to(np.asarray(right, dtype=np.uint64), np.shape(a)).copy(),
                                  dtype).view(np.int64)
            truncated = np.fmod(a, np.where(b == 0, 1, b))
            return truncated.astype(np.int64).view(np.uint64), flags
        return remainder
    return (_elements_replaced(("TREM", "TREMS"), make),)


@mutant("fma-two-roundings", "floating TFMA rounds the product before adding the addend (a multiply "
        "followed by an add) instead of rounding the exact a * b + c once", profile="hw-ieee")
def _fma_two_roundings():
    from ..device_model.numeric import tile_arithmetic

    def make(original):
        def fused(dtype, profile, left, right, addend):
            if dtype.is_integer or profile != "hw-ieee":
                return original(dtype, profile, left, right, addend)
            product, flags = tile_arithmetic.binary("MUL", left, right, dtype, profile)
            words, more = tile_arithmetic.binary("ADD", product, addend, dtype, profile)
            return words, flags | more
        return fused
    return (_elements_replaced(("TFMA",), make),)


@mutant("rsqrt-two-roundings", "TRSQRT rounds the square root before taking its reciprocal (two "
        "operations) instead of one rounding of 1 / sqrt(x)", profile="hw-ieee")
def _rsqrt_two_roundings():
    from ..device_model.numeric import tile_arithmetic

    def make(original):
        def rsqrt(dtype, profile, value):
            if profile != "hw-ieee":
                return original(dtype, profile, value)
            root, _ = tile_arithmetic.unary("SQRT", value, dtype, profile)
            words, flags = tile_arithmetic.unary("RECIP", root, dtype, profile)
            exact, exact_flags = original(dtype, profile, value)
            finite = (exact_flags & 0x03) == 0  # the special values keep their own results
            return np.where(finite, words, exact), np.where(finite, flags | (exact_flags & 0x10), exact_flags)
        return rsqrt
    return (_elements_replaced(("TRSQRT",), make),)


@mutant("exp-overflow-no-of", "TEXP returns +infinity for an overflowing exponential but reports only "
        "inexact (OF is lost)", profile="hw-ieee")
def _exp_overflow_no_of():
    def make(original):
        def exponential(dtype, profile, value):
            words, flags = original(dtype, profile, value)
            return words, np.asarray(flags, dtype=np.uint8) & np.uint8(0x1B)
        return exponential
    return (_elements_replaced(("TEXP",), make),)


# ---------------------------------------------------------------------------
# compare and select (TCMP, TCMPS, TSEL, TSELS): element bugs the same way, and the
# packed predicate storage order


@mutant("predicate-high-bit-first", "predicate tiles are stored high bit first (logical element i in bit "
        "7 - i mod 8 of byte i / 8) though every bit reads back at its own coordinate")
def _predicate_high_bit_first():
    def make(original):
        def packed_bytes(tile):
            return np.packbits((tile.payload & np.uint64(1)).astype(np.uint8), bitorder="big")
        return packed_bytes
    return (Patch("pto_avs.device_model.state:Tile.packed_bytes", make),)


def _nan_operands(dtype, left, right):
    from ..device_model.numeric import ValueClass, classify

    if dtype.is_integer:
        return np.zeros(np.broadcast(np.asarray(left), np.asarray(right)).shape, bool)
    return (classify(np.asarray(left, dtype=np.uint64), dtype) >= ValueClass.QUIET_NAN) | \
        (classify(np.asarray(right, dtype=np.uint64), dtype) >= ValueClass.QUIET_NAN)


@mutant("compare-nan-ne-false", "the comparator computes NE as 'ordered and unequal', so a NaN operand "
        "makes NE false (it must be true: NaN is unequal to everything)")
def _compare_nan_ne_false():
    def make(original):
        def compare(dtype, profile, cmode, left, right):
            bits, flags = original(dtype, profile, cmode, left, right)
            return (bits & ~_nan_operands(dtype, left, right)) if cmode == 1 else bits, flags
        return compare
    return (_elements_replaced(("TCMP", "TCMPS"), make),)


@mutant("compare-snan-no-invalid", "TCMP/TCMPS compare a signaling NaN quietly: the result bit is right "
        "but NV is not recorded")
def _compare_snan_no_invalid():
    def make(original):
        def compare(dtype, profile, cmode, left, right):
            bits, flags = original(dtype, profile, cmode, left, right)
            return bits, np.zeros_like(flags)
        return compare
    return (_elements_replaced(("TCMP", "TCMPS"), make),)


@mutant("select-inverted", "TSEL/TSELS take the true source where the predicate bit is 0 and the false "
        "one where it is 1 (the mask polarity is inverted)")
def _select_inverted():
    def make(original):
        return lambda bits, true_words, false_words: original(~np.asarray(bits, dtype=bool), true_words,
                                                               false_words)
    return (_elements_replaced(("TSEL", "TSELS"), make),)


# ---------------------------------------------------------------------------
# what the condition matrix of issue 30 isolates: sticky status, carrier Words of a
# broadcast, scalar NaN classes, predicate tiles at their size bound


def _entries_wrapped(names, wrap):
    """A patch of the operation registry: each entry in ``names`` gets ``wrap(entry)``
    (a shallow copy the wrapper may change)."""
    import copy

    def entries(original):
        out = dict(original)
        for name in names:
            if name in original:
                out[name] = wrap(copy.copy(original[name]))
        return out

    return Patch("pto_avs.device_model.ops.registry:OPERATIONS", entries)


def _status_replaced(publication):
    """The same publication (tiles, memory, events), but its flags replace NumericStatus
    instead of joining it."""
    from ..device_model.ops.common import Publication

    class Replacing(Publication):
        def apply(self, state):
            new = super().apply(state)
            new.status = self.flags & 0x1F
            return new

    return Replacing(**{f.name: getattr(publication, f.name) for f in dataclasses.fields(publication)})


def _status_overwritten_by(operations) -> tuple:
    """The registry entries of ``operations`` with each block's and call's publication
    replacing NumericStatus by its flags (``_status_replaced``)."""
    def wrap(entry):
        commit, direct = entry.commit_bundle, entry.direct
        entry.commit_bundle = lambda state, block, profile: _status_replaced(commit(state, block, profile))
        entry.direct = lambda state, call, profile: _status_replaced(direct(state, call, profile))
        return entry
    return (_entries_wrapped(operations, wrap),)


ARITHMETIC_UNIT = ("TADD", "TSUB", "TMUL", "TDIV", "TREM", "TFMA", "TSQRT", "TRSQRT", "TRECIP", "TEXP", "TLOG",
                   "TADDS", "TSUBS", "TDIVS", "TREMS")


@mutant("arith-status-overwritten", "the arithmetic unit (TADD ... TREMS, TFMA and the SFU operations) writes "
        "its block's flags into NumericStatus instead of ORing them into the sticky status, so flags recorded "
        "before the block are lost")
def _arith_status_overwritten():
    return _status_overwritten_by(ARITHMETIC_UNIT)


def _fill_rewritten(rewrite):
    """TEXPANDS's entry whose published non-packed destination has each valid Word
    replaced by ``rewrite(words, dtype)``."""
    def wrap(entry):
        original_run = entry.run

        def run(tiles, dst, sources, scalar, pad, profile, limit):
            publication = original_run(tiles, dst, sources, scalar, pad, profile, limit)
            tile = publication.tiles[dst]
            if not tile.packed:
                payload = tile.payload.copy()
                payload[tile.valid_index] = rewrite(payload[tile.valid_index], tile.dtype)
                publication.tiles[dst] = tile.with_contents(payload, tile.defined)
            return publication

        entry.run = run
        return entry
    return _entries_wrapped(("TEXPANDS",), wrap)


@mutant("expands-sign-extended", "TEXPANDS broadcasts the scalar's element sign-extended into the whole "
        "carrier Word (the 64-bit broadcast path of a signed move) instead of the zero-extended element bits "
        "the ASL writes")
def _expands_sign_extended():
    def rewrite(words, dtype):
        if dtype.bits >= 64:
            return words
        top = U64_ONE << np.uint64(dtype.bits - 1)
        upper = ~np.uint64(dtype.mask)
        return np.where(words & top, words | upper, words)
    return (_fill_rewritten(rewrite),)


U64_ONE = np.uint64(1)


@mutant("expands-nan-canonicalized", "TEXPANDS passes a floating scalar through the FPU's move path, which "
        "replaces any NaN by the type's canonical quiet NaN (payload and signal lost) instead of copying the "
        "scalar's element bits")
def _expands_nan_canonicalized():
    from ..device_model.numeric import ValueClass, classify

    def rewrite(words, dtype):
        if dtype.is_integer or dtype.canonical_nan is None:
            return words
        nan = classify(words & np.uint64(dtype.mask), dtype) >= ValueClass.QUIET_NAN
        return np.where(nan, np.uint64(dtype.canonical_nan), words)
    return (_fill_rewritten(rewrite),)


@mutant("scalar-qnan-payload-kept", "floating TADDS/TSUBS propagate a quiet-NaN scalar (its payload and sign) "
        "as the result instead of the canonical NaN the hardware profile requires", profile="hw-ieee")
def _scalar_qnan_payload_kept():
    from ..device_model.numeric import ValueClass, classify

    def make(original):
        def add(dtype, profile, left, right):
            words, flags = original(dtype, profile, left, right)
            if dtype.is_integer or profile != "hw-ieee":
                return words, flags
            scalar = np.asarray(right, dtype=np.uint64) & np.uint64(dtype.mask)
            quiet = classify(scalar, dtype) == ValueClass.QUIET_NAN
            left_nan = classify(np.asarray(left, dtype=np.uint64), dtype) >= ValueClass.QUIET_NAN
            return np.where(quiet & ~left_nan, scalar, words), flags
        return add
    return (_elements_replaced(("TADDS", "TSUBS"), make),)


PREDICATE_INDEX_BITS = 12  # the buggy counter: 4096 predicate elements


@mutant("predicate-index-wraps", "the predicate unit's element counter is 12 bits wide: TCMP/TCMPS write "
        "the bit of element i at i mod 4096 and TSEL/TSELS read their mask bit of element i at i mod 4096, "
        "though predicate tiles hold up to 16,384 elements")
def _predicate_index_wraps():
    wrap_at = 1 << PREDICATE_INDEX_BITS

    def make_compare(original):
        def compare(dtype, profile, cmode, left, right):
            bits, flags = original(dtype, profile, cmode, left, right)
            bits = np.asarray(bits)
            if bits.size <= wrap_at:
                return bits, flags
            flat = bits.ravel()
            out = np.zeros_like(flat)
            for start in range(0, flat.size, wrap_at):  # later elements overwrite earlier ones
                chunk = flat[start:start + wrap_at]
                out[:chunk.size] = chunk
            return out.reshape(bits.shape), flags
        return compare

    def make_select(original):
        def select(bits, true_words, false_words):
            bits = np.asarray(bits)
            if bits.size > wrap_at:
                bits = bits.ravel()[np.arange(bits.size) % wrap_at].reshape(bits.shape)
            return original(bits, true_words, false_words)
        return select

    return (_elements_replaced(("TCMP", "TCMPS"), make_compare), _elements_replaced(("TSEL", "TSELS"), make_select))


# --- broadcasts and partial operations (TROW/TCOLEXPAND*, TPART*) ---------------------

@mutant("broadcast-shape-unchecked", "the broadcast unit accepts a broadcast tile of any shape (it checks "
        "neither the one-column/one-row valid region nor the physical columns), reading whatever it holds")
def _broadcast_shape_unchecked():
    return (Patch("pto_avs.device_model.ops.expansion:TileExpand.broadcast_shape_legal",
                  replace_with(lambda self, broadcast, valid_rows, valid_cols, cols: True)),)


@mutant("broadcast-first-element", "the broadcast unit latches the broadcast tile's first element once per "
        "block, so every row (row broadcast) or column (column broadcast) combines with element (0, 0)")
def _broadcast_first_element():
    def make(original):
        def broadcast_words(self, broadcast, destination):
            words = original(self, broadcast, destination)
            return np.full(words.shape, words.flat[0], dtype=np.uint64)
        return broadcast_words
    return (Patch("pto_avs.device_model.ops.expansion:TileExpand.broadcast_words", make),)


@mutant("broadcast-padding-skipped", "the broadcasts write only the valid region: the padding coordinates are "
        "left undefined whatever PadValue the block or call selects")
def _broadcast_padding_skipped():
    def make(original):
        return lambda destination, words, pad, location=None: original(destination, words, "Null", location)
    return (Patch("pto_avs.device_model.ops.expansion:result_tile", make),)


@mutant("broadcast-status-dropped", "the broadcast unit evaluates the typed operation without its flags (as "
        "the tile-tile ExecuteTileBinary does), so TROW/TCOLEXPAND{DIV, ...} record no NumericStatus")
def _broadcast_status_dropped():
    return (Patch("pto_avs.device_model.ops.expansion:TileExpand.status", replace_with(lambda self, flags, profile: 0)),)


@mutant("expdif-no-discriminator", "pto-v0's mixed FP16/BF16 -> FP32 EXPDIF skips the hard-coded widened pairs of "
        "HardwareNumericMixedExpdifDiscriminator and takes the raw FP32 SUB/EXP for them too")
def _expdif_no_discriminator():
    return (Patch("pto_avs.device_model.ops.expansion:MIXED_EXPDIF_DISCRIMINATORS", replace_with({})),)


@mutant("partial-tail-zeroed", "the partial unit writes zero where only one source is valid instead of copying "
        "that source's Word (TPARTADD, TPARTMUL, TPARTMAX, TPARTMIN)")
def _partial_tail_zeroed():
    def make(original):
        def elements(self, tiles, dst, sources, scalar, pad, profile):
            tile, status = original(self, tiles, dst, sources, scalar, pad, profile)
            left, right = tiles[sources[0]], tiles[sources[1]]
            rows, cols = min(left.valid_rows, right.valid_rows), min(left.valid_cols, right.valid_cols)
            payload = tile.payload.copy()
            tail = np.ones((tile.valid_rows, tile.valid_cols), dtype=bool)
            tail[:rows, :cols] = False
            payload[tile.valid_index[tail]] = 0
            return tile.with_contents(payload, tile.defined), status
        return elements
    return (Patch("pto_avs.device_model.ops.partial:TilePartial.elements", make),)


# ---------------------------------------------------------------------------
# the row and column reductions (ops/reduce_expand.py): fold order, start, index ties,
# NaNs, the valid region and the recorded status

REDUCTION = "pto_avs.device_model.ops.reduce_expand:TileReduction"


@mutant("reduction-fold-reassociated", "the reduction unit adds (multiplies) each row or column as a pairwise "
        "tree instead of the architectural increasing-index left fold, rounding each tree node",
        profile="hw-ieee")
def _reduction_fold_reassociated():
    def make(original):
        def fold(self, source, profile):
            if self.reduction not in ("SUM", "PROD"):
                return original(self, source, profile)
            level, flags = list(self.lines(source).T), 0
            while len(level) > 1:
                pairs = zip(level[0::2], level[1::2])
                paired = [self.step(source.dtype, profile, left, right) for left, right in pairs]
                flags |= int(np.bitwise_or.reduce(np.concatenate([np.ravel(f) for _, f in paired]).astype(np.uint8)))
                level = [value for value, _ in paired] + level[len(paired) * 2:]
            value, step_flags = self.step(source.dtype, profile, self.initial(source.dtype, level[0]), level[0])
            return value, flags | int(np.bitwise_or.reduce(np.ravel(step_flags).astype(np.uint8), initial=0))
        return fold
    return (Patch(f"{REDUCTION}.fold", make),)


@mutant("reduction-tie-last-index", "ARGMAX/ARGMIN move the index whenever the step's result equals the element, "
        "so equal winners report the last index instead of the lowest")
def _reduction_tie_last_index():
    return (Patch(f"{REDUCTION}.selected", replace_with(
        lambda self, dtype, profile, result, value, accumulator: result == value)),)


@mutant("reduction-nan-propagates", "MAX/MIN (and ARGMAX/ARGMIN) let a NaN element replace the accumulator instead "
        "of keeping the numeric operand")
def _reduction_nan_propagates():
    def make(original):
        def step(self, dtype, profile, accumulator, value):
            result, flags = original(self, dtype, profile, accumulator, value)
            if self.reduction in ("SUM", "PROD"):
                return result, flags
            return np.where(_nan_operands(dtype, value, value), value, result), flags
        return step
    return (Patch(f"{REDUCTION}.step", make),)


@mutant("reduction-reads-padding", "the reduction unit folds whole physical rows (columns) of the source, so the "
        "padding columns (rows) outside the valid region enter the result")
def _reduction_reads_padding():
    def lines(self, source):
        grid = source.words()
        return grid[:source.valid_rows, :] if self.axis == "Row" else grid[:, :source.valid_cols].T
    return (Patch(f"{REDUCTION}.lines", replace_with(lines)),)


@mutant("reduction-extreme-from-zero", "MAX/MIN start from the Word 0 instead of the first element, so a row of "
        "negative values reports 0 as its maximum")
def _reduction_extreme_from_zero():
    def make(original):
        def initial(self, dtype, first):
            return np.zeros_like(first) if self.reduction in ("MAX", "MIN") else original(self, dtype, first)
        return initial
    return (Patch(f"{REDUCTION}.initial", make),)


@mutant("reduction-status-dropped", "the reduction unit evaluates each step without its flags (as the tile-tile "
        "ExecuteTileBinary does), so a signaling NaN in TROWMAX records no NV")
def _reduction_status_dropped():
    def make(original):
        def elements(self, tiles, dst, sources, scalar, pad, profile):
            tile, _ = original(self, tiles, dst, sources, scalar, pad, profile)
            return tile, 0
        return elements
    return (Patch(f"{REDUCTION}.elements", make),)


@mutant("expdif-source-precision", "the mixed FP16/BF16 -> FP32 EXPDIF subtracts at the source precision and "
        "widens the rounded difference before the FP32 EXP, instead of widening both operands first",
        profile="hw-ieee")
def _expdif_source_precision():
    def make(original):
        def exponential_difference(source, destination, profile, left, broadcast):
            if source.name == destination.name:
                return original(source, destination, profile, left, broadcast)
            from ..device_model.ops import expansion
            difference, flags = expansion.subtract(source, profile, left, broadcast)
            return original(destination, destination, profile,
                            expansion.widen_to_fp32(difference, source.name, profile), np.uint64(0))
        return exponential_difference
    return (Patch("pto_avs.device_model.ops.expansion:exponential_difference", make),)


# --- sorting (TSORT, TMRGSORT) ----------------------------------------------------------

SORTING = "pto_avs.device_model.ops.sorting"


@mutant("sort-unstable", "the one-group sort path (a row no wider than the group) sorts in reverse source order "
        "first, so equal keys (1.0s, +-0, NaNs) leave in reverse order with their indices")
def _sort_unstable():
    def make(original):
        def sort_groups(words, dtype, width, descending, profile):
            if width < words.shape[1]:
                return original(words, dtype, width, descending, profile)
            values, indices = original(words[:, ::-1], dtype, width, descending, profile)
            return values, np.uint64(words.shape[1] - 1) - indices
        return sort_groups
    return (Patch(f"{SORTING}:sort_groups", make),)


@mutant("sort-nan-by-bits", "NaNs are ordered by their bits like numbers (a positive NaN above +inf, a negative "
        "one below -inf), so descending sorts and negative NaNs put NaNs first")
def _sort_nan_by_bits():
    from pto_avs.device_model.numeric import classify
    from pto_avs.device_model.ops import sorting
    from pto_avs.device_model.ops.minmax import order_key

    def make_ranks(original):
        def ranks(words, dtype, descending):
            key = order_key(words, dtype).astype(np.int64)
            rank = original(words, dtype, descending)
            return np.where(rank == sorting.NAN_RANK, -key if descending else key, rank)
        return ranks

    def left_before(left, right, dtype, descending, profile):
        zeros = sorting.is_zero(classify(left, dtype)) & sorting.is_zero(classify(right, dtype))
        lk, rk = order_key(left, dtype), order_key(right, dtype)
        return zeros | sorting.words_equal(left, right, dtype, profile) | ((lk > rk) if descending else (lk < rk))
    return (Patch(f"{SORTING}:ranks", make_ranks), Patch(f"{SORTING}:left_before", replace_with(left_before)))


@mutant("sort-index-one-based", "TSORT writes each original within-group index one too high (1-based)")
def _sort_index_one_based():
    def make(original):
        def sort_groups(words, dtype, width, descending, profile):
            values, indices = original(words, dtype, width, descending, profile)
            return values, indices + np.uint64(1)
        return sort_groups
    return (Patch(f"{SORTING}:sort_groups", make),)


@mutant("sort-second-destination-not-reserved", "each TSORT destination is renamed on its own, so the index "
        "destination takes the same free index as the value destination when both are in one hand")
def _sort_second_destination_not_reserved():
    def make(original):
        def resolve_destinations(state, block, specs):
            bindings = block.destinations()
            return [original(state, dataclasses.replace(block, bindings=[binding]), [spec])[0]
                    for binding, spec in zip(bindings, specs)]
        return resolve_destinations
    return (Patch("pto_avs.device_model.block:resolve_destinations", make),)


@mutant("merge-ties-right-first", "TMRGSORT takes the right element on equal keys, so the left stream no longer "
        "wins ties (+0 before -0, the left 1.0 first)")
def _merge_ties_right_first():
    def merge(left, right, dtype, descending, profile):
        from pto_avs.device_model.ops import sorting
        left_rank, right_rank = sorting.ranks(left, dtype, descending), sorting.ranks(right, dtype, descending)
        position = np.arange(len(left)) + np.searchsorted(right_rank, left_rank, side="right")
        out = np.zeros(len(left) + len(right), dtype=np.uint64)
        taken = np.zeros(len(out), dtype=bool)
        out[position], taken[position] = left, True
        out[~taken] = right
        return out
    return (Patch(f"{SORTING}:merge", replace_with(merge)),)


# ---------------------------------------------------------------------------
# rearrangements (TFILLPAD, TCONCAT, TEXTRACT, TINSERT, TTRANS)

REARRANGE = "pto_avs.device_model.ops"


@mutant("tinsert-old-destination-ignored", "TINSERT builds its result on the newly allocated destination instead of "
        "the old destination, so every element outside the insertion window is lost (undefined)")
def _tinsert_old_destination_ignored():
    def initial_contents(self, tiles, dst, sources):
        return tiles[dst].payload.copy(), tiles[dst].defined.copy()
    return (Patch(f"{REARRANGE}.tinsert:TileInsert.initial_contents", replace_with(initial_contents)),)


@mutant("ttrans-transposed-pitch", "TTRANS walks the source's valid Words in storage order with the destination's "
        "pitch (a reshape) instead of swapping the coordinates, which only a square region hides")
def _ttrans_transposed_pitch():
    def transposed(words):
        return words.reshape(words.shape[1], words.shape[0])
    return (Patch(f"{REARRANGE}.ttrans:TileTranspose.transposed", replace_with(staticmethod(transposed))),)


@mutant("textract-offset-off-by-one", "TEXTRACT's row offset counts from one (the window starts one row higher, "
        "clamped at row 0)")
def _textract_offset_off_by_one():
    def make(original):
        def window(words, row_offset, column_offset, rows, cols):
            return original(words, max(row_offset - 1, 0), column_offset, rows, cols)
        return staticmethod(window)
    return (Patch(f"{REARRANGE}.textract:TileExtract.window", make),)


@mutant("tfillpad-fills-valid-region", "TFILLPAD writes the fill scalar at every physical coordinate after the copy, "
        "the source's valid rectangle included")
def _tfillpad_fills_valid_region():
    def make(original):
        def arrange(self, grid, defined, tiles, dst, sources, scalar, pad, row_offset, column_offset):
            original(self, grid, defined, tiles, dst, sources, scalar, pad, row_offset, column_offset)
            grid[:] = scalar & tiles[dst].dtype.mask
        return arrange
    return (Patch(f"{REARRANGE}.tfillpad:TileFillPad.arrange", make),)


# ---------------------------------------------------------------------------
# TIMG2COL (the image-to-column window of a feature map)

IMG2COL = "pto_avs.device_model.ops.timg2col"


def _with_feature_map(make_descriptor):
    """Patches TIMG2COL's element walk (``referenced``) to read a changed descriptor."""
    def make(original):
        def referenced(source, descriptor, rows, cols, row_offset, column_offset):
            return original(source, make_descriptor(descriptor), rows, cols, row_offset, column_offset)
        return referenced
    return (Patch(f"{IMG2COL}:referenced", make),)


@mutant("img2col-stride-off-by-one", "TIMG2COL steps each output row one input row short of the stride (stride - 1, "
        "at least 1), so only a stride of 1 or 2 across reads right")
def _img2col_stride_off_by_one():

    return _with_feature_map(lambda d: dataclasses.replace(d, stride_height=max(d.stride_height - 1, 1)))


@mutant("img2col-dilation-off-by-one", "TIMG2COL places the filter taps dilation - 1 apart (at least 1): a dilated "
        "filter reads adjacent input rows and columns")
def _img2col_dilation_off_by_one():

    return _with_feature_map(lambda d: dataclasses.replace(d, dilation_height=max(d.dilation_height - 1, 1),
                                                           dilation_width=max(d.dilation_width - 1, 1)))


@mutant("img2col-padding-zero", "TIMG2COL writes 0 where the descriptor's typed padding value belongs (outside the "
        "image and past logical_channels)")
def _img2col_padding_zero():


    def make(original):
        def arrange(self, grid, defined, tiles, dst, sources, scalar, pad, row_offset, column_offset):
            tiles = list(tiles)
            source = tiles[sources[0]]
            tiles[sources[0]] = source.with_descriptor(feature_map=dataclasses.replace(source.feature_map, padding=0))
            original(self, grid, defined, tiles, dst, sources, scalar, pad, row_offset, column_offset)
        return arrange
    return (Patch(f"{IMG2COL}:TileImageToColumn.arrange", make),)


# ---------------------------------------------------------------------------
# the generation group (TCI, TTRI, THISTOGRAM, TDEQUANT, TGATHER, TSCATTER)

@mutant("tci-direction-inverted", "TCI decodes the B.IOR direction bit inverted: 0 writes start - k and 1 "
        "writes start + k")
def _tci_direction_inverted():
    def make(original):
        return lambda dtype, start, count, descending: original(dtype, start, count, not descending)
    return (Patch("pto_avs.device_model.ops.generation:ascending_sequence", make),)


@mutant("histogram-bin-255-overflow", "THISTOGRAM's bin counters are indexed modulo 255, so byte 0xff lands in "
        "bin 0 (every prefix from bin 0 on counts it; bin 255 adds nothing of its own)")
def _histogram_bin_255_overflow():
    def make(original):
        def histogram(source, filter_tile, selected_byte):
            prefix = original(source, filter_tile, selected_byte).astype(np.int64)
            counts = np.diff(prefix, axis=1, prepend=0)
            counts[:, 0] += counts[:, 255]
            counts[:, 255] = 0
            return np.cumsum(counts, axis=1).astype(np.uint64)
        return histogram
    return (Patch("pto_avs.device_model.ops.thistogram:histogram", make),)


@mutant("index-off-by-one", "TGATHER and TSCATTER check an index against the valid rows with <= instead of <, "
        "so the index equal to the row count is accepted (and reads or writes the row past the valid region)")
def _index_off_by_one():
    return (Patch("pto_avs.device_model.ops.indexed:TileIndexed.rows_in_range",
                  replace_with(staticmethod(lambda rows, limit_rows: not (rows > np.uint64(limit_rows)).any()))),)


@mutant("scatter-duplicate-accepted", "TSCATTER skips the duplicate-target check: two source elements naming "
        "the same destination coordinate are accepted and the later one wins")
def _scatter_duplicate_accepted():
    return (Patch("pto_avs.device_model.ops.indexed:TileIndexed.targets_distinct",
                  replace_with(staticmethod(lambda targets: True))),)


@mutant("tdequant-double-rounding", "TDEQUANT distributes the multiplier, rounding q * m and zp * m to FP32 "
        "before subtracting them (three roundings instead of one)")
def _tdequant_double_rounding():
    def make(original):
        def dequantize(q_words, multiplier, zero_point, source="S8", rounding="RNE", profile="pto-v0"):
            from ..device_model.numeric.encode import round_to_float
            from ..device_model.dtypes import BY_NAME
            from ..device_model.numeric.rounding import rounding_mode
            products, flags = original(q_words, multiplier, 0, source, rounding, profile)
            bias, bias_flags = original(np.asarray([zero_point], dtype=np.uint64), multiplier, 0, source, rounding,
                                        profile)

            def exact(word):  # (value numerator at exponent -149 - 126, as a Python int) of a finite FP32 word
                word = int(word)
                exponent, fraction = (word >> 23) & 0xFF, word & 0x7FFFFF
                magnitude = (fraction if exponent == 0 else fraction | 0x800000) << max(exponent - 1, 0)
                return -magnitude if word >> 31 else magnitude

            if int(bias[0]) & 0x7F800000 == 0x7F800000:
                return original(q_words, multiplier, zero_point, source, rounding, profile)
            mode = rounding_mode("RNE" if str(rounding).upper() == "NONE" else rounding)
            out = products.copy().reshape(-1)
            extra = np.zeros(out.shape, dtype=np.uint8)
            for i, word in enumerate(products.reshape(-1)):
                if int(word) & 0x7F800000 == 0x7F800000:
                    continue
                value = exact(word) - exact(bias[0])
                magnitude, shift = abs(value), max(abs(value).bit_length() - 64, 0)
                sticky = 1 if magnitude & ((1 << shift) - 1) else 0
                words, f = round_to_float(np.array([value < 0]), np.array([(magnitude >> shift) | sticky],
                                                                          dtype=np.uint64),
                                          np.array([-149 + shift]), BY_NAME["FP32"], mode, False)
                out[i], extra[i] = words[0], f[0]
            return out.reshape(products.shape), (flags | extra.reshape(products.shape) | bias_flags[0])
        return dequantize
    return (Patch("pto_avs.device_model.ops.tdequant:dequantize", make),)


# ---------------------------------------------------------------------------
# Global memory and the memory flow (TLOAD, TSTORE, TPREFETCH)

MEMORY = "pto_avs.device_model.memory"


@mutant("memory-alignment-off-by-one", "the alignment check masks the address with size - 2 instead of size - 1, "
        "so an access one byte off its natural boundary (a U16 at an odd address) is not a Fault_DataAlignment")
def _memory_alignment_off_by_one():
    def make(original):
        def probe(footprint, memory_size):
            if footprint.size == 1:
                return original(footprint, memory_size)
            shifted = dataclasses.replace(footprint, addresses=footprint.addresses & ~np.uint64(1))
            return original(shifted, memory_size)
        return probe
    return (Patch(f"{MEMORY}:probe", make),)


@mutant("memory-page-boundary-off-by-one", "the page check rejects an access that ends at the last byte of "
        "memory (address + size >= PTO_MODEL_MEMORY_BYTES instead of >)")
def _memory_page_boundary_off_by_one():
    def make(original):
        def probe(footprint, memory_size):
            return original(footprint, memory_size - 1)
        return probe
    return (Patch(f"{MEMORY}:probe", make),)


@mutant("tstore-stores-padding", "TSTORE writes every physical column of the source's valid rows, the padding "
        "past the valid columns included, instead of the valid rectangle alone")
def _tstore_stores_padding():
    from ..device_model.ops.memory_flow import strided_footprint

    def footprint(self, state, operands):
        tile = operands["tile"]
        return strided_footprint(operands["base"], operands["stride"], tile.valid_rows, tile.cols, tile.dtype,
                                 write=True)

    def make(original):
        def transfer(self, state, block, operands, footprint, index):
            tile = operands["tile"]
            wide = dataclasses.replace(tile, valid_cols=tile.cols)
            return original(self, state, block, dict(operands, tile=wide), footprint, index)
        return transfer
    ops = "pto_avs.device_model.ops.tstore:TileStore"
    return (Patch(f"{ops}.memory_footprint", replace_with(footprint)), Patch(f"{ops}.transfer", make))


@mutant("memory-events-reversed", "a transfer's memory events are logged last access first (the log is built "
        "by prepending), so the captured order differs from the spec's row-major access order")
def _memory_events_reversed():
    def make(original):
        def events(*arguments):
            return original(*arguments)[::-1]
        return events
    return (Patch(f"{MEMORY}:load_events", make), Patch(f"{MEMORY}:store_events", make))


@mutant("move-drops-padding", "TMOV and GMOV copy the source's valid region only and leave the destination's "
        "padding as allocated (undefined), instead of the whole payload and definedness")
def _move_drops_padding():
    def copied(destination, source):
        payload, defined = destination.payload.copy(), destination.defined.copy()
        index = source.valid_index
        payload[index], defined[index] = source.payload[index], source.defined[index]
        return destination.with_contents(payload, defined)
    return (Patch("pto_avs.device_model.ops.movement:copied", replace_with(copied)),)


@mutant("gmov-peer-of-pe0-only", "GMOV range-checks PE 0's peer_tid and takes it for every PE (one GPR file), so "
        "another PE's peer_tid outside 0..3 is accepted")
def _gmov_peer_of_pe0_only():
    def peer_tids(state, block):
        first = state.read_gpr(block.ior["RegSrc0"]) if block.ior is not None else 0
        return [first] * 4
    return (Patch("pto_avs.device_model.ops.movement:PeerMove.peer_tids", replace_with(staticmethod(peer_tids))),)


# ---------------------------------------------------------------------------
# the indexed memory operations (MGATHER, MGATHER_MASK, MGATHER_CAS, MSCATTER, MSCATTER_MASK)

INDEXED = "pto_avs.device_model.ops.gather_scatter"


@mutant("indexed-mask-inverted", "MGATHER_MASK and MSCATTER_MASK take the lanes whose predicate bit is 0 instead "
        "of 1 (the exact-one test inverted)")
def _indexed_mask_inverted():
    def active_lanes(self, operands):
        indices = operands["indices"]
        if not self.masked:
            return np.arange(indices.valid_rows * indices.valid_cols)
        return np.flatnonzero((operands["mask"].valid_words().ravel() & np.uint64(1)) == np.uint64(0))
    return (Patch(f"{INDEXED}:IndexedMemoryFlow.active_lanes", replace_with(active_lanes)),)


@mutant("scatter-dedup-before-mask", "MSCATTER_MASK removes duplicate-address lanes (keeping the last) before it "
        "applies the predicate, so when that last lane is disabled no enabled lane stores there: a winner the "
        "spec does not allow")
def _scatter_dedup_before_mask():
    def make(original):
        def footprint(self, state, operands):
            if not (self.masked and self.scatter):
                return original(self, state, operands)
            from ..device_model import memory
            from ..device_model.ops.gather_scatter import byte_displacements
            from ..device_model.ops.memory_flow import element_bytes
            indices = operands["indices"]
            addresses = np.uint64(operands["base"]) + byte_displacements(indices.valid_words().ravel(), indices.dtype)
            last = {int(a): lane for lane, a in enumerate(addresses)}  # the last lane of each address
            enabled = operands["mask"].valid_words().ravel() & np.uint64(1)
            lanes = np.array(sorted(lane for lane in last.values() if enabled[lane]), dtype=np.int64)
            operands["lanes"] = lanes
            return memory.Footprint(addresses[lanes], element_bytes(operands["source"].dtype), True)
        return footprint
    return (Patch(f"{INDEXED}:IndexedMemoryFlow.memory_footprint", make),)


@mutant("cas-expected-of-next-lane", "MGATHER_CAS compares each lane's old value with the next lane's expected "
        "element (the expected tile read one lane off)")
def _cas_expected_of_next_lane():
    def make(original):
        def compare_and_swap(self, state, block, operands, footprint, index, room):
            expected = operands["expected"]
            payload = expected.payload.copy()
            payload[expected.valid_index] = np.roll(expected.valid_words().ravel(), -1).reshape(
                expected.valid_words().shape)
            shifted = {**operands, "expected": expected.with_contents(payload, expected.defined)}
            return original(self, state, block, shifted, footprint, index, room)
        return compare_and_swap
    return (Patch(f"{INDEXED}:IndexedMemoryFlow.compare_and_swap_lanes", make),)


@mutant("gather-index-scaled", "the indexed forms multiply each index by the transfer element size (an element "
        "index, as TPREFETCH's stride is) instead of using it as a byte displacement")
def _gather_index_scaled():
    def make(original):
        def footprint(self, state, operands):
            found = original(self, state, operands)
            base = np.uint64(operands["base"])
            scaled = base + (found.addresses - base) * np.uint64(found.size)
            return dataclasses.replace(found, addresses=scaled)
        return footprint
    return (Patch(f"{INDEXED}:IndexedMemoryFlow.memory_footprint", make),)


@mutant("four-bit-index-unsigned", "an S4X2 index tile's nibble is zero-extended (read as U4X2) instead of "
        "sign-extended, so a negative 4-bit index displaces above the base")
def _four_bit_index_unsigned():
    def make(original):
        def displacements(index_words, dtype):
            if dtype.name == "S4X2":
                return np.asarray(index_words, dtype=np.uint64) & np.uint64(0xF)
            return original(index_words, dtype)
        return displacements
    return (Patch(f"{INDEXED}:byte_displacements", make),)


@mutant("gather-null-pad-undefined", "a gather with PadValue Null leaves the padding undefined (as the TEPL "
        "results do) instead of defining the whole physical destination (MarkTilePhysicalRegionDefined)")
def _gather_null_pad_undefined():
    def make(original):
        from ..device_model.ops.common import result_tile
        return staticmethod(result_tile)
    return (Patch(f"{INDEXED}:IndexedMemoryFlow.defined_result", make),)


@mutant("shared-store-pe-bits-reversed", "a Shared-source TSTORE reads PE p's bit of the PE mask as bit p (not "
        "bit 3 - p), so TSTORE.SPART stores the wrong PEs' quarters")
def _shared_store_pe_bits_reversed():
    def pe_selected(mask, pes):
        return ((mask >> pes.astype(np.int64)) & 1).astype(bool)
    return (Patch("pto_avs.device_model.ops.memory_flow:pe_selected", replace_with(pe_selected)),)


@mutant("tload-shared-mask-ignored", "TLOAD into a Shared register ignores its B.IOS binding's PE mask: every "
        "quarter is loaded (and the register allocated) on all four PEs")
def _tload_shared_mask_ignored():
    def make(original):
        def shared_load(op, state, block):
            widened = dataclasses.replace(block, shared=[(tid, size, 0b1111) for tid, size, _ in block.shared])
            return original(op, state, widened)
        return shared_load
    return (Patch("pto_avs.device_model.ops.tload:shared_load", make),)


@mutant("catr-order-lost", "the block ignores B.CATR aq/rl, so every memory event is recorded Relaxed instead of "
        "the block's CurrentBundleMemoryOrder")
def _catr_order_lost():
    return (Patch("pto_avs.device_model.block:memory_order", replace_with(lambda block: "Relaxed")),)


# ---------------------------------------------------------------------------
# issue 30 on the TLSU memory and move operations: sticky status, lane and element counters
# at the 64 KiB bound, the address decoder of the largest memory, padding Words moved whole

TLSU_OPERATIONS = ("TLOAD", "TSTORE", "TPREFETCH", "MGATHER", "MGATHER_MASK", "MGATHER_CAS", "MSCATTER",
                   "MSCATTER_MASK", "TMOV", "GMOV")
COUNTER_WRAP = 4096  # a 12-bit element or lane counter
ADDRESS_BITS = 16  # an address decoder sized for the model's largest memory (65,536 bytes)


@mutant("tlsu-status-overwritten", "the TLSU memory and move operations (TLOAD, TSTORE, TPREFETCH, the indexed "
        "gathers and scatters, TMOV, GMOV) write their block's flags (none) into NumericStatus instead of ORing "
        "them into the sticky status, so the status recorded before the block is cleared")
def _tlsu_status_overwritten():
    return _status_overwritten_by(TLSU_OPERATIONS)


@mutant("indexed-lane-index-wraps", "the indexed TLSU operations count lanes with a 12-bit counter: lane i reads "
        "the index (so the address) of lane i mod 4096, though a tile holds up to 16,384 lanes", profile="hw-ieee")
def _indexed_lane_index_wraps():
    def make(original):
        def lane_words(indices):
            words = np.asarray(original(indices))
            flat = words.ravel()
            if flat.size <= COUNTER_WRAP:
                return words
            return flat[np.arange(flat.size) % COUNTER_WRAP].reshape(words.shape)
        return lane_words
    return (Patch(f"{INDEXED}:lane_index_words", make),)


@mutant("move-element-index-wraps", "TMOV and GMOV copy with a 12-bit element counter: payload slot i of the "
        "destination takes the source's slot i mod 4096 (Word and definedness), though a tile holds up to "
        "16,384 elements", profile="hw-ieee")
def _move_element_index_wraps():
    def copied(destination, source):
        slots = np.arange(source.payload.size) % COUNTER_WRAP
        return destination.with_contents(source.payload[slots].copy(), source.defined[slots].copy())
    return (Patch("pto_avs.device_model.ops.movement:copied", replace_with(copied)),)


@mutant("indexed-address-wraps-64k", "the indexed TLSU operations decode 16 address bits (enough for the model's "
        "largest memory, 65,536 bytes), so there a lane past the top of memory wraps to its bottom instead of "
        "faulting with Fault_DataPage", profile="hw-ieee")
def _indexed_address_wraps_64k():
    def make(original):
        def footprint(self, state, operands):
            found = original(self, state, operands)
            if len(state.memory) < 1 << ADDRESS_BITS:
                return found
            return dataclasses.replace(found, addresses=found.addresses & np.uint64((1 << ADDRESS_BITS) - 1))
        return footprint
    return (Patch(f"{INDEXED}:IndexedMemoryFlow.memory_footprint", make),)


@mutant("move-pad-element-bits", "TMOV and GMOV move each padding Word through the element path: its element bits "
        "arrive, the carrier bits above them are cleared, instead of the whole Word the ASL copies")
def _move_pad_element_bits():
    def copied(destination, source):
        payload = source.payload.copy()
        if not source.packed:
            padding = np.ones(payload.size, dtype=bool)
            padding[source.valid_index.ravel()] = False
            payload[padding] &= np.uint64(source.dtype.mask)
        return destination.with_contents(payload, source.defined.copy())
    return (Patch("pto_avs.device_model.ops.movement:copied", replace_with(copied)),)
