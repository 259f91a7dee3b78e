"""Independent reference for TCVT layout placement and padding words; writes the vectors.

Written from the PTO ISA 0.58.3 specification, sharing no code with ``device_model/``:
- storage indices: ``asl/tile/model/definedness/elements.asl`` (``TileLinearIndex``;
  digest section 3.3): RowMajor ``r*cols + c``, ColumnMajor ``c*rows + r``, and the
  16-row x 32-byte fractals ZN (blocks row-major, column-major inside) and NZ (blocks
  column-major, row-major inside), with ``256 / bits`` elements per fractal row;
- pad words: ``TilePadValueForDataType`` in the same file (digest section 3.5), including
  the "otherwise" defaults (all-ones Max and 0x8000000000000000 Min for HiF8, E3M2,
  E2M3, E8M0 and the X2 types) and the unsign-extended S8/S16/S32 Min values;
- which pad applies: ``CurrentBundlePadValue`` (B.DATR PadValue 00 Zero, 01 Max, 10 Min,
  11 Null; Null leaves the padding undefined), TQUANT's fixed ``TilePad_Null``.

Pad expectations state both the element bits (``padding.value``) and the whole Word every
padded coordinate reads back (``padding.word``: the pad Word as stored, only its element
bits in a packed carrier), so a device that sign-extends a signed Min pad or leaves other
bits above the element width is caught (``contract/compare.py``, aspect ``carrier``).

A family of the generator engine (``FAMILY``; ``python -m pto_avs.vectors.reference
generate|check``); its files are rendered in PyYAML's style (``yaml_text.pyyaml_text``),
as they were first written. The command their headers name still works:

        python vectors/reference/legality_layout.py write   # (re)write the vector files
        python vectors/reference/legality_layout.py check   # exit 1 if a file is stale
"""
from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__" and not __package__:  # run as the script the file headers name
    import runpy

    runpy.run_module("pto_avs.vectors.reference.legality_layout", run_name="__main__")
    sys.exit(0)

from .engine import Family, pad_word  # noqa: E402  (after the script entry above)
from .numeric import FORMATS  # noqa: E402
from .yaml_text import FlowMap, Hex, pyyaml_text  # noqa: E402

VECTORS = Path(__file__).resolve().parent.parent
GENERATOR = "vectors/reference/legality_layout.py write"
BOTH_PROFILES = ["pto-v0", "hw-ieee"]

# ---------------------------------------------------------------------------
# Data types: name -> (5-bit code, element (lane) bits, class), read from the
# reference's one DataType table (numeric.FORMATS; asl/arch/data-types/tile-data-types.asl).

DTYPES = {name: (f.code, f.width, "float" if f.is_float else f.kind) for name, f in FORMATS.items()}

MODEL_TILE_ELEMENTS = 32768  # PTO_MODEL_TILE_ELEMENTS: above this a tile uses packed carriers


def bits_of(dtype: str) -> int:
    return DTYPES[dtype][1]


def element_mask(dtype: str) -> int:
    return (1 << bits_of(dtype)) - 1


# ---------------------------------------------------------------------------
# Layouts

# B.DATR Layout name -> (source layout, destination layout); control-state.asl
# TileDataLayoutSourceLayout / TileDataLayoutDestinationLayout.
TRANSFORMS = {
    "NORM": ("RowMajor", "RowMajor"), "ND2DN": ("RowMajor", "ColumnMajor"),
    "ND2ZN": ("RowMajor", "ZN"), "ND2NZ": ("RowMajor", "NZ"),
    "DN2ND": ("ColumnMajor", "RowMajor"), "DN2ZN": ("ColumnMajor", "ZN"),
    "DN2NZ": ("ColumnMajor", "NZ"), "ZN2ND": ("ZN", "RowMajor"),
    "ZN2DN": ("ZN", "ColumnMajor"), "ZN2NZ": ("ZN", "NZ"),
    "NZ2ND": ("NZ", "RowMajor"), "NZ2DN": ("NZ", "ColumnMajor"), "NZ2ZN": ("NZ", "ZN"),
}


def fractal_inner(bits: int) -> int:
    """Elements in one 32-byte fractal row (TileFractalInnerElements)."""
    return 256 // bits


