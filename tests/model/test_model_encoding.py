"""Block-command encodings: assembler, disassembler, decoder, CLI.

Expected words come from the spec: the digest §5 examples and the spec's own
tests (tests/asl/tile/**/TCVT, TQUANT, TGEMV_MX_ACC bundle tests and
tests/asl/block/** decode/bound/fault tests, cited per case). Form indices are
the catalog positions asserted by the spec's block decode tests.
"""
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from pto_avs.contract.spec_data import load
from pto_avs.device_model.encoding import assemble, assemble_line, decode, disassemble, raw_instruction
from pto_avs.device_model.encoding.forms import BY_KEY, FORMS, instruction_length, match_form
from pto_avs.device_model.encoding.names import BSTART_OPERATIONS, GPR_NAMES, TEPL_OPS
from pto_avs.device_model.faults import Fault, ILLEGAL_INSTRUCTION

# (text, word, source)
SPEC_ENCODINGS = [
    ("BSTART.VEC TCVT, U8", 0xD9B19181, "tile-exec-tcvt-bundle-001"),
    ("BSTART.VEC TCVT, FP64", 0x01B19181, "tile-fault-tcvt-e8m0-pairs-005"),
    ("BSTART.VEC TCVT, FP32", 0x09B19181, "digest §5.2"),
    ("BSTART.VEC TCVT, BF16", 0x29B19181, "digest §5.2"),
    ("BSTART.SFU TQUANT, FP32", 0x0EA19181, "tile-exec-tquant-bundle-001 (TQUANTStart)"),
    ("BSTART.VEC TMULS, FP32", 0x0A219181, "digest §5.2"),
    ("BSTART.VEC TMULS, U8", 0xDA219181, "digest §5.2"),
    ("BSTART.TGEMVMX.ACC FP16", 0x21631181, "block-decode-bstart-tgemvmx-acc-canonical-001"),
    ("BSTART.TGEMVMX.ACC BF16", 0x29631181, "digest §5.2"),
    ("BSTART.TGEMVMX.ACC E4M3", 0x39631181, "digest §5.2"),
    ("BSTART.TGEMVMX.ACC E5M2", 0x41631181, "digest §5.2"),
    ("BSTART.TGEMVMX.ACC E2M1X2", 0x59631181, "digest §5.2"),
    ("BSTART.TGEMVMX.ACC E1M2X2", 0x61631181, "digest §5.2"),
    ("B.DATR U16, ND2DN, Null", 0x19A010A3, "digest §5.3 {ND2DN, U16, Null}"),
    ("B.DATR FP64", 0x00001023, "block-decode-b-datr-canonical-001"),
    ("B.IOT 1, mask=1111, <last>, ->T<2>", 0x00195E13, "digest §5.5"),
    ("B.IOT T1, mask=0000", 0x00105013, "zero-mask source-only binding"),
    ("B.IOT T0, mask=0000", 0x00005013, "block-exec-b-fpatr-zero-mask-order-001"),
    ("B.IOS S0, mask=0000", 0x00001013, "block-exec-b-fpatr-zero-mask-order-001"),
    ("B.DIM LB0=2", 0x00200043, "digest §5.5"),
    ("B.DIM LB0=0", 0x00000043, "block-decode-b-dim-canonical-001 (form 3)"),
    ("B.DIM LB1=0", 0x00001043, "block-decode-b-dim-canonical-001 (form 4)"),
    ("B.DIM LB2=0", 0x00002043, "block-decode-b-dim-canonical-001 (form 2)"),
    ("B.DIM LB0=R23+1", 0x001B8043, "block-bound-b-dim-low-16-001"),
    ("B.FPATR", 0x00002023, "block-decode-b-fpatr-canonical-001"),
    ("BSTOP", 0x00000001, "digest §5.5"),
    ("B.IOR zero", 0x00000013, "block tests: all-zero B.IOR"),
    ("C.B.DIMI LB0=0", 0x003C, "block-decode-c-b-dimi-canonical-001"),
    ("C.B.DIMI LB1=1", 0x407C, "block-bound-c-b-dimi-values-001 (LB1 = 1)"),
    ("C.B.DIMI LB2=255", 0xBFFC, "block-bound-c-b-dimi-values-001 (LB2 = 255)"),
    ("C.BSTOP", 0x0000, "digest §5.5"),
]


