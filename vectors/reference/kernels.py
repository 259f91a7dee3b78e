"""Whole kernels: multi-block programs that load tiles from global memory, compute with the
operations already modelled and store the result (issue 23 "Whole kernels").

    TLOAD A, TLOAD B -> TADD -> TSTORE              (PTO-AVS-X-KERNEL-TADD-001)
    TLOAD A -> TCVT -> TSTORE                        (PTO-AVS-X-KERNEL-TCVT-001)
    TLOAD A, TLOAD B -> TCMP LT -> TSEL -> TSTORE    (PTO-AVS-X-KERNEL-TSEL-001: the element minimum)
    TLOAD A, B, C (CUBE) -> TGEMV_MX_ACC -> TSTORE   (PTO-AVS-X-KERNEL-TGEMV-MX-ACC-001)
    TLOAD A, B, A2, B2 (CUBE) -> TMATMUL -> TMATMUL_ACC -> TSTORE   (PTO-AVS-X-KERNEL-TMATMUL-ACC-001)

The expected result region comes from the independent references, never from the model:
the memory walk of ``memory.py`` (TLOAD's and TSTORE's addresses and bytes), the element
references ``arith_elements.py`` (TADD, per profile), ``numeric.py`` (TCVT under hw-ieee; an
integer widening is the same in pto-v0) and ``compare_elements.py`` (TCMP's bit, TSEL's
choice). Each case compares the result region with guard bytes around it, and the whole
memory outside it stays as it was only where the case says so (the inputs).
"""
from __future__ import annotations

from . import arith_elements, compare_elements, matrix
from . import memory as ref
from . import numeric
from .engine import Flow, FlowMap, Hex, case, size_code, smallest_tile, width

BOTH = ["pto-v0", "hw-ieee"]
MEMORY = 4096
A_BASE, B_BASE, OUT_BASE = 0x100, 0x200, 0x400
GUARD = 8
FILL = 0xA5  # the result region's bytes before the kernel


def _values(t: str, count: int, seed: int) -> list:
    bits = width(t)
    out, state = [], seed
    for _ in range(count):
        state = (state * 1103515245 + 12345) & 0x7FFFFFFF
        out.append((state >> 5) & ((1 << bits) - 1))
    return out


def _bytes_of(t: str, words) -> bytes:
    size = ref.element_bytes(t)
    return b"".join((w & ((1 << 8 * size) - 1)).to_bytes(size, "little") for w in words)


def _load_block(t, valid, cols, base_gpr, stride_gpr, capacity) -> str:
    return "\n".join([f"BSTART.TLOAD {t}", f"B.DIM LB0={valid[1]}", f"B.DIM LB1={valid[0]}"]
                     + ([f"B.DIM LB2={cols}"] if cols != valid[1] else [])
                     + [f"B.IOR R{base_gpr}, R{stride_gpr}", f"B.IOT mask=1111, <last>, ->T<{size_code(capacity)}>",
                        "BSTOP"])


def _store_block(t, source, base_gpr, stride_gpr) -> str:
    return "\n".join([f"BSTART.TSTORE {t}", f"B.IOR R{base_gpr}, R{stride_gpr}", f"B.IOT T{source}, mask=1111, <last>",
                      "BSTOP"])


def _kernel_case(name, description, profiles, reference, inputs, out_t, out_words, valid, program, gprs,
                 out_stride):
    """The case: memory holding each input ((base, type, words, stride)) and the filled result
    region, the program, and the expected result region (rows at ``out_stride``) with guards."""
    regions = []
    for base, t, words, stride, *shape in inputs:  # an input of its own shape names it, else ``valid``
        rows, cols = shape[0] if shape else valid
        row_bytes = [_bytes_of(t, words[r * cols:(r + 1) * cols]) for r in range(rows)]
        regions += [(base + r * stride, data) for r, data in enumerate(row_bytes)]
    out_size = ref.element_bytes(out_t)
    span = (valid[0] - 1) * out_stride + valid[1] * out_size
    regions.append((OUT_BASE - GUARD, bytes([FILL]) * (span + 2 * GUARD)))
    image = ref.Memory(MEMORY, regions)
    accesses = ref.strided_accesses(OUT_BASE, out_stride, valid[0], valid[1], out_t)
    image.tstore(out_t, accesses, out_words)
    result = image.bytes[OUT_BASE - GUARD:OUT_BASE + span + GUARD]
    state = {"tiles": Flow([]), "gprs": FlowMap({k: Hex(v) for k, v in gprs.items()}),
             "memory": {"size": MEMORY,
                        "regions": [FlowMap(address=Hex(a), bytes=bytes(d).hex(" ")) for a, d in sorted(regions)]}}
    expect = {"fault": None, "memory": [FlowMap(address=Hex(OUT_BASE - GUARD), bytes=bytes(result).hex(" "))]}
    for base, t, words, stride, *shape in inputs:  # the inputs are read, never written
        rows, cols = shape[0] if shape else valid
        expect["memory"] += [FlowMap(address=Hex(base + r * stride),
                                     bytes=_bytes_of(t, words[r * cols:(r + 1) * cols]).hex(" "))
                             for r in range(rows)]
    return case(name, description, profiles, "reference-generator", reference, state, program, expect)