def fractal_shape_legal(layout: str, rows: int, cols: int, bits: int) -> bool:
    """TileLayoutShapeLegal: ZN/NZ need whole 16-row x 32-byte fractals."""
    if layout in ("RowMajor", "ColumnMajor"):
        return True
    return rows % 16 == 0 and cols % fractal_inner(bits) == 0


def storage_index(layout: str, rows: int, cols: int, bits: int, r: int, c: int) -> int:
    """Storage (element) index of logical (r, c) in a rows x cols tile."""
    assert 0 <= r < rows and 0 <= c < cols
    if layout == "RowMajor":
        return r * cols + c
    if layout == "ColumnMajor":
        return c * rows + r
    inner = fractal_inner(bits)
    assert fractal_shape_legal(layout, rows, cols, bits)
    block_rows, block_cols = rows // 16, cols // inner
    br, bc, ir, ic = r // 16, c // inner, r % 16, c % inner
    block = 16 * inner
    if layout == "ZN":
        return (br * block_cols + bc) * block + ic * 16 + ir
    if layout == "NZ":
        return (bc * block_rows + br) * block + ir * inner + ic
    raise ValueError(f"no generic index for layout {layout}")


# ---------------------------------------------------------------------------
# Padding

PAD_CODES = {"Zero": 0b00, "Max": 0b01, "Min": 0b10, "Null": 0b11}

def pad_carrier_word(pad: str, dtype: str, packed: bool) -> int:
    """The Word a padded coordinate reads back: the pad Word as stored (never
    sign-extended: S8 Min is 0x80), or only its element bits in a packed carrier."""
    word = pad_word(pad, dtype)
    return word & element_mask(dtype) if packed else word


def pad_expectation(pad: str, dtype: str, packed: bool = None) -> dict:
    """``padding`` expectation: definedness, the element bits a reader sees and, when
    ``packed`` is given, the whole carrier Word (``word``)."""
    if pad == "Null":
        return {"defined": False}
    out = {"defined": True, "value": Hex(pad_word(pad, dtype) & element_mask(dtype))}
    if packed is not None:
        out["word"] = Hex(pad_carrier_word(pad, dtype, packed))
    return out


# ---------------------------------------------------------------------------
# Sample element encodings: finite, nonzero, valid, exactly representable, so a
# same-type TCVT keeps them bit for bit under pto-v0 (raw passthrough or integer
# normalization) and under hw-ieee (an exact conversion raises no flag).
# Integer samples are Words as a producer leaves them (signed ones sign-extended).

SAMPLES = {
    "FP64": [0x3FF0000000000000, 0x4000000000000000, 0xBFF0000000000000,  # 1, 2, -1
             0x3FE0000000000000, 0x3FF8000000000000, 0x4008000000000000],  # 0.5, 1.5, 3
    "FP32": [0x3F800000, 0x40000000, 0xBF800000, 0x3F000000, 0x3FC00000, 0x40400000],
    "TF32": [0x3F800000, 0x40000000, 0xBF800000, 0x3F000000, 0x3FC00000, 0x40400000],
    "HF32": [0x3F800000, 0x40000000, 0xBF800000, 0x3F000000, 0x3FC00000, 0x40400000],
    "FP16": [0x3C00, 0x4000, 0xBC00, 0x3800, 0x3E00, 0x4200],
    "BF16": [0x3F80, 0x4000, 0xBF80, 0x3F00, 0x3FC0, 0x4040],
    # HiF8: 1 (D0 M0), 2 (D1 E+1), -1, 0.5 (D1 E-1), 1.5 (D0 M4), 4 (D2 E+2)
    "HiF8": [0x08, 0x10, 0x88, 0x18, 0x0C, 0x20],
    "E4M3": [0x38, 0x40, 0xB8, 0x30, 0x3C, 0x44],
    "E5M2": [0x3C, 0x40, 0xBC, 0x38, 0x3E, 0x42],
    "E3M2": [0x0C, 0x10, 0x2C, 0x08, 0x0E, 0x12],  # sign is bit 5
    "E2M3": [0x08, 0x10, 0x28, 0x0C, 0x14, 0x18],  # 1, 2, -1, 1.5, 3, 4
    "E2M1X2": [0x2, 0x4, 0xA, 0x3, 0x5, 0x6],  # 1, 2, -1, 1.5, 3, 4
    "E1M2X2": [0x4, 0x5, 0xC, 0x6, 0x7, 0xD],  # 1, 1.25, -1, 1.5, 1.75, -1.25
    "HiF4X2": [0x4, 0x5, 0xC, 0x6, 0x7, 0xD],  # same lane values as E1M2X2
    "S64": [1, 0xFFFFFFFFFFFFFFFE, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0x123456789A, 5],
    "S32": [1, 0xFFFFFFFFFFFFFFFE, 0x7FFFFFFF, 0xFFFFFFFF80000000, 0x12345678, 5],
    "S16": [1, 0xFFFFFFFFFFFFFFFE, 0x7FFF, 0xFFFFFFFFFFFF8000, 0x1234, 5],
    "S8": [1, 0xFFFFFFFFFFFFFFFE, 0x7F, 0xFFFFFFFFFFFFFF80, 0x12, 5],
    "S4X2": [0x1, 0xE, 0x7, 0x8, 0x2, 0x5],  # lanes: 1, -2, 7, -8, 2, 5
    "U64": [1, 0xFFFFFFFFFFFFFFFE, 0x8000000000000000, 0x123456789A, 200, 5],
    "U32": [1, 0xFFFFFFFE, 0x80000000, 0x12345678, 200, 5],
    "U16": [1, 0xFFFE, 0x8000, 0x1234, 200, 5],
    "U8": [1, 0xFE, 0x80, 0x12, 200, 5],
    "U4X2": [0x1, 0xE, 0x8, 0x7, 0x2, 0x5],
}