@pytest.mark.parametrize("text,word,source", SPEC_ENCODINGS)
def test_spec_encodings_assemble_and_disassemble(text, word, source):
    (ins,) = assemble(text)
    assert ins.word == word, source
    assert assemble(disassemble(word, ins.length))[0].word == word
    decode(word, ins.length)  # legal: no fault


# Catalog positions asserted by the spec's block decode tests.
@pytest.mark.parametrize("word,length,index", [
    (0x00001023, 32, 1), (0x00002043, 32, 2), (0x00000043, 32, 3), (0x00001043, 32, 4),
    (0x00019181, 32, 33), (0x01631181, 32, 38), (0x003C, 16, 53), (0x00002023, 32, 73),
])
def test_decode_form_index(word, length, index):
    assert match_form(word, length).index == index


def test_seed_example_assembles_verbatim():
    # seed 000 (TQUANT) contract example
    text = ("BSTART.SFU TQUANT, FP32; B.DATR S8, RNE, Sat=1; B.DIM LB0=16; "
            "B.IOT T1, mask=1111, <last>, ->T0<1>; BSTOP")
    words = [ins.word for ins in assemble(text)]
    # BSTART from the TQUANT spec tests; B.DATR DT 19 RMode 1 Sat 1 (bits 24:20, 17:15, 26);
    # LB0 = 16 in bits 31:20; B.IOT src 1 (25:20), L (19), size 1 (18:15), PEMode 7 (11:9).
    assert words == [0x0EA19181, 0x05309023, 0x01000043, 0x0018DE13, 0x00000001]


# The seeds' block/example lines (seeds 000, 002, 003, 004): concrete lines
# assemble; every other line is a template with placeholders.
SEED_CONCRETE = ["BSTART.SFU TQUANT, FP32", "BSTOP"]
SEED_TEMPLATES = [
    "B.DATR S8|U8, RMode, Sat", "B.DIM LB0=ValidCol", "B.DIM LB1=ValidRow (optional, default 1)",
    "B.DIM LB2=Col (optional, default ValidCol)",
    "B.IOR MultiplierFP32, ZeroPoint (optional; omission selects 1.0 and 0)",
    "B.IOT SrcTile, mask=PE_MASK, <last>, ->DstTile<TSize>",
    "BSTART.VEC TMULS, DataType", "B.DATR PadValue (optional)", "B.DIM LB1=ValidRow (optional)",
    "B.DIM LB2=Col (optional)", "B.IOR ScalarGPR, zero, zero, ->zero (optional)",
    "BSTART.TGEMVMX.ACC AType", "B.DATR BType, RMode, Sat (optional; BType defaults to AType)",
    "B.FPATR PreQuantMode, ReluMode, GroupNCode, RowMaxEn, GroupMaxEn, RowMaxInit, MaxAbsEn, "
    "TransA, TransB, CScaleEn (exactly one)",
    "B.DIM LB0 M (optional, default 1; TGEMV permits only M=1)", "B.DIM LB1 N (optional, default 1)",
    "B.DIM LB2 K (optional, default 1)", "BSTOP or the next BSTART completion boundary",
    "BSTART.VEC TCVT, SrcDataType",
    "B.DATR DstDataType, RMode, Sat, Canonicalize, Layout, PadValue (optional)",
]


@pytest.mark.parametrize("line", SEED_CONCRETE)
def test_seed_concrete_lines(line):
    assert len(assemble(line)) == 1


@pytest.mark.parametrize("line", SEED_TEMPLATES)
def test_seed_template_lines_are_rejected_with_a_named_cause(line):
    with pytest.raises(ValueError) as err:
        assemble(line)
    message = str(err.value)
    assert line.split()[0].upper() in message and ("template" in message or "operand" in message)


