"""Encoding of exact values ``(-1)**negative * significand * 2**exponent`` (hw-ieee rules)."""
from __future__ import annotations

import numpy as np

from ..dtypes import dtype as _dtype
from .e8m0 import e8m0_from_decoded
from .encode import round_to_float
from .formats import Decoded, ValueClass
from .integers import round_to_integer
from .rounding import rounding_mode
from .words import U64


def encode(negative, significand, exponent, dtype, rounding="RNE", saturate=False):
    """Round exact values once into ``dtype``. Returns ``(words uint64, flags uint8)``.

    ``significand`` is a non-negative integer below 2**64 (0 encodes a signed
    zero). Floating destinations follow the hardware profile (see
    ``device_model.numeric.encode``); E8M0 follows the exponent-domain
    algorithm; integer destinations round then range-check (NV out of range).
    """
    t = _dtype(dtype)
    mode = rounding_mode(rounding)
    negative = np.atleast_1d(np.asarray(negative, dtype=bool))
    sig = np.atleast_1d(np.asarray(significand, dtype=U64))
    exp = np.atleast_1d(np.asarray(exponent, dtype=np.int64))
    negative, sig, exp = np.broadcast_arrays(negative, sig, exp)
    shape = negative.shape
    negative, sig, exp = negative.reshape(-1), sig.reshape(-1), exp.reshape(-1)
    if t.is_integer:
        words, flags = round_to_integer(negative, sig, exp, t, mode, bool(saturate))
    elif t.name == "E8M0":
        cls = np.where(sig == 0, ValueClass.POSITIVE_ZERO,
                       np.where(negative, ValueClass.NEGATIVE_NORMAL, ValueClass.POSITIVE_NORMAL))
        words, flags = e8m0_from_decoded(Decoded(cls.astype(np.uint8), negative, sig, exp), mode, bool(saturate))
    else:
        words, flags = round_to_float(negative, sig, exp, t, mode, bool(saturate))
    return words.reshape(shape), flags.reshape(shape)