# E8M0 is reachable only from FP16, BF16 or FP32 (HardwareTCVTTypePairSupported).
# Exact powers of two convert without a flag in both profiles (ReferenceFloatToE8M0):
# 2^e -> e + 127.
E8M0_FROM_FP32 = [(0x3F800000, 127), (0x40000000, 128), (0x3F000000, 126),
                  (0x40800000, 129), (0x3E800000, 125), (0x41000000, 130)]


def carrier_word(dtype: str, word: int, packed: bool) -> int:
    """The Word read back for a same-type TCVT result element.

    Non-packed tiles keep the whole Word the producer wrote: signed integer results
    are sign-extended (NormalizeTileInteger; hw-ieee decision 13), everything else is
    the zero-extended encoding.  Packed carriers (4-bit types, tiles over 32768
    elements) store only the element bits and read them back zero-extended.
    """
    bits = bits_of(dtype)
    low = word & element_mask(dtype)
    if packed or bits == 64:
        return low
    if DTYPES[dtype][2] == "signed" and low >> (bits - 1):
        return low | (((1 << 64) - 1) ^ element_mask(dtype))
    return low


def grid(values: list, rows: int, cols: int, number=None) -> list:
    """Row-major values as a rows x cols grid (hex unless ``number`` says otherwise)."""
    number = number or Hex
    return [[number(values[r * cols + c]) for c in range(cols)] for r in range(rows)]


# ---------------------------------------------------------------------------
# Rendering


def render(document: dict, header: str) -> str:
    return header + pyyaml_text(document)


def header_comment(file_id: str) -> str:
    return (f"# {file_id}: written by `python {GENERATOR}`; do not edit by hand.\n"
            "# Expected values come from the spec formulas in vectors/reference/legality_layout.py.\n")


# ---------------------------------------------------------------------------
# TCVT layout vectors

LAYOUT_ROWS = 32  # two fractal block rows