@pytest.mark.parametrize("text,fragment", [
    ("B.IOT T1, mask=111", "mask=<b3b2b1b0>"),
    ("B.IOT T1, <last>", "mask=<b3b2b1b0> is required"),
    ("BSTART.VEC TFOO, U8", "'TFOO'"),
    ("BSTART.VEC TCVT, U9", "'U9'"),
    ("BSTART.SFU TCVT, U8", "runs on VEC"),  # block-static-bstart-tepl-aliases-001
    ("BSTART.VEC TQUANT, FP32", "runs on SFU"),
    ("B.DATR U8, U16", "DataType a second time"),
    ("B.DATR Foo", "'Foo'"),
    ("B.DIM LB3=1", "LB0, LB1 or LB2"),
    ("B.DIM LB0=131072", "17-bit"),
    ("B.IOR R1, R2, R3, R4", "at most three"),
    ("B.IOR R40", "expected a GPR"),
    ("B.FPATR ReluMode=8", "3-bit"),
    ("FOO 1", "unknown mnemonic"),
    (".word 0x100000000", "32-bit"),
])
def test_assembler_errors_name_instruction_and_operand(text, fragment):
    with pytest.raises(ValueError) as err:
        assemble(text)
    assert fragment in str(err.value)


# B.IOT PEMode -> allocation mask (digest: profile-encoding.asl PTOv0PEMaskOfPEMode); the other eight masks have no encoding.
PE_MODE_MASKS = ["0000", "1000", "0100", "0010", "0001", "1100", "1110", "1111"]


@pytest.mark.parametrize("mask", [format(m, "04b") for m in range(16)])
def test_every_mask_assembles_or_is_a_clear_error(mask):
    text = f"B.IOT T5, mask={mask}, <last>"
    if mask in PE_MODE_MASKS:
        (ins,) = assemble(text)
        assert decode(ins.word, ins.length).fields["PEMode"] == PE_MODE_MASKS.index(mask)
        assert assemble(disassemble(ins.word, ins.length))[0].word == ins.word
    else:
        with pytest.raises(ValueError, match=f"mask {mask} has no PEMode encoding"):
            assemble(text)


def test_engine_spellings():
    # TEPL accepts every TEPL operation; VEC/SFU only their engine's (aliases test).
    assert assemble("BSTART.TEPL TADD, FP32")[0].word == assemble("BSTART.VEC TADD, FP32")[0].word
    assert assemble("BSTART.TEPL TEXP, FP32")[0].word == assemble("BSTART.SFU TEXP, FP32")[0].word
    assert assemble("BSTART.TEPL 3, 10, FP32")[0].word == 0x0EA19181


def test_tepl_table_matches_catalog():
    ops = {o["name"]: (o["mode"], o["function"], o["engine"])
           for o in load("tile-operations")["operations"] if o["family"] == "TEPL"}
    assert ops == TEPL_OPS


def _catalog_forms():
    return {form["catalog_index"]: form for contract in load("instruction-contracts")["contracts"]
            for form in contract.get("forms", [])}


# This project's names for catalog fields of the forms the block machine executes.
PROJECT_FIELD_NAMES = {"PadValueOrByteId": "PadValue", "uimm17": "Imm", "imm8": "Imm"}


@pytest.mark.parametrize("catalog_form", [f for _, f in sorted(_catalog_forms().items())
                                          if f["length_bits"] <= 32],
                         ids=lambda f: f"{f['catalog_index']}-{f['mnemonic']}")
def test_form_table_matches_the_catalog(catalog_form):
    """Index, mnemonic, length, mask/match, field pieces, constraints, signedness and
    reserved status of every 16/32-bit form, against the spec's command-form catalog."""
    (ours,) = [f for f in FORMS if f.index == catalog_form["catalog_index"]]
    (encoding,) = catalog_form["encoding"]
    assert (ours.mnemonic, ours.length, ours.mask, ours.match) == (
        catalog_form["mnemonic"], catalog_form["length_bits"], int(encoding["mask"], 16),
        int(encoding["match"], 16))
    assert ours.reserved == (catalog_form["status"] == "reserved-in-pto")
    fields, signed, allowed = {}, set(), {}
    for item in catalog_form["fields"]:
        pieces = tuple(tuple(piece) for piece in item["pieces"])
        bits = sum(((1 << width) - 1) << lsb for lsb, width, _ in pieces)
        if bits & ours.mask:
            continue  # fixed by the mask and match (B.FPATR Func, Opc1, ...)
        name = PROJECT_FIELD_NAMES.get(item["name"], item["name"])
        fields[name] = pieces
        if item["signedness"] == "signed":
            signed.add(name)
    for rule in catalog_form["constraints"]:
        name = PROJECT_FIELD_NAMES.get(rule["field"], rule["field"])
        if name not in fields:
            continue
        domain = set(range(1 << max(v + w for _, w, v in fields[name])))
        legal = set(rule["values"]) if rule["operator"] == "one-of" else domain - {rule["value"]}
        if legal != domain:
            allowed[name] = legal
    extra = set(ours.fields) - set(fields)
    assert extra <= {"Ignored"}, extra  # the source-only B.IOT forms' undefined DstTile bits
    assert {name: ours.fields[name] for name in fields} == fields
    assert {name: set(values) for name, values in ours.allowed.items()} == allowed
    assert ours.signed == signed


