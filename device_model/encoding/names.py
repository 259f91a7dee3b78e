"""Name tables of the block encodings: Tile operations, layout transforms,
rounding modes, comparison modes, B.FPATR fields, GPR and tile names, branch
types, B.CATR/B.HINT items.

Facts from spec/catalog/tile-operations.json (TEPL Mode/Function/engine of
every TEPL operation, the BSTART mnemonic of every CUBE and TLSU operation),
asl/block/model/state/control-state.asl (layout transform codes) and the
instruction contracts (GPR selector field domain, B.FPATR ReluMode codes,
B.HINT/B.CATR operands, BSTART branch types). tests/model/test_model_encoding.py
checks these tables against contract/spec_data.
"""
from __future__ import annotations

# TEPL operation -> (Mode, Function, engine). Selector = Mode << 5 | Function.
_TEPL_ROWS = (
    ("TADD", 0, 0, "VEC"), ("TSUB", 0, 1, "VEC"), ("TMUL", 0, 2, "VEC"), ("TDIV", 0, 3, "SFU"),
    ("TREM", 0, 4, "SFU"), ("TAND", 0, 6, "VEC"), ("TOR", 0, 7, "VEC"), ("TXOR", 0, 8, "VEC"),
    ("TSHL", 0, 9, "VEC"), ("TSHR", 0, 10, "VEC"), ("TMAX", 0, 11, "VEC"), ("TMIN", 0, 12, "VEC"),
    ("TCMP", 0, 13, "VEC"), ("TABS", 0, 15, "VEC"), ("TNOT", 0, 16, "VEC"), ("TNEG", 0, 17, "VEC"),
    ("TEXP", 0, 18, "SFU"), ("TLOG", 0, 19, "SFU"), ("TRECIP", 0, 20, "SFU"), ("TSQRT", 0, 21, "SFU"),
    ("TRSQRT", 0, 22, "SFU"), ("TRELU", 0, 23, "VEC"), ("TSEL", 0, 26, "VEC"), ("TCVT", 0, 27, "VEC"),
    ("TFMA", 0, 28, "VEC"),
    ("TADDS", 1, 0, "VEC"), ("TSUBS", 1, 1, "VEC"), ("TMULS", 1, 2, "VEC"), ("TDIVS", 1, 3, "SFU"),
    ("TREMS", 1, 4, "SFU"), ("TANDS", 1, 6, "VEC"), ("TORS", 1, 7, "VEC"), ("TXORS", 1, 8, "VEC"),
    ("TSHLS", 1, 9, "VEC"), ("TSHRS", 1, 10, "VEC"), ("TMAXS", 1, 11, "VEC"), ("TMINS", 1, 12, "VEC"),
    ("TCMPS", 1, 13, "VEC"), ("TSELS", 1, 26, "VEC"), ("TEXPANDS", 1, 27, "VEC"),
    ("TROWSUM", 2, 0, "SFU"), ("TROWMAX", 2, 1, "SFU"), ("TROWMIN", 2, 2, "SFU"),
    ("TROWPROD", 2, 3, "SFU"), ("TROWEXPAND", 2, 4, "SFU"), ("TROWEXPANDADD", 2, 5, "SFU"),
    ("TROWEXPANDSUB", 2, 6, "SFU"), ("TROWEXPANDMUL", 2, 7, "SFU"), ("TROWEXPANDDIV", 2, 8, "SFU"),
    ("TROWEXPANDMAX", 2, 9, "SFU"), ("TROWEXPANDMIN", 2, 10, "SFU"),
    ("TROWEXPANDEXPDIF", 2, 11, "SFU"), ("TROWARGMAX", 2, 12, "SFU"), ("TROWARGMIN", 2, 13, "SFU"),
    ("TCOLSUM", 2, 16, "SFU"), ("TCOLMAX", 2, 17, "SFU"), ("TCOLMIN", 2, 18, "SFU"),
    ("TCOLPROD", 2, 19, "SFU"), ("TCOLEXPAND", 2, 20, "SFU"), ("TCOLEXPANDADD", 2, 21, "SFU"),
    ("TCOLEXPANDSUB", 2, 22, "SFU"), ("TCOLEXPANDMUL", 2, 23, "SFU"), ("TCOLEXPANDDIV", 2, 24, "SFU"),
    ("TCOLEXPANDMAX", 2, 25, "SFU"), ("TCOLEXPANDMIN", 2, 26, "SFU"),
    ("TCOLEXPANDEXPDIF", 2, 27, "SFU"), ("TCOLARGMAX", 2, 28, "SFU"), ("TCOLARGMIN", 2, 29, "SFU"),
    ("TCONCAT", 3, 0, "SFU"), ("TEXTRACT", 3, 2, "SFU"), ("TINSERT", 3, 3, "SFU"),
    ("TIMG2COL", 3, 4, "SFU"), ("TFILLPAD", 3, 5, "SFU"), ("TCI", 3, 6, "SFU"), ("TTRI", 3, 7, "SFU"),
    ("THISTOGRAM", 3, 8, "SFU"), ("TQUANT", 3, 10, "SFU"), ("TDEQUANT", 3, 11, "SFU"),
    ("TSORT", 3, 12, "SFU"), ("TMRGSORT", 3, 13, "SFU"), ("TTRANS", 3, 14, "SFU"),
    ("TGATHER", 3, 15, "SFU"), ("TSCATTER", 3, 16, "SFU"), ("TPARTADD", 3, 17, "SFU"),
    ("TPARTMUL", 3, 18, "SFU"), ("TPARTMAX", 3, 19, "SFU"), ("TPARTMIN", 3, 20, "SFU"),
)
TEPL_OPS = {name: (mode, function, engine) for name, mode, function, engine in _TEPL_ROWS}
TEPL_BY_SELECTOR = {(mode << 5) | function: name for name, mode, function, _ in _TEPL_ROWS}

