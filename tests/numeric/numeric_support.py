"""What the fast-path tests share: running one operation's fast path and its exact kernel on
the same operands and naming the first element whose words or flags differ."""
import numpy as np
import pytest

from pto_avs.device_model.numeric import ieee_float

MODES = ("RNE", "RTZ", "RTP", "RTM", "RNA", "RTO", "RHB")
FAST = {"ADD": ieee_float.add, "SUB": ieee_float.sub, "MUL": ieee_float.mul, "DIV": ieee_float.div,
        "SQRT": ieee_float.sqrt, "FMA": ieee_float.fma}


def check_against_exact(op, dtype, mode, *operands) -> int:
    """``op`` through the public (fast) path and through ``ieee_float.EXACT``: every word and
    flag equal, else the test fails naming the first differing operands. Returns the count."""
    words, flags = FAST[op](*operands, dtype, mode)
    exact_words, exact_flags = ieee_float.EXACT[op](*operands, dtype, mode)
    wrong = np.flatnonzero((words != exact_words) | (flags != exact_flags))
    if wrong.size:
        i = wrong[0]
        shown = ", ".join(f"{int(o[i]):#x}" for o in operands)
        pytest.fail(f"{op} {dtype} {mode}: {wrong.size} of {words.size} differ; first ({shown}): "
                    f"fast {int(words[i]):#x}/{int(flags[i]):#04x}, exact {int(exact_words[i]):#x}/{int(exact_flags[i]):#04x}")
    return words.size
