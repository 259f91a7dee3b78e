"""The 16- and 32-bit command forms of the block encoding space.

Facts from spec/catalog/command-forms.json: catalog index, mnemonic, length,
mask, match, field pieces, decode constraints and status of every 16/32-bit
form (48- and 64-bit forms are not accepted as program items). ``modelled``
marks the forms the block machine executes. ``tests/model/test_model_encoding.py``
checks this table against contract/spec_data/instruction-contracts.json.

Decoding tries the forms of the instruction's length with the most mask bits
first (ties broken by catalog order); the first whose mask/match agrees wins.

Instruction length: every 32-bit form has match bit 0 = 1 except BSTART.CALL,
whose match (0x50160002) is above 0xFFFF, and every 16-bit form has match
bit 0 = 0. A raw item is therefore 16-bit exactly when it is below 0x10000
and its bit 0 is clear, and 32-bit otherwise.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .. import dtypes

CONCRETE_TYPES = frozenset(dtypes.BY_CODE)
# SPEC-CHOICE 10: the DataType field domain lists code 31 as reserved and the hardware
# profile's reserved list omits it, while the executable B.DATR accepts 31 as
# DTYPE_NONE (digest §7.9): B.DATR allows the 25 concrete codes and 31, BSTART only
# the 25 concrete codes, as the catalog constraints and the ASL do (BSTART.TMOV
# alone also allows 31, as its catalog constraint does).
GPR_SELECTORS = frozenset(range(24))
LOCAL_SIZE_CODES = frozenset(range(1, 11))
DATR_LAYOUTS = frozenset({0, 1, 3, 4, 6, 8, 9, 17, 18, 20, 21, 22, 23, 24, 25, 26, 27, 28, 30})
PREQUANT_MODES = frozenset({0, 1, 2, 3, 4, 5, 12, 13, 16, 17, 18, 19, 20, 23, 24, 25, 26, 27,
                            28, 32, 33, 34, 35, 36, 37, 38, 39})
FRAME_RING = frozenset(range(2, 24))  # FENTRY/FEXIT/FRET endpoints R2..R23
BRANCH_TYPES = frozenset({1, 5, 7})  # C.BSTART.FP/STD: FALL, IND, RET


@dataclass(frozen=True)
class Form:
    index: int  # catalog position
    key: str  # this project's name for the form (mnemonic, plus a variant where one mnemonic has several)
    mnemonic: str
    length: int  # bits
    mask: int
    match: int
    fields: dict = field(default_factory=dict)  # name -> ((insn_lsb, width, value_lsb), ...)
    allowed: dict = field(default_factory=dict)  # name -> frozenset of legal values
    modelled: bool = False  # executed by the block machine
    signed: frozenset = frozenset()  # fields the catalog marks signed (displacements)
    reserved: bool = False  # status reserved-in-pto: every word of the form is illegal

    @property
    def mask_bits(self) -> int:
        return bin(self.mask).count("1")

    def extract(self, word: int) -> dict:
        """Field values as unsigned integers."""
        values = {}
        for name, pieces in self.fields.items():
            value = 0
            for lsb, width, value_lsb in pieces:
                value |= ((word >> lsb) & ((1 << width) - 1)) << value_lsb
            values[name] = value
        return values

    def insert(self, values: dict) -> int:
        word = self.match
        for name, value in values.items():
            for lsb, width, value_lsb in self.fields[name]:
                word |= ((value >> value_lsb) & ((1 << width) - 1)) << lsb
        return word

    def field_width(self, name: str) -> int:
        """Bits a field's value spans (its highest piece end, value_lsb included)."""
        return max(value_lsb + width for _, width, value_lsb in self.fields[name])

    def violations(self, values: dict) -> list:
        """Fields whose value is outside the catalog's one-of / not-equal constraint."""
        return [name for name, allowed in self.allowed.items() if values[name] not in allowed]


def _pieces(spec: str) -> dict:
    """Parse "Name=lsb:width[@value_lsb] [lsb:width@value_lsb] Other=..." into a field map."""
    fields, current = {}, None
    for token in spec.split():
        if "=" in token:
            current, token = token.split("=", 1)
            fields[current] = ()
        position, _, value_lsb = token.partition("@")
        lsb, width = position.split(":")
        fields[current] += ((int(lsb), int(width), int(value_lsb or 0)),)
    return fields


def _form(index, key, mnemonic, length, mask, match, spec="", modelled=False, signed=(),
          reserved=False, **allowed):
    return Form(index, key, mnemonic, length, mask, match, _pieces(spec),
                {name: frozenset(values) for name, values in allowed.items()}, modelled,
                frozenset(signed), reserved)