def tadd_cases() -> list:
    out = []
    for t, profiles in (("U16", BOTH), ("S32", BOTH), ("FP32", ["hw-ieee"]), ("FP32", ["pto-v0"])):
        valid, cols = (2, 8), 8
        _, capacity, _ = smallest_tile(t, valid, cols)
        stride = ref.dense_stride(cols, t) + 16
        a, b = _values(t, 16, 11), _values(t, 16, 23)
        if t == "FP32":  # finite values of moderate exponent: sums round (hw-ieee) or wrap as carriers (pto-v0)
            a = [0x3F800000 | (v & 0x007FFFFF) | (v & 0x80000000) for v in a]
            b = [0x40000000 | (v & 0x007FFFFF) for v in b]
        profile = profiles[0] if len(profiles) == 1 else "pto-v0"
        total = [arith_elements.evaluate("TADD", t, profile, x, y)[0] for x, y in zip(a, b)]
        if len(profiles) == 2:  # an integer sum wraps the same in both profiles
            assert total == [arith_elements.evaluate("TADD", t, "hw-ieee", x, y)[0] for x, y in zip(a, b)]
        program = "\n".join([
            _load_block(t, valid, cols, 1, 3, capacity), _load_block(t, valid, cols, 2, 3, capacity),
            f"BSTART.VEC TADD, {t}", f"B.DIM LB0={valid[1]}", f"B.DIM LB1={valid[0]}",
            f"B.IOT T0, T1, mask=1111, <last>, ->T<{size_code(capacity)}>", "BSTOP",
            _store_block(t, 2, 4, 3)])
        label = t.lower() + ("" if len(profiles) == 2 else "-" + profiles[0])
        out.append(_kernel_case(
            f"tload-tadd-tstore-{label}", f"{t} ({', '.join(profiles)}): TLOAD A (0x100) and B (0x200), 2x8 with a "
            f"{stride}-byte stride, TADD, TSTORE to 0x400 with the same stride; the result rows and the bytes "
            "between and around them are compared, the inputs stay.", profiles,
            "vectors/reference/memory.py (the TLOAD/TSTORE walks) and vectors/reference/arith_elements.py "
            "(TADD per profile)", [(A_BASE, t, a, stride), (B_BASE, t, b, stride)], t, total, valid, program,
            {1: A_BASE, 2: B_BASE, 3: stride, 4: OUT_BASE}, stride))
    return out


