"""ml_dtypes as a device: ``--device ml_dtypes``.

A software device whose numerics are a third party's: TCVT's floating
conversions are computed by ml_dtypes (``astype``, round to nearest even) for
every pair of floating formats ml_dtypes has, while the tile machine around
them (legality, rename, layouts, padding) is the golden model's. It implements
the hw-ieee profile and observes payload but not flags (ml_dtypes raises none).

Where ml_dtypes and the hardware profile differ, the run shows a real
divergence; nothing here papers over it:
- E8M0 destinations: ml_dtypes rounds linearly (midpoint 1.5*2^f), the spec in
  the exponent domain (midpoint sqrt(2)*2^f); ml_dtypes maps zero and
  negatives to 0xFF without the spec's Sat rules.
- NaN: ml_dtypes keeps the NaN's sign and payload where the profile produces
  the canonical NaN, and turns NaN into -0 in formats without NaN where the
  profile gives +0.
- Overflow into formats without infinity: ml_dtypes saturates E3M2/E2M3/E2M1
  (as the profile does) but turns E4M3 overflow into NaN with the source sign.

TADD, TSUB, TMUL, TDIV and TSQRT on FP32, FP16 and BF16 (RNE, the only mode they
take) are numpy's: binary32 arithmetic natively, FP16 and BF16 computed in binary32
and rounded once more to the type. That second rounding never changes a result
(README, "Peers"): for +, -, *, / and sqrt, an intermediate format of p bits gives
the correctly rounded p'-bit result when p >= 2p' + 2 (24 >= 2*11 + 2 for FP16,
24 >= 2*8 + 2 for BF16), the binary32 range holds every FP16 result and every
BF16 result short of BF16's own overflow, and in the subnormal ranges binary32
keeps at least 16 more bits than the target. Divergences from the profile to
expect: a NaN result keeps numpy's sign and payload instead of the canonical NaN.

Cases that need another rounding mode, Sat=1, a pair outside ml_dtypes, a type
outside FP32/FP16/BF16 for the arithmetic, or another operation are "not supported".
"""
from __future__ import annotations

from typing import Optional
from unittest import mock

import ml_dtypes
import numpy as np

from ..contract.case import ASPECTS, Case, Observation
from .base import Capabilities
from .golden import GoldenDevice

ML_TYPES = {
    "FP64": np.dtype(np.float64),
    "FP32": np.dtype(np.float32),
    "FP16": np.dtype(np.float16),
    "BF16": np.dtype(ml_dtypes.bfloat16),
    "E4M3": np.dtype(ml_dtypes.float8_e4m3fn),
    "E5M2": np.dtype(ml_dtypes.float8_e5m2),
    "E3M2": np.dtype(ml_dtypes.float6_e3m2fn),
    "E2M3": np.dtype(ml_dtypes.float6_e2m3fn),
    "E2M1X2": np.dtype(ml_dtypes.float4_e2m1fn),
    "E8M0": np.dtype(ml_dtypes.float8_e8m0fnu),
}
_CARRIERS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
NUMPY_OPERATIONS = {"TADD": np.add, "TSUB": np.subtract, "TMUL": np.multiply, "TDIV": np.divide, "TSQRT": np.sqrt}
ARITHMETIC_TYPES = ("FP32", "FP16", "BF16")


class _NotByMlDtypes(Exception):
    """A conversion request this device cannot compute."""