# B.DATR Layout code -> transform name (codes 21..26 are TLOAD/TSTORE CUBE transports).
LAYOUT_TRANSFORMS = {
    0: "NORM", 1: "ND2DN", 3: "ND2ZN", 4: "ND2NZ", 6: "DN2ND", 8: "DN2ZN", 9: "DN2NZ",
    17: "ZN2ND", 18: "ZN2DN", 20: "ZN2NZ", 21: "ND2M32", 22: "ND2M16", 23: "ND2N8",
    24: "M322ND", 25: "M162ND", 26: "N82ND", 27: "NZ2ND", 28: "NZ2DN", 30: "NZ2ZN",
}
LAYOUT_CODES = {name: code for code, name in LAYOUT_TRANSFORMS.items()}
_LAYOUT_OF_LETTERS = {"ND": "RowMajor", "DN": "ColumnMajor", "ZN": "ZN", "NZ": "NZ"}


def transform_layouts(code: int):
    """(source layout, destination layout) of a TCVT transform code, or None for
    the CUBE transport codes 21..26 (no TCVT meaning) and unassigned codes."""
    name = LAYOUT_TRANSFORMS.get(code)
    if name is None or 21 <= code <= 26:
        return None
    if name == "NORM":
        return ("RowMajor", "RowMajor")
    return (_LAYOUT_OF_LETTERS[name[:2]], _LAYOUT_OF_LETTERS[name[3:]])


# B.DATR RMode code -> name; RDN and RUP are aliases of RTM and RTP.
ROUNDING_NAMES = ("NONE", "RNE", "RTZ", "RTM", "RTP", "RNA", "RTO", "RHB")
ROUNDING_CODES = {name: code for code, name in enumerate(ROUNDING_NAMES)}
ROUNDING_CODES.update({"RDN": 3, "RUP": 4})

CMODE_NAMES = ("EQ", "NE", "LT", "GT", "LE", "GE")  # codes 0..5; 6 and 7 reserved

FPATR_FIELDS = ("PreQuantMode", "ReluMode", "GroupNCode", "RowMaxEn", "GroupMaxEn",
                "RowMaxInit", "MaxAbsEn", "TransA", "TransB")

# B.FPATR GroupNCode -> group width N (0: GroupMax disabled).
GROUP_N = (0, 8, 16, 32, 48, 64, 80, 96, 112, 128)

