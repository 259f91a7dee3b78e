"""The per-tile feature-map descriptor that TIMG2COL reads (TileFeatureMapDescriptor).

Facts from asl/tile/model/state/feature-map-descriptors.asl:

- one descriptor per Local tile register (``_TileFeatureMapDescriptors``), core Tile state;
  reset leaves every one invalid, and every allocation (ConfigureTile*, a bundle's
  destination) and ReleaseTile invalidates the register's descriptor. The model keeps the
  descriptor on the ``Tile`` (``Tile.feature_map``): a new allocation is a new ``Tile``
  without one, and a write of an existing tile's contents (``with_contents``) keeps it,
  as the spec's content writes leave the descriptor array alone;
- only the harness sets one (ConfigureTileFeatureMapDescriptor, which asserts the tile is
  allocated): no instruction does;
- the fields and their ranges: a layout (NC1HWC0 or NDC1HWC0), batches N, depth D,
  channel groups C1, height H, width W, channels per group C0, filter height and width,
  stride and dilation height and width (each 1..65535), four paddings (0..65535),
  logical channels (1..65535), the typed padding value (a Word) and ``transposed``;
- TileFeatureMapDescriptorStructurallyValid: valid and not transposed, depth 1 for
  NC1HWC0, logical channels at most C1*C0, and N*D*C1*H*W*C0 physical elements within
  both the tile's logical element capacity and its rows x columns.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

LAYOUTS = ("NC1HWC0", "NDC1HWC0")  # TileFeatureMapLayout
WORD_MASK = (1 << 64) - 1
# The integer fields in the spec's order with their ranges (ConfigureTileFeatureMapDescriptor).
POSITIVE = ("batches", "depth", "channel_groups", "height", "width", "channels_per_group", "filter_height",
            "filter_width", "stride_height", "stride_width", "dilation_height", "dilation_width")
PADS = ("pad_left", "pad_right", "pad_top", "pad_bottom")
RANGES = {**{name: (1, 65535) for name in POSITIVE}, **{name: (0, 65535) for name in PADS},
          "logical_channels": (1, 65535)}
# The fields a descriptor must be given; every other one has the default ``describe`` states.
REQUIRED = ("batches", "channel_groups", "height", "width", "channels_per_group", "filter_height", "filter_width")


@dataclass(frozen=True)
class FeatureMap:
    """One TileFeatureMapDescriptor (every field as the spec names it)."""

    layout: str
    batches: int
    depth: int
    channel_groups: int
    height: int
    width: int
    channels_per_group: int
    filter_height: int
    filter_width: int
    stride_height: int
    stride_width: int
    dilation_height: int
    dilation_width: int
    pad_left: int
    pad_right: int
    pad_top: int
    pad_bottom: int
    logical_channels: int
    padding: int  # a Word; TIMG2COL takes its element bits (TileRawElementValue)
    transposed: bool = False
    valid: bool = True

    # --- image-to-column geometry (asl/tile/model/legality/image-to-column.asl) ---
    @property
    def output_height(self) -> int:
        """TileImageToColumnOutputHeight (0 when the receptive field does not fit)."""
        return _output(self.height + self.pad_top + self.pad_bottom, self.filter_height, self.dilation_height,
                       self.stride_height)

    @property
    def output_width(self) -> int:
        """TileImageToColumnOutputWidth."""
        return _output(self.width + self.pad_left + self.pad_right, self.filter_width, self.dilation_width,
                       self.stride_width)

    @property
    def physical_elements(self) -> int:
        return (self.batches * self.depth * self.channel_groups * self.height * self.width
                * self.channels_per_group)

    @property
    def matrix_shape(self) -> tuple[int, int]:
        """(logical rows N*D*outH*outW, logical columns C1*filterH*filterW*C0) of the image-to-column matrix."""
        return (self.batches * self.depth * self.output_height * self.output_width,
                self.channel_groups * self.filter_height * self.filter_width * self.channels_per_group)

    def structurally_valid(self, logical_capacity: int, elements: int) -> bool:
        """TileFeatureMapDescriptorStructurallyValid for a tile of ``logical_capacity`` logical
        elements and ``elements`` = rows x columns."""
        if not self.valid or self.transposed:
            return False
        if self.layout == "NC1HWC0" and self.depth != 1:
            return False
        if self.logical_channels > self.channel_groups * self.channels_per_group:
            return False
        return self.physical_elements <= logical_capacity and self.physical_elements <= elements


def _output(padded: int, taps: int, dilation: int, stride: int) -> int:
    receptive = dilation * (taps - 1) + 1
    return 0 if padded < receptive else (padded - receptive) // stride + 1


FIELD_NAMES = tuple(f.name for f in fields(FeatureMap))


class FeatureMapError(ValueError):
    """A feature-map description the model cannot hold; ``field`` names the field (or "")."""

    def __init__(self, field: str, problem: str):
        super().__init__(f"feature map field {field!r}: {problem}" if field else f"feature map: {problem}")
        self.field, self.problem = field, problem


def describe(spec: dict) -> FeatureMap:
    """A ``FeatureMap`` from a mapping of its fields (the vector format's ``feature_map``),
    with the defaults: layout NC1HWC0, depth, strides and dilations 1, paddings 0, logical
    channels C1*C0, padding value 0, not transposed, valid. ``FeatureMapError`` (a ValueError)
    names a field that is unknown, missing, of the wrong type or outside its range."""
    if not isinstance(spec, dict):
        raise FeatureMapError("", f"a mapping of its fields is needed, not {type(spec).__name__}")
    unknown = sorted(set(spec) - set(FIELD_NAMES))
    if unknown:
        raise FeatureMapError(unknown[0], f"not a field (the fields: {', '.join(FIELD_NAMES)})")
    missing = [name for name in REQUIRED if name not in spec]
    if missing:
        raise FeatureMapError(missing[0], "missing")
    values = {"layout": "NC1HWC0", "depth": 1, "stride_height": 1, "stride_width": 1, "dilation_height": 1,
              "dilation_width": 1, "pad_left": 0, "pad_right": 0, "pad_top": 0, "pad_bottom": 0, "padding": 0,
              "transposed": False, "valid": True, **spec}
    if values["layout"] not in LAYOUTS:
        raise FeatureMapError("layout", f"{values['layout']!r} is not one of {', '.join(LAYOUTS)}")
    for name, (low, high) in RANGES.items():  # logical_channels last: its default needs C1 and C0
        if name == "logical_channels":
            values.setdefault(name, min(values["channel_groups"] * values["channels_per_group"], high))
        value = values[name]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise FeatureMapError(name, f"{value!r} is not an integer {low}..{high}")
    padding = values["padding"]
    if isinstance(padding, bool) or not isinstance(padding, int) or not 0 <= padding <= WORD_MASK:
        raise FeatureMapError("padding", f"{padding!r} is not a 64-bit Word")
    for name in ("transposed", "valid"):
        if not isinstance(values[name], bool):
            raise FeatureMapError(name, f"{values[name]!r} is not true or false")
    return FeatureMap(**values)