def ml_convert(bits, src: str, dst: str, rounding: str = "RNE", saturate: bool = False, **_ignored):
    """Convert raw encodings with ml_dtypes; same signature and result shape as the model's ``convert``."""
    if src not in ML_TYPES or dst not in ML_TYPES:
        raise _NotByMlDtypes(f"ml_dtypes has no {src if src not in ML_TYPES else dst}")
    if rounding not in ("RNE", "NONE"):  # NONE: TCVT's default, RNE for a floating destination
        raise _NotByMlDtypes(f"ml_dtypes rounds only to nearest even, not {rounding}")
    if saturate:
        raise _NotByMlDtypes("ml_dtypes has no saturating conversion (Sat=1)")
    source, target = ML_TYPES[src], ML_TYPES[dst]
    raw = np.asarray(bits, dtype=np.uint64).astype(_CARRIERS[source.itemsize])
    try:
        with np.errstate(all="ignore"):
            result = raw.view(source).astype(target)
    except TypeError as exc:  # ml_dtypes has no cast for some pairs (e.g. E8M0 -> E4M3)
        raise _NotByMlDtypes(f"ml_dtypes cannot cast {src} to {dst} ({exc})") from None
    words = result.view(_CARRIERS[target.itemsize]).astype(np.uint64)
    return words, np.zeros(words.shape, dtype=np.uint8)


def numpy_element(operation: str):
    """The element function (``ops.elementwise`` signature) of ``operation`` computed by numpy
    in binary32 and rounded to the tile's type."""
    function = NUMPY_OPERATIONS[operation]

    def element(dtype, profile, *operands):
        if dtype.name not in ARITHMETIC_TYPES:
            raise _NotByMlDtypes(f"the numpy peer computes {operation} on {', '.join(ARITHMETIC_TYPES)}, "
                                 f"not {dtype.name}")
        target = ML_TYPES[dtype.name]
        carrier = _CARRIERS[target.itemsize]
        values = [np.asarray(w, dtype=np.uint64).astype(carrier).view(target).astype(np.float32) for w in operands]
        with np.errstate(all="ignore"):
            result = function(*values).astype(target)
        words = result.view(carrier).astype(np.uint64)
        return words, np.zeros(words.shape, dtype=np.uint8)
    return element


class MlDtypesDevice(GoldenDevice):
    name = "ml_dtypes"

    def __init__(self):
        super().__init__("hw-ieee")
        self.capabilities = Capabilities(
            profile="hw-ieee", operations=frozenset({"TCVT", *NUMPY_OPERATIONS}), dtypes=frozenset(ML_TYPES),
            aspects=frozenset(ASPECTS) - {"flags"}, direct_calls=True)
        self._runs: dict[str, Observation] = {}
        self._refusal: Optional[str] = None

    def _convert(self, *args, **kwargs):
        try:
            return ml_convert(*args, **kwargs)
        except _NotByMlDtypes as exc:
            self._refusal = str(exc)
            raise

    def _element(self, operation: str):
        compute = numpy_element(operation)

        def element(*args):
            try:
                return compute(*args)
            except _NotByMlDtypes as exc:
                self._refusal = str(exc)
                raise
        return element

    def _operations(self) -> dict:
        """The registry with the arithmetic entries' element functions replaced by numpy's."""
        import copy

        from ..device_model.ops import registry

        entries = dict(registry.OPERATIONS)
        for name in NUMPY_OPERATIONS:
            entries[name] = copy.copy(entries[name])
            entries[name].element = self._element(name)
        return entries

    def _run(self, case: Case) -> Observation:
        from ..device_model.ops import registry, tcvt  # the model's TCVT calls its conversion through this name

        self._refusal = None
        with mock.patch.object(tcvt, "convert", self._convert), \
                mock.patch.object(registry, "OPERATIONS", self._operations()):
            observation = super().execute(case)
        if self._refusal is not None:
            return Observation.device_error(f"not supported: {self._refusal}")
        observation.flags = None  # ml_dtypes reports no exceptions
        return observation

    def supports(self, case: Case) -> Optional[str]:
        reason = super().supports(case)
        if reason is not None:
            return reason
        # Which conversions a case needs is only known by running it: run once, keep the result.
        observation = self._runs.setdefault(case.id, self._run(case))
        if observation.error and observation.error.startswith("not supported: "):
            return observation.error[len("not supported: "):]
        return None

    def execute(self, case: Case) -> Observation:
        return self._runs.pop(case.id, None) or self._run(case)


def open_device(arg: Optional[str]) -> MlDtypesDevice:
    if arg not in (None, "hw-ieee"):
        raise ValueError("the ml_dtypes device implements only the hw-ieee profile")
    return MlDtypesDevice()