def _layout_value(dtype: str, r: int, c: int) -> int:
    """A distinct-looking element value for (r, c) (collisions only modulo the width)."""
    bits = bits_of(dtype)
    if bits == 4:
        return (r * 5 + c * 3 + c // 16 + 1) & 0xF
    if bits == 8:
        return (r * 37 + c * 11 + 1) % 251 + 1
    return r * 1000 + c + 1  # unique: c < 1000


def _convert_integer(word: int, src: str, dst: str) -> int:
    """Integer TCVT with Sat=0: interpret at the source width, wrap into the destination."""
    value = word & element_mask(src)
    if DTYPES[src][2] == "signed" and value >> (bits_of(src) - 1):
        value -= 1 << bits_of(src)
    return value & element_mask(dst)


def _sample_coordinates(valid_rows: int, valid_cols: int, inners: set) -> list:
    """Whole rows 0, 1, 15, 16 and the last valid row; whole columns 0, 1, either side of
    each fractal boundary and the last valid column (where valid)."""
    rows = sorted({0, 1, 15, 16, valid_rows - 1} & set(range(valid_rows)))
    cols = sorted(({0, 1, valid_cols - 1} | {i - 1 for i in inners} | inners) & set(range(valid_cols)))
    picked = {(r, c) for r in rows for c in range(valid_cols)}
    picked |= {(r, c) for r in range(valid_rows) for c in cols}
    return sorted(picked)


def layout_case(transform: str, src: str, dst: str, cols: int, valid: tuple) -> dict:
    src_layout, dst_layout = TRANSFORMS[transform]
    rows = LAYOUT_ROWS
    sb, db = bits_of(src), bits_of(dst)
    for layout, bits in ((src_layout, sb), (dst_layout, db)):
        assert fractal_shape_legal(layout, rows, cols, bits), (transform, src, dst)
    src_cap, dst_cap = rows * cols * sb // 8, rows * cols * db // 8
    size_code = {128: 1, 256: 2, 512: 3, 1024: 4, 2048: 5, 4096: 6, 8192: 7}[dst_cap]
    vr, vc = valid
    src_values = [_layout_value(src, r, c) for r in range(vr) for c in range(vc)]
    dst_values = [_convert_integer(v, src, dst) for v in src_values]
    inners = {fractal_inner(b) for layout, b in ((src_layout, sb), (dst_layout, db))
              if layout in ("ZN", "NZ")}
    fractal = bool(inners)
    inners = inners or {fractal_inner(db)}
    sample = _sample_coordinates(vr, vc, inners)
    padding_points = [(vr, 0), (0, vc), (rows - 1, cols - 1)]

    def storage(layout, bits, values):
        out = {}
        for r, c in sample:
            out[storage_index(layout, rows, cols, bits, r, c)] = values[r * vc + c]
        for r, c in padding_points:
            out[storage_index(layout, rows, cols, bits, r, c)] = 0
        return dict(sorted(out.items()))

    program = "\n".join([
        f"BSTART.VEC TCVT, {src}",
        f"B.DATR {dst}, {transform}, Zero",
        f"B.DIM LB0={vc}",
        f"B.DIM LB1={vr}",
        f"B.DIM LB2={cols}",
        f"B.IOT T1, mask=1111, <last>, ->T<{size_code}>",
        "BSTOP",
    ]) + "\n"
    name = f"{transform.lower()}-{src.lower()}-to-{dst.lower()}"
    return {
        "name": name,
        "description": (f"{transform}: {src} {src_layout} {rows}x{cols} -> {dst} {dst_layout}, valid "
                        f"{vr}x{vc}" + (
                            f", crossing the 16-row and the "
                            f"{'/'.join(str(i) for i in sorted(inners))}-column fractal block "
                            "boundaries" if fractal else "") +
                        ". Storage samples (rows 0, 1, 15, 16 and the last valid row, the columns 0, "
                        "1, either side of each fractal boundary and the last valid column, where "
                        "valid; three padding points) placed by the spec index formula of the "
                        "destination layout."),
        "profiles": BOTH_PROFILES,
        "source": "reference-generator",
        "reference": f"{GENERATOR} (layout_case, storage_index: digest 3.3, TileLinearIndex in "
                     "asl/tile/model/definedness/elements.asl)",
        "state": {"tiles": [{
            "index": 1, "dtype": src, "capacity": src_cap, "cols": cols, "valid": [vr, vc],
            "layout": src_layout, "data": grid(src_values, vr, vc, int)}]},
        "program": program,
        "expect": {
            "fault": None, "flags": 0, "allocated": [0, 1], "unchanged": [1],
            "tiles": [
                {"index": 0, "dtype": dst, "layout": dst_layout, "location": "Any", "rows": rows,
                 "cols": cols, "valid": [vr, vc], "capacity": dst_cap, "mask": "1111",
                 "data": grid(dst_values, vr, vc, int), "padding": FlowMap(defined=True, value=0),
                 "storage": storage(dst_layout, db, dst_values)},
            ],
        },
    }


def layout_vector() -> dict:
    cases = []
    for dtype in ("U8", "U16", "U32", "U4X2"):
        cols = 2 * fractal_inner(bits_of(dtype))  # two fractal block columns
        for transform, (src_layout, dst_layout) in TRANSFORMS.items():
            fractal = "ZN" in (src_layout, dst_layout) or "NZ" in (src_layout, dst_layout)
            # a fractal side needs a valid region crossing a block row and a block column
            valid = (17, fractal_inner(bits_of(dtype)) + 1) if fractal else (3, 5)
            cases.append(layout_case(transform, dtype, dtype, cols, valid))
    # Different source and destination widths: the two sides use different fractal
    # widths (the columns are a multiple of both).
    for transform, src, dst, cols in (("ND2ZN", "U8", "U16", 64), ("NZ2DN", "U16", "U8", 64),
                                      ("ZN2NZ", "U4X2", "U8", 128), ("DN2NZ", "S8", "S32", 64),
                                      ("NZ2ZN", "U64", "U64", 16), ("ZN2ND", "S16", "U4X2", 128)):
        cases.append(layout_case(transform, src, dst, cols, (17, cols // 2 + 1)))
    return {
        "format": "pto-avs-vector/1",
        "id": "PTO-AVS-X-TCVT-LAYOUT-001",
        "operation": "TCVT",
        "kind": "execution",
        "exercises": ["ADR-0083", "ADR-0033", "ADR-0059", "PTO-INST-TILE-TCVT"],
        "provenance": (
            "Each of the 13 TCVT layout transforms (B.DATR Layout; source and destination layouts "
            "from TileDataLayoutSourceLayout/DestinationLayout in asl/block/model/state/"
            "control-state.asl) with U8, U16, U32 and U4X2 tiles of 32 rows and two fractal block "
            "columns, plus six cases whose source and destination widths differ. Integer values "
            "keep their bits in both profiles (TileConvertIntegerValue, Sat=0; hw-ieee decision 8). "
            "Destination descriptor: the transform's destination layout, location Any, rows and "
            "columns equal to the source (TileOperandsLegal_TCVT). Destination storage indices "
            "come from the spec's index formulas (TileLinearIndex, digest 3.3) as "
            "computed by vectors/reference/legality_layout.py; B.DATR PadValue Zero defines the "
            "padding with 0."),
        "cases": cases,
    }


# ---------------------------------------------------------------------------
# Pad vectors

def _pad_source(dtype: str) -> tuple:
    """(source type, source Words, expected destination element bits) for 2x3 values."""
    if dtype == "E8M0":
        return "FP32", [w for w, _ in E8M0_FROM_FP32], [e for _, e in E8M0_FROM_FP32]
    words = SAMPLES[dtype]
    return dtype, words, [w & element_mask(dtype) for w in words]


def _capacity_for(dtype: str, rows: int, cols: int) -> int:
    return max(rows * cols * bits_of(dtype) // 8, 0)


SIZE_CODES = {128: 1, 256: 2, 512: 3, 1024: 4, 2048: 5, 4096: 6, 8192: 7, 16384: 8,
              32768: 9, 65536: 10}


def pad_case(dtype: str, pad: str, rows: int, cols: int, mask: str = "1111") -> dict:
    src, src_words, dst_bits = _pad_source(dtype)
    dst_cap = _capacity_for(dtype, rows, cols)
    src_cap = _capacity_for(src, rows, cols)
    packed = bits_of(dtype) == 4 or rows * cols > MODEL_TILE_ELEMENTS
    src_packed = bits_of(src) == 4 or rows * cols > MODEL_TILE_ELEMENTS
    vr, vc = 2, 3
    word = pad_word(pad, dtype)
    words = [carrier_word(dtype, w, packed) for w in dst_bits] if dtype == "E8M0" else \
        [carrier_word(dtype, w, packed) for w in src_words]
    carrier = "packed carrier (element bits zero-extended)" if packed else "one Word per element"
    pad_text = {"Null": "Null leaves the padding undefined",
                "Zero": "Zero defines the padding with 0"}.get(
        pad, f"{pad} stores the Word 0x{word:X}; a reader sees the element bits "
             f"0x{word & element_mask(dtype):X}")
    source_text = "FP32 exact powers of two (E8M0 accepts only FP16/BF16/FP32 sources)" \
        if dtype == "E8M0" else f"same-type {dtype} values"
    program = "\n".join([
        f"BSTART.VEC TCVT, {src}",
        f"B.DATR {dtype}, {pad}",
        f"B.DIM LB0={vc}",
        f"B.DIM LB1={vr}",
        f"B.DIM LB2={cols}",
        f"B.IOT T1, mask={mask}, <last>, ->T<{SIZE_CODES[dst_cap]}>",
        "BSTOP",
    ]) + "\n"
    src_state_words = [w & element_mask(src) for w in src_words] if src_packed else src_words
    return {
        "name": f"{dtype.lower()}-{pad.lower()}" + ("-large" if rows * cols > MODEL_TILE_ELEMENTS else ""),
        "description": (f"TCVT to {dtype}, B.DATR PadValue {pad} ({PAD_CODES[pad]:02b}): {pad_text}. "
                        f"{rows}x{cols} tile, {carrier}; {source_text}."),
        "profiles": BOTH_PROFILES,
        "source": "reference-generator",
        "reference": f"{GENERATOR} (pad_word: TilePadValueForDataType, "
                     "asl/tile/model/definedness/elements.asl; digest 3.5)",
        "state": {"tiles": [{
            "index": 1, "dtype": src, "capacity": src_cap, "cols": cols, "valid": [vr, vc],
            "mask": mask, "data": grid(src_state_words, vr, vc)}]},
        "program": program,
        "expect": {
            "fault": None, "flags": 0, "allocated": [0, 1], "unchanged": [1],
            "tiles": [{
                "index": 0, "dtype": dtype, "layout": "RowMajor", "location": "Any", "rows": rows,
                "cols": cols, "valid": [vr, vc], "capacity": dst_cap, "mask": mask,
                "data": grid(dst_bits, vr, vc), "words": grid(words, vr, vc),
                "padding": FlowMap(pad_expectation(pad, dtype, packed))}],
        },
    }


def _pad_rows(dtype: str) -> int:
    """Rows of a 128-byte-or-larger tile of 8 columns (16, or 32 for the 4-bit types)."""
    return 32 if bits_of(dtype) == 4 else 16


def pad_vector() -> dict:
    cases = [pad_case(dtype, pad, _pad_rows(dtype), 8) for dtype in DTYPES for pad in PAD_CODES]
    return {
        "format": "pto-avs-vector/1",
        "id": "PTO-AVS-X-TCVT-PAD-001",
        "operation": "TCVT",
        "kind": "execution",
        "exercises": ["ADR-0083", "ADR-0035", "ADR-0043", "ADR-0033", "PTO-INST-TILE-TCVT"],
        "provenance": (
            "Every B.DATR PadValue (00 Zero, 01 Max, 10 Min, 11 Null; CurrentBundlePadValue in "
            "asl/block/model/state/control-state.asl) for every one of the 25 destination types. "
            "Pad Words: TilePadValueForDataType (asl/tile/model/definedness/elements.asl, digest "
            "3.5). `padding.value` is the element bits and `padding.word` the whole Word each "
            "padded coordinate reads back: HiF8/E3M2/E2M3/E8M0 Max is the all-ones Word (element "
            "bits 0xFF) and their Min 0x8000000000000000 (0x00), X2 lanes keep only the nibble "
            "(packed carrier: Max 0xF, Min 0x0), and S8/S16/S32 Min are the Words 0x80/0x8000/"
            "0x80000000, not sign-extended. Valid-region values are same-type conversions of finite, nonzero, valid "
            "encodings (E8M0: FP32 powers of two), which both profiles keep bit for bit with no "
            "flag; `words` checks the carrier: signed integers read back sign-extended "
            "(NormalizeTileInteger; hw-ieee decision 13), 4-bit lanes zero-extended."),
        "cases": cases,
    }


def large_pad_vector() -> dict:
    # 8-bit tiles of 64 KiB (256 x 256 = 65536 elements > 32768) use packed carriers
    # (TileUsesPackedCarrierRepresentation): Words read back zero-extended.  Mask 1000
    # keeps source and destination (65536 bytes each, charged once) inside the
    # reset tile_capacity of 262144.
    picks = [("HiF8", "Max"), ("HiF8", "Min"), ("E3M2", "Max"), ("E2M3", "Min"),
             ("S8", "Min"), ("S8", "Max"), ("E4M3", "Max"), ("U8", "Null")]
    cases = [pad_case(dtype, pad, 256, 256, mask="1000") for dtype, pad in picks]
    return {
        "format": "pto-avs-vector/1",
        "id": "PTO-AVS-X-TCVT-PAD-002",
        "operation": "TCVT",
        "kind": "execution",
        "exercises": ["ADR-0083", "ADR-0035", "ADR-0033", "PTO-INST-TILE-TCVT"],
        "provenance": (
            "Padding and carrier Words of 8-bit TCVT results in 64 KiB tiles (256 x 256 elements, "
            "more than PTO_MODEL_TILE_ELEMENTS = 32768), which use the packed carrier "
            "representation (asl/tile/model/definedness/packed-boundary.asl): each element keeps "
            "only its 8 bits, so signed results read back zero-extended (S8 -2 -> 0xFE) while the "
            "same values in a small tile read back sign-extended (PTO-AVS-X-TCVT-PAD-001), and the "
            "pad Words keep only their element bits (`padding.word`: HiF8 Max 0xFF where a small "
            "tile holds the all-ones Word). Pad Words from TilePadValueForDataType (digest 3.5)."),
        "cases": cases,
    }


def tquant_pad_vector() -> dict:
    cases = []
    for dst, zero_point in (("S8", 0), ("U8", 0)):
        cases.append({
            "name": f"{dst.lower()}-padding-always-null",
            "description": (f"TQUANT FP32 -> {dst}: the destination's padding is always Null "
                            "(TQUANT publishes with TilePad_Null; B.DATR PadValue must be zero), so "
                            "every coordinate outside the 2x3 valid region is undefined. Values are "
                            "small integers times 1.0, exact in both profiles."),
            "profiles": BOTH_PROFILES,
            "source": "reference-generator",
            "reference": f"{GENERATOR} (TQUANT in asl/tile/model/numeric/formats.asl: "
                         "TileWithPadding(result, TilePad_Null))",
            "state": {"tiles": [{
                "index": 1, "dtype": "FP32", "capacity": 128, "cols": 4, "valid": [2, 3],
                "data": grid([0x3F800000, 0x40000000, 0x40400000,
                              0x40800000, 0x40A00000, 0x40C00000], 2, 3)}]},
            "program": "\n".join([
                "BSTART.SFU TQUANT, FP32", f"B.DATR {dst}", "B.DIM LB0=3", "B.DIM LB1=2",
                "B.DIM LB2=4", "B.IOT T1, mask=1111, <last>, ->T<1>", "BSTOP"]) + "\n",
            "expect": {
                "fault": None, "flags": 0, "allocated": [0, 1], "unchanged": [1],
                "tiles": [{
                    "index": 0, "dtype": dst, "layout": "RowMajor", "location": "Any",
                    "rows": 32, "cols": 4, "valid": [2, 3], "capacity": 128,
                    "data": grid([1, 2, 3, 4, 5, 6], 2, 3),
                    "padding": FlowMap(defined=False)}],
            },
        })
    return {
        "format": "pto-avs-vector/1",
        "id": "PTO-AVS-X-TQUANT-PAD-001",
        "operation": "TQUANT",
        "kind": "execution",
        "exercises": ["ADR-0083", "ADR-0035", "PTO-INST-TILE-TQUANT"],
        "provenance": (
            "TQUANT always publishes Null padding (TQUANT in asl/tile/model/numeric/formats.asl; "
            "the tile operation catalog lists runtime:TilePad_Null). FP32 1..6 times the default "
            "multiplier 1.0 plus zero point 0 are exact integers in both profiles "
            "(reference-quantization.asl; hw-ieee decision 14), so no flag is raised."),
        "cases": cases,
    }


def tmuls_pad_vector() -> dict:
    # SPEC-CHOICE 2: TMULS takes only PadValue from B.DATR; an explicit B.DATR also encodes DataType 0,
    # which is FP64 (ResolveBundleEffectiveDataType), so only an FP64 TMULS can carry a
    # pad and succeed (digest 7.4).  Positive finite FP64 sources times the omitted-B.IOR
    # scalar 0 give +0 in both profiles: pto-v0 multiplies raw encodings (x * 0 = 0), IEEE
    # gives +0 for a positive finite x, exact, no flag.
    cases = []
    for pad in PAD_CODES:
        cases.append({
            "name": f"fp64-{pad.lower()}",
            "description": (f"SPEC-CHOICE: TMULS FP64 with B.DATR PadValue {pad}. The B.DATR "
                            "DataType field encodes 0 = FP64, which the executable ASL takes as "
                            "the destination type (ResolveBundleEffectiveDataType), so an explicit "
                            "B.DATR succeeds only for FP64 (digest 7.4; followed as executable). "
                            + ("Null leaves the padding undefined." if pad == "Null" else
                               f"Pad Word 0x{pad_word(pad, 'FP64'):X}.")),
            "profiles": BOTH_PROFILES,
            "source": "reference-generator",
            "reference": f"{GENERATOR} (pad_word: TilePadValueForDataType; "
                         "asl/block/model/dispatch/tile-schema.asl SelectedBundleTileDataAttributesLegal)",
            "state": {"tiles": [{
                "index": 1, "dtype": "FP64", "capacity": 1024, "cols": 8, "valid": [2, 3],
                "data": grid(SAMPLES["FP64"][:2] + [0x3FE0000000000000, 0x3FF8000000000000,
                                                    0x4008000000000000, 0x4010000000000000], 2, 3)}]},
            "program": "\n".join([
                "BSTART.VEC TMULS, FP64", f"B.DATR {pad}", "B.DIM LB0=3", "B.DIM LB1=2",
                "B.DIM LB2=8", "B.IOT T1, mask=1111, <last>, ->T<4>", "BSTOP"]) + "\n",
            "expect": {
                "fault": None, "flags": 0, "allocated": [0, 1], "unchanged": [1],
                "tiles": [{
                    "index": 0, "dtype": "FP64", "layout": "RowMajor", "location": "Any",
                    "rows": 16, "cols": 8, "valid": [2, 3], "capacity": 1024, "mask": "1111",
                    "data": grid([0] * 6, 2, 3), "words": grid([0] * 6, 2, 3),
                    "padding": FlowMap(pad_expectation(pad, "FP64", packed=False))}],
            },
        })
    return {
        "format": "pto-avs-vector/1",
        "id": "PTO-AVS-X-TMULS-PAD-001",
        "operation": "TMULS",
        "kind": "execution",
        "exercises": ["ADR-0081", "ADR-0035", "ADR-0052", "PTO-INST-TILE-TMULS"],
        "provenance": (
            "TMULS padding from an explicit B.DATR PadValue (the only B.DATR field TMULS accepts; "
            "tile-operations catalog datr_contract). Because an explicit B.DATR also encodes "
            "DataType 0 = FP64 and the executable ASL makes that the destination type, only FP64 "
            "succeeds (digest 7.4; the other types are in PTO-AVS-X-TMULS-FAULT-001). Pad Words: "
            "TilePadValueForDataType (digest 3.5). Omitted B.IOR: scalar 0; positive finite "
            "sources times +0 give +0 in both profiles without a flag."),
        "cases": cases,
    }


# ---------------------------------------------------------------------------

BUILDERS = {"TCVT": (layout_vector, pad_vector, large_pad_vector), "TQUANT": (tquant_pad_vector,),
            "TMULS": (tmuls_pad_vector,)}


def files(operations) -> dict:
    """File name -> text of the layout and pad files of ``operations``."""
    docs = [build() for op in operations for build in BUILDERS[op]]
    return {f"{doc['id']}.yaml": render(doc, header_comment(doc["id"])) for doc in docs}


def documents() -> dict:
    """File ID -> text of every file."""
    return {name[:-len(".yaml")]: text for name, text in files(tuple(BUILDERS)).items()}


FAMILY = Family("legality_layout", tuple(BUILDERS), files)


def main(argv: list) -> int:
    if len(argv) != 2 or argv[1] not in ("write", "check"):
        print("usage: legality_layout.py write|check", file=sys.stderr)
        return 2
    from .engine import VECTORS_DIR, run

    return run("generate" if argv[1] == "write" else "check", VECTORS_DIR, among=[FAMILY])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