def _modelled(index, key, mnemonic, length, mask, match, spec="", **allowed):
    return _form(index, key, mnemonic, length, mask, match, spec, modelled=True, **allowed)


def _typed_bstart(index, mnemonic, match, types=CONCRETE_TYPES):
    return _form(index, mnemonic, mnemonic, 32, 0x07FFFFFF, match, "DataType=27:5", DataType=types)


_GPR3 = "RegSrc0=15:5 RegSrc1=20:5 RegSrc2=27:5"
_FRAME = "{0}Begin=15:5 {0}End=20:5 uimm=25:7@3 7:5@10"
_GPRS3 = dict(RegSrc0=GPR_SELECTORS, RegSrc1=GPR_SELECTORS, RegSrc2=GPR_SELECTORS)

FORMS = (
    _modelled(0, "B.CATR", "B.CATR", 32, 0xFBF07FFF, 0x00000023,
          "DR=26:1 trap=19:1 far=18:1 atom=17:1 aq=16:1 rl=15:1"),
    _modelled(1, "B.DATR", "B.DATR", 32, 0x000C707F, 0x00001023,
              "CMode=29:3 PadValue=27:2 Sat=26:1 Canonicalize=25:1 DataType=20:5 RMode=15:3 Layout=7:5",
              CMode=range(6), DataType=CONCRETE_TYPES | {dtypes.DTYPE_NONE}, Layout=DATR_LAYOUTS),
    _modelled(2, "B.DIM.LB2", "B.DIM", 32, 0x0000707F, 0x00002043, "RegSrc=15:5 Imm=20:12 7:5@12",
              RegSrc=GPR_SELECTORS),
    _modelled(3, "B.DIM.LB0", "B.DIM", 32, 0x0000707F, 0x00000043, "RegSrc=15:5 Imm=20:12 7:5@12",
              RegSrc=GPR_SELECTORS),
    _modelled(4, "B.DIM.LB1", "B.DIM", 32, 0x0000707F, 0x00001043, "RegSrc=15:5 Imm=20:12 7:5@12",
              RegSrc=GPR_SELECTORS),
    _form(5, "B.HINT", "B.HINT", 32, 0x00087FFF, 0x00000033,
          "L/UL=16:1 V=15:1 prefetch_size=20:12 temp=17:2"),
    _form(6, "B.HINT.TRACE", "B.HINT", 32, 0xFFFF7FFF, 0x00001033, "B/E=15:1"),
    _modelled(7, "B.IOR", "B.IOR", 32, 0x0600707F, 0x00000013,
              "RegDst=7:5 RegSrc0=15:5 RegSrc1=20:5 RegSrc2=27:5",
              RegDst=GPR_SELECTORS, RegSrc0=GPR_SELECTORS, RegSrc1=GPR_SELECTORS, RegSrc2=GPR_SELECTORS),
    _modelled(8, "B.IOT.S_D", "B.IOT", 32, 0xFC00707F, 0x00005013,
              "SrcTile0=20:6 L=19:1 SizeCode=15:4 PEMode=9:3 DstTile=7:2", SizeCode=LOCAL_SIZE_CODES),
    # Ignored (7:2): bits the source-only forms neither fix nor define (the DstTile
    # position of the destination forms); kept so that every word round-trips.
    _modelled(9, "B.IOT.SS", "B.IOT", 32, 0x0007F07F, 0x00004013,
              "SrcTile1=26:6 SrcTile0=20:6 L=19:1 PEMode=9:3 Ignored=7:2"),
    _modelled(10, "B.IOT.SS_D", "B.IOT", 32, 0x0000707F, 0x00004013,
              "SrcTile1=26:6 SrcTile0=20:6 L=19:1 SizeCode=15:4 PEMode=9:3 DstTile=7:2",
              SizeCode=LOCAL_SIZE_CODES),
    _modelled(11, "B.IOT.S", "B.IOT", 32, 0xFC07F07F, 0x00005013,
              "SrcTile0=20:6 L=19:1 PEMode=9:3 Ignored=7:2"),
    _modelled(12, "B.IOT.D", "B.IOT", 32, 0xFFF0707F, 0x00006013,
              "L=19:1 SizeCode=15:4 PEMode=9:3 DstTile=7:2", SizeCode=LOCAL_SIZE_CODES),
    _form(13, "BSTART.DIRECT", "BSTART", 32, 0x0000007F, 0x00000011, "simm25=7:25", signed=("simm25",)),
    _form(14, "BSTART.COND", "BSTART", 32, 0x0000007F, 0x00000021, "simm25=7:25", signed=("simm25",)),
    _form(15, "BSTART.CALL", "BSTART.CALL", 32, 0xF83F000F, 0x50160002, "simm12=4:12 uimm5=22:5",
          signed=("simm12",)),
    _form(16, "BSTART.ICALL", "BSTART.ICALL", 32, 0xF83FFFFF, 0x50166001, "uimm5=22:5"),
    _form(17, "BSTART.FP.RET", "BSTART.FP", 32, 0xFFFFFFFF, 0x00007101),
    _form(18, "BSTART.FP.COND", "BSTART.FP", 32, 0x00007FFF, 0x00003101, "simm17=15:17", signed=("simm17",)),
    _form(19, "BSTART.FP.IND", "BSTART.FP", 32, 0xFFFFFFFF, 0x00005101),
    _form(20, "BSTART.FP.DIRECT", "BSTART.FP", 32, 0x00007FFF, 0x00002101, "simm17=15:17",
          signed=("simm17",)),
    _form(21, "BSTART.FP.FALL", "BSTART.FP", 32, 0x00007FFF, 0x00001101, "simm17=15:17",
          signed=("simm17",), simm17={0}),
    _typed_bstart(22, "BSTART.MGATHER", 0x00411181),
    _typed_bstart(23, "BSTART.MGATHER.CAS", 0x00811181),
    _typed_bstart(24, "BSTART.MGATHER.MASK", 0x00611181),
    _typed_bstart(25, "BSTART.MSCATTER.MASK", 0x00711181),
    _typed_bstart(26, "BSTART.MSCATTER", 0x00511181),
    _form(27, "BSTART.STD.COND", "BSTART.STD", 32, 0x00007FFF, 0x00003001, "simm17=15:17",
          signed=("simm17",)),
    _form(28, "BSTART.STD.FALL", "BSTART.STD", 32, 0x00007FFF, 0x00001001, "simm17=15:17",
          signed=("simm17",), simm17={0}),
    _form(29, "BSTART.STD.RET", "BSTART.STD", 32, 0xFFFFFFFF, 0x00007001),
    _form(30, "BSTART.STD.IND", "BSTART.STD", 32, 0xFFFFFFFF, 0x00005001),
    _form(31, "BSTART.STD.DIRECT", "BSTART.STD", 32, 0x00007FFF, 0x00002001, "simm17=15:17",
          signed=("simm17",)),
    _form(32, "BSTART.SYS", "BSTART.SYS", 32, 0x00007FFF, 0x00001081, "simm17=15:17",
          signed=("simm17",), simm17={0}),
    _modelled(33, "BSTART.TEPL", "BSTART.TEPL", 32, 0x000FFFFF, 0x00019181,
              "DataType=27:5 Mode=25:2 Function=20:5", DataType=CONCRETE_TYPES),
    _typed_bstart(34, "BSTART.TGEMV", 0x01031181),
    _typed_bstart(35, "BSTART.TGEMV.ACC", 0x01231181),
    _typed_bstart(36, "BSTART.TGEMV.BIAS", 0x01131181),
    _typed_bstart(37, "BSTART.TGEMVMX", 0x01431181),
    _modelled(38, "BSTART.TGEMVMX.ACC", "BSTART.TGEMVMX.ACC", 32, 0x07FFFFFF, 0x01631181,
              "DataType=27:5", DataType=CONCRETE_TYPES),
    _typed_bstart(39, "BSTART.TGEMVMX.BIAS", 0x01531181),
    _typed_bstart(40, "BSTART.TLOAD", 0x00011181),
    _typed_bstart(41, "BSTART.TMATMUL", 0x00031181),
    _typed_bstart(42, "BSTART.TMATMUL.ACC", 0x00231181),
    _typed_bstart(43, "BSTART.TMATMUL.BIAS", 0x00131181),
    _typed_bstart(44, "BSTART.TMATMULMX", 0x00431181),
    _typed_bstart(45, "BSTART.TMATMULMX.ACC", 0x00631181),
    _typed_bstart(46, "BSTART.TMATMULMX.BIAS", 0x00531181),
    _typed_bstart(47, "BSTART.TMOV", 0x00211181, CONCRETE_TYPES | {dtypes.DTYPE_NONE}),
    _typed_bstart(48, "BSTART.GMOV", 0x00D11181),
    _typed_bstart(49, "BSTART.TPREFETCH", 0x00311181),
    _typed_bstart(50, "BSTART.TSTORE", 0x00111181),
    # An encoding variant of form 50 (its catalog record's encoding_variants: Function 14), which has no
    # catalog index of its own: numbered past the catalog.
    _typed_bstart(1050, "BSTART.TSTORE.SPART", 0x00E11181),
    # The Shared TMOV variants of form 47 (its encoding_variants: Functions 9..12), numbered past the catalog.
    _typed_bstart(1047, "BSTART.TMOV.L2S.INSERT", 0x00911181),
    _typed_bstart(2047, "BSTART.TMOV.L2S.PUBLISH", 0x00A11181),
    _typed_bstart(3047, "BSTART.TMOV.S2L.BROADCAST", 0x00B11181),
    _typed_bstart(4047, "BSTART.TMOV.S2L.EXTRACT", 0x00C11181),
    _modelled(51, "BSTOP", "BSTOP", 32, 0xFFFFFFFF, 0x00000001),
    _modelled(52, "B.IOS", "B.IOS", 32, 0xF00871FF, 0x00001013, "SharedTID=20:8 SizeCode=15:4 PEMode=9:3",
              SizeCode=range(13)),
    _modelled(53, "C.B.DIMI", "C.B.DIMI", 16, 0x003F, 0x003C, "LoopNest=14:2 Imm=6:8", LoopNest=range(3)),
    _form(54, "C.BSTART.COND", "C.BSTART", 16, 0x000F, 0x0004, "simm12=4:12", signed=("simm12",)),
    _form(55, "C.BSTART.DIRECT", "C.BSTART", 16, 0x000F, 0x0002, "simm12=4:12", signed=("simm12",)),
    _form(56, "C.BSTART.FP", "C.BSTART.FP", 16, 0xC7FF, 0x0080, "BrType=11:3", BrType=BRANCH_TYPES),
    _form(57, "C.BSTART.STD", "C.BSTART.STD", 16, 0xC7FF, 0x0000, "BrType=11:3", BrType=BRANCH_TYPES),
    _form(58, "C.BSTART.SYS", "C.BSTART.SYS", 16, 0xFFFF, 0x0840),
    _modelled(59, "C.BSTOP", "C.BSTOP", 16, 0xFFFF, 0x0000),
    _form(60, "ERCOV", "ERCOV", 32, 0x06007FFF, 0x00003031, _GPR3, reserved=True),
    _form(61, "ESAVE", "ESAVE", 32, 0x06007FFF, 0x00002031, _GPR3, reserved=True),
    _form(62, "FENTRY", "FENTRY", 32, 0x0000707F, 0x00000041, _FRAME.format("Src"),
          SrcBegin=FRAME_RING, SrcEnd=FRAME_RING),
    _form(63, "FEXIT", "FEXIT", 32, 0x0000707F, 0x00001041, _FRAME.format("Dst"),
          DstBegin=FRAME_RING, DstEnd=FRAME_RING),
    _form(64, "FRET.RA", "FRET.RA", 32, 0x0000707F, 0x00002041, _FRAME.format("Dst"),
          DstBegin=FRAME_RING, DstEnd=FRAME_RING),
    _form(65, "FRET.STK", "FRET.STK", 32, 0x0000707F, 0x00003041, _FRAME.format("Dst"),
          DstBegin={10}, DstEnd=FRAME_RING),
    _form(69, "MCOPY", "MCOPY", 32, 0x06007FFF, 0x00000031, _GPR3, **_GPRS3),
    _form(70, "MSET", "MSET", 32, 0x06007FFF, 0x00001031, _GPR3, **_GPRS3),
    _form(71, "XB", "XB", 32, 0x00007FFF, 0x00006F81, "ACR-ID=15:10 CROSS-BID=25:7", reserved=True),
    # Func (14:12) = 2, ElementWiseEn (11) = 0, Reserved (10:9) = 0, Opc1/Opcode/W are
    # fixed by the mask and match.
    _modelled(73, "B.FPATR", "B.FPATR", 32, 0x00007E7F, 0x00002023,
              "PreQuantMode=26:6 ReluMode=23:3 GroupNCode=19:4 RowMaxEn=18:1 GroupMaxEn=17:1 "
              "RowMaxInit=16:1 MaxAbsEn=15:1 TransB=8:1 TransA=7:1",
              PreQuantMode=PREQUANT_MODES, ReluMode=range(4), GroupNCode=range(10)),
)

BY_KEY = {form.key: form for form in FORMS}
_DECODE_ORDER = {
    length: tuple(sorted((f for f in FORMS if f.length == length),
                         key=lambda f: (-f.mask_bits, f.index)))
    for length in (16, 32)
}


def instruction_length(word: int) -> int:
    """16 for a compressed instruction, else 32 (see the module docstring)."""
    return 16 if word < 0x10000 and not word & 1 else 32


def match_form(word: int, length: int) -> Optional[Form]:
    """The form a word of ``length`` bits decodes to, or None."""
    for form in _DECODE_ORDER[length]:
        if word & form.mask == form.match:
            return form
    return None