def test_gpr_names_match_the_field_domain():
    (contract,) = [c for c in load("instruction-contracts")["contracts"] if c["mnemonic"] == "B.IOR"]
    (domain,) = [d for d in contract["field_domains"] if d["id"] == "PTO-FIELD-BLOCK-GPR-SELECTOR"]
    assert {a["value"]: a["meaning"] for a in domain["assigned"]} == dict(enumerate(GPR_NAMES))
    assert domain["reserved"] == list(range(24, 32))


@pytest.mark.parametrize("operation", load("tile-operations")["operations"], ids=lambda o: o["name"])
def test_every_tile_operation_has_its_bstart(operation):
    """All 109 operations: the BSTART that selects the operation assembles to the catalog's
    encoding, decodes to the operation, and its canonical disassembly assembles back."""
    name = operation["name"]
    if operation["family"] == "TEPL":
        text = f"BSTART.{operation['engine']} {name}, FP32"
    else:
        assert BSTART_OPERATIONS[operation["command_mnemonic"]] == name
        text = f"{operation['command_mnemonic']} FP32"
    (ins,) = assemble(text)
    decoded = decode(ins.word, ins.length)
    assert decoded.operation == name
    if operation["family"] == "TEPL":
        assert (decoded.fields["Mode"], decoded.fields["Function"]) == (operation["mode"], operation["function"])
        assert decoded.form.key == "BSTART.TEPL"
    else:
        (form,) = [f for f in _catalog_forms().values() if f["mnemonic"] == operation["command_mnemonic"]]
        assert ins.word & int(form["encoding"][0]["mask"], 16) == int(form["encoding"][0]["match"], 16)
    assert decoded.fields["DataType"] == 1
    assert assemble(disassemble(ins.word, ins.length))[0].word == ins.word


def test_bstart_operation_table_matches_catalog():
    catalog = {o["command_mnemonic"]: o["name"] for o in load("tile-operations")["operations"]
               if o["family"] != "TEPL"}
    assert catalog == BSTART_OPERATIONS


def test_non_bstart_commands_select_no_operation():
    assert decode(0x00000001, 32).operation is None  # BSTOP
    assert decode(0x00109023, 32).operation is None  # B.DATR