def tcvt_cases() -> list:
    out = []
    for src, dst, profiles in (("S8", "S32", BOTH), ("U8", "FP32", ["hw-ieee"]), ("FP16", "FP32", ["hw-ieee"])):
        valid, cols = (2, 8), 8
        _, capacity, rows = smallest_tile(src, valid, cols)
        out_capacity = max(128, rows * cols * width(dst) // 8)  # TCVT keeps the source's rows x cols
        a = _values(src, 16, 5)
        if src == "FP16":
            a = [(v & 0x83FF) | 0x3800 for v in a]  # normal values near one
        converted = [numeric.convert(src, dst, x)[0] for x in a]
        in_stride, out_stride = ref.dense_stride(cols, src), ref.dense_stride(cols, dst)
        program = "\n".join([
            _load_block(src, valid, cols, 1, 2, capacity),
            f"BSTART.VEC TCVT, {src}", f"B.DATR {dst}, NORM, Null", f"B.DIM LB0={valid[1]}", f"B.DIM LB1={valid[0]}",
            f"B.IOT T0, mask=1111, <last>, ->T<{size_code(out_capacity)}>", "BSTOP",
            _store_block(dst, 1, 3, 4)])
        out.append(_kernel_case(
            f"tload-tcvt-tstore-{src.lower()}-{dst.lower()}", f"{src} -> {dst} ({', '.join(profiles)}): TLOAD a 2x8 "
            f"{src} rectangle at 0x100, TCVT to {dst}, TSTORE densely at 0x400.", profiles,
            "vectors/reference/memory.py and vectors/reference/numeric.py (convert)",
            [(A_BASE, src, a, in_stride)], dst, converted, valid, program,
            {1: A_BASE, 2: in_stride, 3: OUT_BASE, 4: out_stride}, out_stride))
    return out


def tsel_cases() -> list:
    out = []
    for t in ("U16", "S8"):
        valid, cols = (2, 8), 8
        _, capacity, _ = smallest_tile(t, valid, cols)
        stride = ref.dense_stride(cols, t)
        a, b = _values(t, 16, 3), _values(t, 16, 9)
        bits = [compare_elements.compare("LT", t, x, y, "pto-v0")[0] for x, y in zip(a, b)]
        assert bits == [compare_elements.compare("LT", t, x, y, "hw-ieee")[0] for x, y in zip(a, b)]
        words_a = [numeric.result_word(t, x) for x in a]
        words_b = [numeric.result_word(t, y) for y in b]
        low = [compare_elements.select(bit, x, y) for bit, x, y in zip(bits, words_a, words_b)]
        program = "\n".join([
            _load_block(t, valid, cols, 1, 3, capacity), _load_block(t, valid, cols, 2, 3, capacity),
            f"BSTART.VEC TCMP, {t}", "B.DATR CMode=LT", f"B.DIM LB0={valid[1]}", f"B.DIM LB1={valid[0]}",
            "B.IOT T0, T1, mask=1111, <last>, ->T<1>", "BSTOP",
            f"BSTART.VEC TSEL, {t}", f"B.DIM LB0={valid[1]}", f"B.DIM LB1={valid[0]}",
            "B.IOT T2, T0, mask=1111", f"B.IOT T1, mask=1111, <last>, ->T<{size_code(capacity)}>", "BSTOP",
            _store_block(t, 3, 4, 3)])
        out.append(_kernel_case(
            f"tload-tcmp-tsel-tstore-{t.lower()}", f"{t}: TLOAD A and B, TCMP LT into a predicate tile, TSEL "
            "(mask, A, B) keeps the smaller element, TSTORE at 0x400: the element minimum in memory.", BOTH,
            "vectors/reference/memory.py and vectors/reference/compare_elements.py (compare, select)",
            [(A_BASE, t, a, stride), (B_BASE, t, b, stride)], t, low, valid, program,
            {1: A_BASE, 2: B_BASE, 3: stride, 4: OUT_BASE}, stride))
    return out


def _cube_load(t, datr_layout, base_gpr, stride_gpr) -> str:
    return "\n".join([f"BSTART.TLOAD {t}", f"B.DATR {{{datr_layout}, DTYPE_NONE, Zero, EQ, Default, 0, 0}}",
                      "B.DIM LB0=1", "B.DIM LB1=1", f"B.IOR R{base_gpr}, R{stride_gpr}",
                      "B.IOT mask=1111, <last>, ->T<1>", "BSTOP"])


def tgemv_cases() -> list:
    """TGEMV_MX_ACC (M = N = K = 1, the block defaults) fed by three CUBE-conversion TLOADs (A
    FP16 through ND2M16, B FP16 through ND2N8, C FP32 through ND2M16) and drained by an M162ND
    TSTORE of the FP32 D."""
    out = []
    for label, a, b, c in (("spec-values", 0x4000, 0x4200, 0x40A00000), ("near-one", 0x3C01, 0x3C03, 0x3F800000)):
        for profile in ("pto-v0", "hw-ieee"):
            d = matrix.product(profile, "TGEMV_MX_ACC", "FP16", "FP16", [[a]], [[b]], [[c]])[0][0][0]
            program = "\n".join([
                _cube_load("FP16", "ND2M16", 1, 4), _cube_load("FP16", "ND2N8", 2, 4), _cube_load("FP32", "ND2M16", 3, 4),
                "BSTART.TGEMVMX.ACC FP16", "B.FPATR", "B.IOT T2, T0, mask=1111", "B.IOT T1, mask=1111, <last>, ->T<1>",
                "BSTOP",
                "\n".join(["BSTART.TSTORE FP32", "B.DATR {M162ND, DTYPE_NONE, Zero, EQ, Default, 0, 0}", "B.DIM LB0=1",
                           "B.DIM LB1=1", "B.IOR R5, R4", "B.IOT T3, mask=1111, <last>", "BSTOP"])])
            inputs = [(0x100, "FP16", [a], 0x40), (0x110, "FP16", [b], 0x40), (0x120, "FP32", [c], 0x40)]
            out.append(_kernel_case(
                f"tload-tgemv-mx-acc-tstore-{label}-{profile}", f"{profile}: A (FP16 {a:#06x}) and B (FP16 {b:#06x}) "
                f"loaded into CUBE_M16 / CUBE_N8, C (FP32 {c:#010x}) into CUBE_M16, D = C + A*B by TGEMV_MX_ACC, "
                "stored through M162ND at 0x400.", [profile],
                "vectors/reference/memory.py and vectors/reference/matrix.py (product: raw Words in pto-v0, one FP32 "
                "fused step in hw-ieee)", inputs, "FP32", [d], (1, 1), program,
                {1: 0x100, 2: 0x110, 3: 0x120, 4: 0x40, 5: OUT_BASE}, 0x40))
    return out


def _cube_load_shaped(t, layout_code, rows, cols, base_gpr, stride_gpr, layout) -> str:
    capacity = matrix.cube_shape(layout, t, rows, cols)[2]
    return "\n".join([f"BSTART.TLOAD {t}", f"B.DATR {{{layout_code}, DTYPE_NONE, Zero, EQ, Default, 0, 0}}",
                      f"B.DIM LB0={cols}", f"B.DIM LB1={rows}", f"B.IOR R{base_gpr}, R{stride_gpr}",
                      f"B.IOT mask=1111, <last>, ->T<{size_code(capacity)}>", "BSTOP"])


def _matrix_of(words, cols):
    return [words[r * cols:(r + 1) * cols] for r in range(len(words) // cols)]


def tmatmul_cases() -> list:
    """The ordinary (non-MX) matrix kernel: A, B, A2 and B2 loaded from memory by CUBE-conversion
    TLOADs (ND2M16 for the M x K operands, ND2N8 for the K x N ones), D1 = A x B by TMATMUL,
    D2 = D1 + A2 x B2 by TMATMUL_ACC (D1 the accumulator C), D2 stored through M162ND. The loaded
    Words come from memory.py's TLOAD walk, D1 and D2 from matrix.py's product (exact rational
    products, then per K step the profile's rounding: one FP32 RNE fused step in hw-ieee, raw
    64-bit Words in pto-v0; an integer accumulator exact modulo 2^32)."""
    m, n, k = 4, 4, 8
    out = []
    for t, profiles in (("FP16", ["pto-v0"]), ("FP16", ["hw-ieee"]), ("S8", BOTH)):
        acc = matrix.accumulator("TMATMUL", t, t)
        a_stride, b_stride = 32, ref.dense_stride(n, t)
        a, b, a2, b2 = (_values(t, m * k if i % 2 == 0 else k * n, seed) for i, seed in enumerate((3, 7, 13, 29)))
        if t == "FP16":  # normal values in [0.5, 4): products and sums that round in FP32
            a, b, a2, b2 = ([(v & 0x83FF) | (0x3800 + ((v >> 10) % 3 << 10)) for v in x] for x in (a, b, a2, b2))
        bases = {"A": 0x100, "B": 0x200, "A2": 0x280, "B2": 0x300}
        regions = [(bases[name] + r * stride, _bytes_of(t, words[r * cols:(r + 1) * cols]))
                   for name, words, rows, cols, stride in (("A", a, m, k, a_stride), ("B", b, k, n, b_stride),
                                                           ("A2", a2, m, k, a_stride), ("B2", b2, k, n, b_stride))
                   for r in range(rows)]
        image = ref.Memory(MEMORY, regions)
        loaded = {name: image.tload(t, ref.strided_accesses(bases[name], stride, rows, cols, t))
                  for name, rows, cols, stride in (("A", m, k, a_stride), ("B", k, n, b_stride),
                                                   ("A2", m, k, a_stride), ("B2", k, n, b_stride))}
        d_capacity = matrix.cube_shape("CUBE_M16", acc, m, n)[2]
        program = "\n".join([
            _cube_load_shaped(t, "ND2M16", m, k, 1, 5, "CUBE_M16"), _cube_load_shaped(t, "ND2N8", k, n, 2, 6, "CUBE_N8"),
            _cube_load_shaped(t, "ND2M16", m, k, 3, 5, "CUBE_M16"), _cube_load_shaped(t, "ND2N8", k, n, 4, 6, "CUBE_N8"),
            f"BSTART.TMATMUL {t}", "B.FPATR", f"B.DIM LB0={m}", f"B.DIM LB1={n}", f"B.DIM LB2={k}",
            "B.IOT T0, T1, mask=1111", f"B.IOT mask=1111, <last>, ->T<{size_code(d_capacity)}>", "BSTOP",
            f"BSTART.TMATMUL.ACC {t}", "B.FPATR", f"B.DIM LB0={m}", f"B.DIM LB1={n}", f"B.DIM LB2={k}",
            "B.IOT T4, T2, mask=1111", "B.IOT T3, mask=1111", f"B.IOT mask=1111, <last>, ->T<{size_code(d_capacity)}>",
            "BSTOP",
            "\n".join([f"BSTART.TSTORE {acc}", "B.DATR {M162ND, DTYPE_NONE, Zero, EQ, Default, 0, 0}",
                       f"B.DIM LB0={n}", f"B.DIM LB1={m}", "B.IOR R7, R8", "B.IOT T5, mask=1111, <last>", "BSTOP"])])
        results = []
        for profile in profiles:
            d1, _ = matrix.product(profile, "TMATMUL", t, t, _matrix_of(loaded["A"], k), _matrix_of(loaded["B"], n))
            d2, _ = matrix.product(profile, "TMATMUL_ACC", t, t, _matrix_of(loaded["A2"], k),
                                   _matrix_of(loaded["B2"], n), c=d1)
            results.append([w & 0xFFFFFFFF for row in d2 for w in row])
        assert all(r == results[0] for r in results)  # an integer accumulator stores the same bytes in both
        label = t.lower() + ("" if len(profiles) == 2 else "-" + profiles[0])
        out.append(_kernel_case(
            f"tload-tmatmul-tmatmul-acc-tstore-{label}", f"{t} ({', '.join(profiles)}): TLOAD A and A2 ({m}x{k}, "
            f"{a_stride}-byte rows) through ND2M16 and B and B2 ({k}x{n}, dense) through ND2N8; D1 = A x B "
            f"(TMATMUL, T4), D2 = D1 + A2 x B2 (TMATMUL_ACC, T5, {acc}); D2 stored through M162ND at 0x400 with "
            "a 32-byte stride.", profiles,
            "vectors/reference/memory.py (the TLOAD/TSTORE walks) and vectors/reference/matrix.py (product: exact "
            "rational products, per K step one FP32 RNE fused step in hw-ieee, raw Words in pto-v0, an integer "
            "accumulator modulo 2^32)",
            [(bases["A"], t, a, a_stride, (m, k)), (bases["B"], t, b, b_stride, (k, n)),
             (bases["A2"], t, a2, a_stride, (m, k)), (bases["B2"], t, b2, b_stride, (k, n))],
            acc, results[0], (m, n), program,
            {1: bases["A"], 2: bases["B"], 3: bases["A2"], 4: bases["B2"], 5: a_stride, 6: b_stride, 7: OUT_BASE,
             8: 32}, 32))
    return out


KERNELS = {  # file ID -> (the other operations the programs run, the case builder, summary)
    "PTO-AVS-X-KERNEL-TADD-001": (("TADD", "TLOAD"), tadd_cases, "TLOAD -> TADD -> TSTORE kernels"),
    "PTO-AVS-X-KERNEL-TCVT-001": (("TCVT", "TLOAD"), tcvt_cases, "TLOAD -> TCVT -> TSTORE kernels"),
    "PTO-AVS-X-KERNEL-TSEL-001": (("TCMP", "TLOAD", "TSEL"), tsel_cases, "TLOAD -> TCMP -> TSEL -> TSTORE kernels"),
    "PTO-AVS-X-KERNEL-TGEMV-MX-ACC-001": (("TGEMV_MX_ACC", "TLOAD"), tgemv_cases,
                                          "TLOAD (CUBE conversions) -> TGEMV_MX_ACC -> TSTORE kernels"),
    "PTO-AVS-X-KERNEL-TMATMUL-ACC-001": (("TLOAD", "TMATMUL", "TMATMUL_ACC"), tmatmul_cases,
                                         "TLOAD (CUBE conversions) -> TMATMUL -> TMATMUL_ACC -> TSTORE kernels"),
}


def kernel_file(vector_id: str, exercises, command: str) -> dict:
    others, build, summary = KERNELS[vector_id]
    return {"format": "pto-avs-vector/1", "id": vector_id, "operation": "TSTORE", "kind": "execution",
            "summary": summary + ": the result region in memory, derived independently",
            "exercises": Flow(exercises), "also_exercises": Flow(list(others)),
            "provenance": ("Whole kernels (multi-block programs). The expected result region comes from the "
                           "independent references named in each case (vectors/reference/memory.py and the element "
                           f"references; no code shared with device_model), written by `{command}`. Nothing here "
                           "was produced by running the golden model."),
            "cases": build()}
