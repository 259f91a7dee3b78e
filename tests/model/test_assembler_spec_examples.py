"""The spec's own assembly, and round trips over the encoding space.

Data: contract/spec_data/instruction-contracts.json, the assembly examples and
command forms of the spec's 168 instruction contracts. An example is a block
program; it is split at ';' into pieces. Each piece is either

- an instruction: it assembles, its word agrees with the mask/match of a form of
  its mnemonic in the spec's data and the decoder picks that form, it decodes
  without a fault, the BSTART of a tile contract's example selects that
  contract's operation, and its canonical disassembly assembles back to the
  same word; or
- text that is not an instruction, for one of the reasons of NOT_INSTRUCTION
  (a rule on the spec's text, not on the assembler), and then the assembler
  rejects it.

Run with ``-s`` to see the counts.
"""
import random
import re
from collections import Counter

import pytest

from pto_avs.contract.spec_data import load
from pto_avs.device_model.encoding import assemble_line, decode, disassemble, raw_instruction
from pto_avs.device_model.encoding.forms import FORMS, match_form
from pto_avs.device_model.faults import Fault

CONTRACTS = load("instruction-contracts")["contracts"]
CATALOG = {form["catalog_index"]: form for c in CONTRACTS for form in c.get("forms", [])}
# BSTART.VEC and BSTART.SFU are the spec's engine aliases of BSTART.TEPL (no form of their own).
ALIASES = {"BSTART.VEC": "BSTART.TEPL", "BSTART.SFU": "BSTART.TEPL"}
WIDE_MNEMONICS = {f["mnemonic"] for f in CATALOG.values() if f["length_bits"] > 32}

# Role and field names the contracts write where a program would put a value.
PLACEHOLDERS = {
    "AType", "BaseGPR", "BroadcastTile", "DataTile", "DataType", "Denominator", "Dividend", "Divisor",
    "Dst", "DstTile", "ExpectedTile", "IndexSrc", "IndexTile", "K", "KWindow", "Left", "M", "MWindow",
    "MaskTile", "N", "Numerator", "PE_MASK", "PosK", "PosM", "Predicate", "RegDst0", "RegDstn", "RegSrc0",
    "RegSrcn", "ReplacementTile", "Right", "ShiftCount", "SizeCode", "Src", "SrcAddend", "SrcDataType",
    "SrcFalse", "SrcLeft", "SrcRight", "SrcTile", "SrcTile0", "SrcTrue", "TSize", "ValidCol", "Value",
    "ValueSrc", "label", "target", "br_label", "rt_label", "uimm",
}
# The eight allocation masks the 3-bit PEMode encodes (PTOv0PEMaskOfPEMode).
ENCODABLE_MASKS = {"0000", "1000", "0100", "0010", "0001", "1100", "1110", "1111"}


def _wide(mnemonic: str) -> bool:
    """A mnemonic of a 48/64-bit form, with its variant suffixes (hl.qmt.ie)."""
    return any(mnemonic == m or mnemonic.startswith(m + ".") for m in WIDE_MNEMONICS)


def _tokens(piece: str) -> set:
    """Operand words, a destination hand (->M<1>) left out."""
    piece = re.sub(r"->\s*[TUMN](?=<|,|$)", "", piece)
    return set(re.split(r"[\s,{}\[\]<>=~]+|->", piece)) - {""}


# Checked in this order; a piece is counted under the first reason that applies.
NOT_INSTRUCTION = {
    "48- or 64-bit form (not a program item)": lambda p: _wide(p.split()[0].upper()),
    # PE0 is the mask's high bit (PTOPEMaskBitOfPEIdentity): 0011 is PE2+PE3, 0101 PE1+PE3.
    "allocation mask with no PEMode encoding":
        lambda p: any(m not in ENCODABLE_MASKS for m in re.findall(r"mask=([01]{4})", p)),
    "annotation after the operands": lambda p: bool(re.search(r"\[[^\]]* form\]$| using Function \d+$", p)),
    "alternatives in <...>": lambda p: bool(re.search(r"<[^<>]*,[^<>]*>", p)),
    "placeholder operand": lambda p: bool(_tokens(p) & PLACEHOLDERS),
    "prose note in parentheses": lambda p: bool(re.search(r"[()]", p)),
    "prose (four or more words in a row)": lambda p: bool(re.search(r"(?:[^\s,]+ +){3}[^\s,]+", p)),
    "command without its operands": lambda p: p in ("B.IOT", "B.DIM LB0"),
}


def _pieces():
    """(contract, example number, piece number, piece) for every piece of every example."""
    return [(contract, n, k, piece) for contract in CONTRACTS for n, example in enumerate(contract["examples"])
            for k, piece in enumerate(p.strip() for p in example.split(";") if p.strip())]


PIECES = _pieces()


def _reasons(piece: str) -> list:
    return [reason for reason, applies in NOT_INSTRUCTION.items() if applies(piece)]