@pytest.mark.parametrize("text,word", [
    # canonical spellings of the spec's contracts and their seed-syntax twins (same word)
    ("B.DATR {NORM, FP32, Zero, None, RNE, 0, 0}", 0x00109023),  # B.DATR contract example
    ("B.DATR FP32, RNE", 0x00109023),
    ("B.DATR {ND2M16, DTYPE_NONE, Null, EQ, Default, 0, 0}", 0x19F01B23),
    ("B.DIM a0, 16, ->LB0", 0x01010043),  # RegSrc 2 (a0), uimm17 16
    ("B.DIM LB0=R2+16", 0x01010043),
    ("B.DIM zero, 0, ->LB2", 0x00002043),
    ("B.DIM LB0, 64", 0x04000043),  # the TLOAD contract's spelling
    ("C.B.DIMI 0, ->LB0", 0x003C),
    ("C.B.DIMI 255, ->LB2", 0xBFFC),
    ("C.B.DIMI LB2=255", 0xBFFC),
    ("B.IOR a0, a1, zero, ->zero", 0x00310013),  # RegSrc0 2, RegSrc1 3
    ("B.IOR R2, R3", 0x00310013),
    ("B.IOT T#1, mask=1111, <last>, ->U<1>", 0x0008DE93),  # T#1 is TileIndex 0
    ("B.IOT T0, mask=1111, <last>, ->U<1>", 0x0008DE93),
    ("B.IOT M#1, mask=1111, <last>", 0x02085E13),  # M#1 is TileIndex 32
    ("B.IOT N#16, U#2, mask=1000, ->T<1>", 0x47F0C213),  # 63 and 17
    ("B.IOS mask=1111, ->S255<0001>", 0x0FF09E13),
    ("B.FPATR None, None, 0, 0, 0, 0, 0, 0, 0", 0x00002023),
    ("B.FPATR", 0x00002023),
    ("B.FPATR S8Vector, LReLU, 2, 1, 1, 1, 1, 1, 1", 0x0917A1A3),  # PreQuantMode 2, ReluMode 2
    ("B.FPATR PreQuantMode=2, ReluMode=2, GroupNCode=2, RowMaxEn=1, GroupMaxEn=1, RowMaxInit=1, "
     "MaxAbsEn=1, TransA=1, TransB=1", 0x0917A1A3),
    ("BSTART.TLOAD U8", 0xD8011181),
    ("BSTART.TMATMUL.ACC FP16", 0x20231181),
    ("BSTART.TEPL 0, 0, FP32", 0x08019181),  # BSTART.TEPL contract example
    ("BSTART.VEC TADD, FP32", 0x08019181),
    ("BSTART.STD FALL", 0x00001001),
    ("BSTART.FP RET", 0x00007101),
    ("BSTART DIRECT, -8", 0xFFFFFE11),  # simm25 = -4 half-words
    ("C.BSTART.STD IND", 0x2800),
    ("C.BSTART.SYS FALL", 0x0840),
    ("MSET [zero, zero, zero]", 0x00001031),
    ("B.HINT TRACE.end", 0x00009033),
])
def test_canonical_and_seed_spellings(text, word):
    (ins,) = assemble(text)
    assert ins.word == word
    assert assemble(disassemble(ins.word, ins.length))[0].word == word


def test_b_datr_disassembles_cmode_as_the_b_datr_contract_example_writes_it():
    # The B.DATR contract's example {NORM, FP32, Zero, None, RNE, 0, 0} (CMode code 0 written None);
    # codes 1..5 by their relation names.
    assert disassemble(0x00109023, 32) == "B.DATR {NORM, FP32, Zero, None, RNE, 0, 0}"
    (ne,) = assemble("B.DATR {NORM, FP32, Zero, NE, RNE, 0, 0}")
    assert disassemble(ne.word, 32) == "B.DATR {NORM, FP32, Zero, NE, RNE, 0, 0}"
    assert assemble("B.DATR {NORM, FP32, Zero, EQ, RNE, 0, 0}")[0].word == 0x00109023


def test_comment_marker_and_tile_references():
    assert assemble("B.IOT T#2, mask=1111, <last>  # T#2 is TileIndex 1")[0].word == \
        assemble("B.IOT T1, mask=1111, <last>")[0].word
    with pytest.raises(ValueError, match="k = 1..16"):
        assemble("B.IOT T#0, mask=1111")
    assert disassemble(0x0008DE93, 32) == "B.IOT T#1, mask=1111, <last>, ->U<1>"


@pytest.mark.parametrize("word,length,why", [
    (0x78019181, 32, "BSTART.TEPL DataType 15 (block-fault-bstart-tepl-reserved-001)"),
    (0xF8019181, 32, "BSTART.TEPL DataType 31"),
    (0x78000000 | 0x01631181, 32, "BSTART.TGEMVMX.ACC DataType 15"),
    (0x00002023 | 6 << 26, 32, "PreQuantMode 6 (block-fault-b-fpatr-pq06-11-001)"),
    (0x00002023 | 4 << 23, 32, "ReluMode 4 (block-fault-b-fpatr-relu-rsvd-001)"),
    (0x00002023 | 10 << 19, 32, "GroupNCode 10"),
    (0x00001023 | 6 << 29, 32, "CMode 6"),
    (0x00001023 | 2 << 7, 32, "Layout 2"),
    (0x00001023 | 15 << 20, 32, "DataType 15"),
    (0x00000043 | 24 << 15 | 7 << 20, 32, "B.DIM RegSrc 24 (block-bound-b-dim-gpr-001)"),
    (0x00000013 | 24 << 15, 32, "B.IOR RegSrc0 24"),
    (0x00005013 | 11 << 15, 32, "B.IOT SizeCode 11"),
    (0x00006013 | 0x0E00, 32, "B.IOT no-source form with SizeCode 0"),
    (0x00001013 | 13 << 15, 32, "B.IOS SizeCode 13"),
    (0x003C | 3 << 14 | 0xFF << 6, 16, "C.B.DIMI LoopNest 3 (block-fault-c-b-dimi-reserved-001)"),
    (0xFFFFFFFF, 32, "no form"),
])
def test_reserved_codes_are_illegal_instruction(word, length, why):
    with pytest.raises(Fault) as err:
        decode(word, length)
    assert err.value.kind == ILLEGAL_INSTRUCTION, why


