"""The independent reference of TIMG2COL: the image-to-column matrix of a feature map,
written from the executable ASL (asl/tile/model/legality/image-to-column.asl,
asl/tile/model/execution/image-to-column.asl, asl/tile/model/state/
feature-map-descriptors.asl) as plain nested loops. It shares no code with device_model.

Where the model decomposes each destination coordinate with divisions, this reference
builds the whole matrix by walking it: a counter over the feature map in its storage order
(batch, depth, channel group, row, column, channel in group) gives each element its place,
and the matrix rows (batch, depth, output row, output column) and columns (channel group,
filter row, filter column, channel in group) are visited in order, each taking the element
under the filter tap or the descriptor's padding value. A window of it at (posM, posK) is
the destination's valid region.

A feature map here is a dict of the vector format's ``feature_map`` fields (the defaults of
vectors/FORMAT.md "Feature maps" filled in by ``full``).
"""
from __future__ import annotations

from .numeric import FORMATS

DEFAULTS = {"layout": "NC1HWC0", "depth": 1, "stride_height": 1, "stride_width": 1, "dilation_height": 1,
            "dilation_width": 1, "pad_left": 0, "pad_right": 0, "pad_top": 0, "pad_bottom": 0, "padding": 0,
            "transposed": False, "valid": True}
# TileCarrierOnlyDataTypeSupported: not 4-bit, at most 4 bytes (the operand rule's set, SPEC-CHOICE 78).
CARRIER_ONLY = tuple(name for name in FORMATS if FORMATS[name].width not in (4, 64))
# TileImg2ColDataTypeSupported: the nine types the contract names.
CONTRACT_TYPES = ("FP32", "FP16", "BF16", "S32", "S16", "S8", "U32", "U16", "U8")


class Illegal(Exception):
    """An operand rule of TileOperandsLegal_TIMG2COL fails: Fault_TileLegality."""


def full(fm: dict) -> dict:
    out = {**DEFAULTS, **fm}
    out.setdefault("logical_channels", out["channel_groups"] * out["channels_per_group"])
    return out


def output_extent(size: int, before: int, after: int, taps: int, stride: int, dilation: int) -> int:
    """Output positions along one axis: the first tap of each lies at position * stride in the
    padded axis, the last at + (taps - 1) * dilation, and all of them must lie inside it."""
    count, padded = 0, size + before + after
    while count * stride + (taps - 1) * dilation < padded:
        count += 1
    return count


def places(fm: dict) -> dict:
    """(batch, depth, group, row, column, channel) -> storage index, by counting in storage order."""
    fm, place, counter = full(fm), {}, 0
    for n in range(fm["batches"]):
        for d in range(fm["depth"]):
            for c1 in range(fm["channel_groups"]):
                for h in range(fm["height"]):
                    for w in range(fm["width"]):
                        for c0 in range(fm["channels_per_group"]):
                            place[n, d, c1, h, w, c0] = counter
                            counter += 1
    return place


def matrix(fm: dict) -> list:
    """The whole image-to-column matrix: per row a list of storage indices, None where the
    element is the padding value (outside the image, or a channel past logical_channels)."""
    fm = full(fm)
    place = places(fm)
    out_h = output_extent(fm["height"], fm["pad_top"], fm["pad_bottom"], fm["filter_height"], fm["stride_height"],
                          fm["dilation_height"])
    out_w = output_extent(fm["width"], fm["pad_left"], fm["pad_right"], fm["filter_width"], fm["stride_width"],
                          fm["dilation_width"])
    rows = []
    for n in range(fm["batches"]):
        for d in range(fm["depth"]):
            for oh in range(out_h):
                for ow in range(out_w):
                    row = []
                    for c1 in range(fm["channel_groups"]):
                        for kh in range(fm["filter_height"]):
                            for kw in range(fm["filter_width"]):
                                for c0 in range(fm["channels_per_group"]):
                                    h = oh * fm["stride_height"] + kh * fm["dilation_height"] - fm["pad_top"]
                                    w = ow * fm["stride_width"] + kw * fm["dilation_width"] - fm["pad_left"]
                                    inside = 0 <= h < fm["height"] and 0 <= w < fm["width"]
                                    channel = c1 * fm["channels_per_group"] + c0
                                    row.append(place[n, d, c1, h, w, c0]
                                               if inside and channel < fm["logical_channels"] else None)
                    rows.append(row)
    return rows


def logical_capacity(capacity: int, t: str) -> int:
    return capacity * 8 // FORMATS[t].width


def check(fm, source: dict, destination: dict, pos_m: int, pos_k: int) -> list:
    """TileOperandsLegal_TIMG2COL over plain descriptions: ``source``/``destination`` dicts of
    dtype, layout, location, capacity, rows, cols, valid and (the source) ``defined``, a set of
    defined storage indices. Returns the window of ``matrix`` (valid rows x valid cols of
    storage indices or None); raises Illegal naming the rule that fails."""
    if fm is None:
        raise Illegal("the source has no feature-map descriptor")
    fm = full(fm)
    elements = (fm["batches"] * fm["depth"] * fm["channel_groups"] * fm["height"] * fm["width"]
                * fm["channels_per_group"])
    if not fm["valid"] or fm["transposed"]:
        raise Illegal("the descriptor is invalid or transposed")
    if fm["layout"] == "NC1HWC0" and fm["depth"] != 1:
        raise Illegal("an NC1HWC0 descriptor has depth 1")
    if fm["logical_channels"] > fm["channel_groups"] * fm["channels_per_group"]:
        raise Illegal("more logical channels than C1 * C0")
    if elements > logical_capacity(source["capacity"], source["dtype"]) or elements > source["rows"] * source["cols"]:
        raise Illegal("the feature map does not fit the source tile")
    if source["dtype"] not in CARRIER_ONLY or destination["dtype"] != source["dtype"]:
        raise Illegal("one carrier-only type")
    if (source["layout"], destination["layout"]) != ("RowMajor", "RowMajor"):
        raise Illegal("RowMajor tiles")
    if (source["location"], destination["location"]) != ("Matrix", "Matrix"):
        raise Illegal("Matrix tiles")
    whole = matrix(fm)
    if not whole or not whole[0]:
        raise Illegal("the filter does not fit the padded feature map")
    rows, cols = destination["valid"]
    if pos_m + rows > len(whole) or pos_k + cols > len(whole[0]):
        raise Illegal("the window leaves the image-to-column matrix")
    window = [row[pos_k:pos_k + cols] for row in whole[pos_m:pos_m + rows]]
    if any(i is not None and i not in source["defined"] for row in window for i in row):
        raise Illegal("a referenced source element is undefined")
    return window


def img2col(fm, source: dict, destination: dict, pos_m: int, pos_k: int, words: dict) -> list:
    """The destination's valid region: each element the source Word at its storage index
    (``words``: index -> Word, as TileReadLogicalElement returns it) or the descriptor's
    padding value's element bits (TileRawElementValue)."""
    padding = full(fm)["padding"] & ((1 << FORMATS[source["dtype"]].width) - 1)
    return [[padding if i is None else words[i] for i in row]
            for row in check(fm, source, destination, pos_m, pos_k)]