# BSTART form key -> Tile operation, for the 22 CUBE and TLSU operations (the 87
# TEPL operations share BSTART.TEPL and are told apart by TEPL_OPS).
BSTART_OPERATIONS = {
    "BSTART.TLOAD": "TLOAD", "BSTART.TSTORE": "TSTORE", "BSTART.TMOV": "TMOV",
    "BSTART.TPREFETCH": "TPREFETCH", "BSTART.MGATHER": "MGATHER", "BSTART.MSCATTER": "MSCATTER",
    "BSTART.MGATHER.MASK": "MGATHER_MASK", "BSTART.MSCATTER.MASK": "MSCATTER_MASK",
    "BSTART.MGATHER.CAS": "MGATHER_CAS", "BSTART.GMOV": "GMOV",
    "BSTART.TMATMUL": "TMATMUL", "BSTART.TMATMUL.BIAS": "TMATMUL_BIAS", "BSTART.TMATMUL.ACC": "TMATMUL_ACC",
    "BSTART.TMATMULMX": "TMATMUL_MX", "BSTART.TMATMULMX.BIAS": "TMATMUL_MX_BIAS",
    "BSTART.TMATMULMX.ACC": "TMATMUL_MX_ACC", "BSTART.TGEMV": "TGEMV", "BSTART.TGEMV.BIAS": "TGEMV_BIAS",
    "BSTART.TGEMV.ACC": "TGEMV_ACC", "BSTART.TGEMVMX": "TGEMV_MX", "BSTART.TGEMVMX.BIAS": "TGEMV_MX_BIAS",
    "BSTART.TGEMVMX.ACC": "TGEMV_MX_ACC",
}

# BSTART encoding variants (a catalog form's encoding_variants, with no catalog index of their own) ->
# the Tile operation whose block they open (BundleOperationDecodeCode maps TLSU Function 14 to TSTORE).
BSTART_VARIANTS = {"BSTART.TSTORE.SPART": "TSTORE",  # TLSU Functions 9..12 decode to TMOV's Shared forms:
                   "BSTART.TMOV.L2S.INSERT": "TMOV", "BSTART.TMOV.L2S.PUBLISH": "TMOV",
                   "BSTART.TMOV.S2L.BROADCAST": "TMOV", "BSTART.TMOV.S2L.EXTRACT": "TMOV"}

# GPR selector 0..23 -> assembly name (field domain PTO-FIELD-BLOCK-GPR-SELECTOR);
# selectors 24..31 are reserved and have no name.
# SPEC-CHOICE 18: that field domain names selector 1 sp and 2 a0, while the executable
# frame model takes GPR 2 as the stack pointer (PTO_FRAME_SP_INDEX; FENTRY's ring
# R2..R23 "containing sp"). The names follow the field domain, the spec's only name
# table; FENTRY/FEXIT/FRET keep their fixed "sp!" token. Only spelling depends on it.
GPR_NAMES = ("zero", "sp", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "ra",
             "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "x0", "x1", "x2", "x3")

# Branch type codes: bits 14:12 of the BSTART.FP/STD forms and the BrType field of
# C.BSTART.FP/STD (which assigns only FALL, IND and RET).
BRANCH_TYPE_NAMES = {1: "FALL", 2: "DIRECT", 3: "COND", 5: "IND", 7: "RET"}

# B.FPATR ReluMode: 0 None, 1 ReLU, 2 scalar LReLU/PReLU, 3 vector PReLU.
RELU_NAMES = ("None", "ReLU", "LReLU", "PReLU")

# B.HINT temp codes and B.CATR flags (with the B.CATR field each sets).
HINT_TEMPERATURES = ("none", "cool", "warm", "hot")
CATR_FLAGS = {"trap": ("trap",), "atomic": ("atom",), "aq": ("aq",), "rl": ("rl",),
              "aqrl": ("aq", "rl"), "far": ("far",), "dr": ("DR",)}

# B.FPATR PreQuantMode names. The spec has no name table for the 27 codes: the
# B.FPATR contract writes "None" for code 0 and, in one example, "S8Vector". That
# name is read as code 2, the lowest code with an S8 result and a vector
# parameter (code 23 is the FP32-accumulator one). Every code can be written as
# its number, and the disassembler writes numbers for every code but 0.
PREQUANT_NAMES = {"None": 0, "S8Vector": 2}