def test_length_rule():
    assert instruction_length(0x0000) == 16
    assert instruction_length(0x003C) == 16
    assert instruction_length(0x00000001) == 32  # BSTOP
    assert instruction_length(0x00000013) == 32  # all-zero B.IOR
    assert instruction_length(0x50160002) == 32  # BSTART.CALL, bit 0 clear
    for form in FORMS:  # the rule classifies every catalog form's match correctly
        assert instruction_length(form.match) == form.length, form


def test_source_only_form_keeps_ignored_hand_bits():
    word = 0x00185E13 | 1 << 7  # B.IOT T1, mask=1111, <last> with DstTile bits = U
    assert match_form(word, 32).key == "B.IOT.S"
    text = disassemble(word, 32)
    assert text == "B.IOT T#2, mask=1111, <last>, ->U<0>"
    assert assemble(text)[0].word == word


@pytest.mark.slow  # 3000 random words
@settings(max_examples=3000, deadline=None)
@given(st.integers(0, 0xFFFFFFFF))
def test_any_word_decodes_or_faults_and_round_trips(word):
    ins = raw_instruction(word)
    try:
        decoded = decode(ins.word, ins.length)
        assert decoded.form.length == ins.length
    except Fault as fault:
        assert fault.kind == ILLEGAL_INSTRUCTION
    back = assemble_line(disassemble(ins.word, ins.length))
    assert (back.word, back.length) == (ins.word, ins.length)


@pytest.mark.slow  # 3000 random words of the modelled forms
@settings(max_examples=3000, deadline=None)
@given(st.sampled_from(sorted(BY_KEY)), st.integers(0, 0xFFFFFFFF))
def test_modelled_form_words_round_trip(key, noise):
    form = BY_KEY[key]
    word = (noise & ~form.mask & ((1 << form.length) - 1)) | form.match
    assert match_form(word, form.length) is not None
    text = disassemble(word, form.length)
    assert not text.startswith(".")  # a modelled form always has a textual spelling
    assert assemble_line(text).word == word


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "pto_avs.avs.cli", *args], capture_output=True, text=True)


@pytest.mark.slow  # one CLI subprocess per command
def test_cli_asm_and_disasm():
    assert _cli("asm", "BSTART.VEC TCVT, U8").stdout == "0xd9b19181\n"
    assert _cli("disasm", "0xd9b19181").stdout == "BSTART.VEC TCVT, U8\n"
    out = _cli("asm", "BSTART.VEC TCVT, U8; B.DIM LB0=2\nBSTOP").stdout.split()
    assert out == ["0xd9b19181", "0x00200043", "0x00000001"]
    assert _cli("disasm", "0x0EA19181", "0x00000001", "0x0000").stdout.splitlines() == [
        "BSTART.SFU TQUANT, FP32", "BSTOP", "C.BSTOP"]
    # disasm prints the spec's canonical syntax; asm takes it and the seed syntax alike
    assert _cli("disasm", "0x05309023", "0x0018de13").stdout.splitlines() == [
        "B.DATR {NORM, S8, Zero, None, RNE, 1, 0}", "B.IOT T#2, mask=1111, <last>, ->T<1>"]
    assert _cli("asm", "B.DATR {NORM, S8, Zero, EQ, RNE, 1, 0}; B.DATR S8, RNE, Sat=1").stdout.split() == [
        "0x05309023", "0x05309023"]
    bad = _cli("asm", "B.IOT T1, mask=111")
    assert bad.returncode == 2 and "mask=111" in bad.stderr
    not_a_word = _cli("disasm", "zz")
    assert not_a_word.returncode == 2 and not_a_word.stdout == ""
    assert "'zz' is not an instruction word: expected an integer 0..0xFFFFFFFF" in not_a_word.stderr
    assert "invalid literal" not in not_a_word.stderr