def _check_instruction(contract, piece_number, piece):
    ins = assemble_line(piece)
    mnemonic = piece.split()[0].upper()
    forms = [f for f in CATALOG.values() if f["mnemonic"] == ALIASES.get(mnemonic, mnemonic)]
    agreeing = {f["catalog_index"] for f in forms if f["length_bits"] == ins.length
                and ins.word & int(f["encoding"][0]["mask"], 16) == int(f["encoding"][0]["match"], 16)}
    assert agreeing, f"{piece!r}: {ins.word:#x} agrees with no form of {mnemonic}"
    assert match_form(ins.word, ins.length).index in agreeing
    decoded = decode(ins.word, ins.length)
    if contract["surface"] == "tile" and piece_number == 0:
        assert decoded.operation == contract["operation"]["name"], piece
    back = assemble_line(disassemble(ins.word, ins.length))
    assert (back.word, back.length) == (ins.word, ins.length), piece


def test_every_contract_example():
    reasons, assembled = Counter(), Counter()
    whole = {}  # (contract id, example number) -> every piece is an instruction
    for contract, example, number, piece in PIECES:
        why = _reasons(piece)
        key = (contract["id"], example)
        whole[key] = whole.get(key, True) and not why
        if why:
            reasons[why[0]] += 1
            with pytest.raises(ValueError):
                assemble_line(piece)
        else:
            _check_instruction(contract, number, piece)
            assembled[contract["surface"]] += 1
    surface = Counter(c["surface"] for c, _, _, _ in PIECES)
    distinct = {p for _, _, _, p in PIECES}
    print(f"\nspec examples: {sum(whole.values())}/{len(whole)} examples of {len(CONTRACTS)} contracts "
          f"assemble whole; pieces {sum(assembled.values())}/{len(PIECES)} assembled (block contracts "
          f"{assembled['block']}/{surface['block']}, tile contracts {assembled['tile']}/{surface['tile']}; "
          f"distinct {len([p for p in distinct if not _reasons(p)])}/{len(distinct)})")
    for reason, count in reasons.most_common():
        print(f"  not an instruction: {count:4d}  {reason}")
    # Pinned for pto-spec 0.58.3: a change means the data or the assembler's coverage changed.
    assert (sum(assembled.values()), len(PIECES), sum(whole.values()), len(whole)) == (276, 1100, 48, 206)


@pytest.mark.parametrize("piece", sorted({p for _, _, _, p in PIECES if _reasons(p)}))
def test_text_that_is_not_an_instruction_is_rejected(piece):
    with pytest.raises(ValueError) as err:
        assemble_line(piece)
    assert piece.split()[0].upper() in str(err.value)


@pytest.mark.parametrize("contract", [c for c in CONTRACTS if c["surface"] == "block"
                                      and not _wide(c["mnemonic"].upper())],
                         ids=lambda c: c["mnemonic"])
def test_each_block_command_has_an_assembled_spec_example_or_only_templates(contract):
    """A 16/32-bit block contract either has an example piece of its own mnemonic that
    assembles, or every example of its own is a template."""
    own = [p for c, _, _, p in PIECES if c is contract and p.split()[0].upper() == contract["mnemonic"].upper()]
    assert own, contract["mnemonic"]
    assembled = [p for p in own if not _reasons(p)]
    for piece in assembled:
        assemble_line(piece)
    assert assembled or all(_reasons(p) for p in own)


def _round_trip(word: int, length: int):
    text = disassemble(word, length)
    back = assemble_line(text)
    assert (back.word, back.length) == (word, length), (hex(word), text)
    return text


def _decode_class(word: int, length: int) -> str:
    if match_form(word, length) is None:
        return "no form"
    try:
        decode(word, length)
    except Fault:
        return "illegal (reserved value or reserved form)"
    return "legal"


def test_all_16_bit_words_round_trip():
    """Every 16-bit program item (bit 0 clear): a word of a form disassembles to
    canonical text, any other word to .half; both assemble back to the word."""
    counts = Counter()
    for word in range(0, 0x10000, 2):
        text = _round_trip(word, 16)
        kind = _decode_class(word, 16)
        counts[kind] += 1
        assert text.startswith(".half") == (kind == "no form")
    print(f"\n16-bit words: {sum(counts.values())} round-tripped; " +
          ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    assert counts["legal"] > 0 and sum(counts.values()) == 0x8000


@pytest.mark.slow  # a large sample of 32-bit words through decode and assembly
def test_32_bit_sample_round_trips():
    """100000 uniform random words (as program items) and 1500 random words inside
    each 32-bit form's mask/match: canonical text or .word, and back."""
    rng = random.Random(14)
    counts = Counter()
    for _ in range(100_000):
        ins = raw_instruction(rng.getrandbits(32))
        text = _round_trip(ins.word, ins.length)
        counts[("uniform", _decode_class(ins.word, ins.length))] += 1
        assert text.startswith(".") == (match_form(ins.word, ins.length) is None)
    for form in (f for f in FORMS if f.length == 32):
        for _ in range(1500):
            word = (rng.getrandbits(32) & ~form.mask) | form.match
            text = _round_trip(word, 32)
            assert not text.startswith(".")
            counts[("per-form", _decode_class(word, 32))] += 1
    print(f"\n32-bit words: {sum(counts.values())} round-tripped; " +
          ", ".join(f"{a} {b}: {v}" for (a, b), v in sorted(counts.items())))
    assert counts[("per-form", "no form")] == 0
