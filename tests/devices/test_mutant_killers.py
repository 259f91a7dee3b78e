"""Mutants pinned to the one shipped case that kills each (plugins/mutants.py): the mutant fails
that case and the golden model passes it. A family adds its mutants to KILLERS as it lands; the
strength mutants, which a whole class of cases kills, are tests/devices/test_mutants_strength.py."""
from __future__ import annotations

import pytest

from pto_avs.avs.campaigns import mutation
from pto_avs.contract.loader import VECTORS_DIR

KILLERS = {  # mutant -> the case that kills it (the mechanism it pins)
    # generation, histogram, dequantization, gather/scatter
    "tci-direction-inverted": "PTO-AVS-TILE-TCI-WRAP-001::all-ones-start-descending",  # B.IOR direction bit
    "histogram-bin-255-overflow": "PTO-AVS-TILE-THISTOGRAM-PREFIX-001::u16-inclusive-prefix",  # bin 255 its own
    "index-off-by-one": "PTO-AVS-X-TGATHER-REF-001::index-equals-rows-defined-beyond",  # index < valid rows
    "scatter-duplicate-accepted": "PTO-AVS-TILE-TSCATTER-DUP-001::duplicate-target",  # a target written once
    "tdequant-double-rounding": "PTO-AVS-X-TDEQUANT-REF-001::s8-tenth-zp-max-none-flags-0x10",  # one rounding
    # reductions
    "reduction-fold-reassociated": "PTO-AVS-X-TROWSUM-REF-001::order-fp32-finite-nx-hw-ieee",  # fold order
    "reduction-tie-last-index": "PTO-AVS-TILE-TROWARGMAX-TIE-001::direct-call",  # tie index
    "reduction-nan-propagates": "PTO-AVS-X-TROWMAX-REF-001::pairs-fp32-noflag",  # NaN handling
    "reduction-reads-padding": "PTO-AVS-X-TROWSUM-REF-001::partial-region-u16",  # padding read into a sum
    "reduction-extreme-from-zero": "PTO-AVS-X-TROWMAX-REF-001::pairs-s8-noflag",  # the first element starts
    "reduction-status-dropped": "PTO-AVS-X-TROWMAX-REF-001::pairs-fp32-finite-nv",  # flags ORed and recorded
    # broadcasts and partial operations
    "broadcast-shape-unchecked": "PTO-AVS-X-TROWEXPANDADD-REF-001::broadcast-shape-direct",
    "broadcast-first-element": "PTO-AVS-X-TROWEXPANDSUB-REF-001::region-bundle",
    "broadcast-padding-skipped": "PTO-AVS-X-TCOLEXPANDMUL-REF-001::region-pad-max",
    "broadcast-status-dropped": "PTO-AVS-X-TROWEXPANDDIV-REF-001::float-zero-divisor-pto-v0",
    "expdif-no-discriminator": "PTO-AVS-TILE-EXPDIF-STAGE3-DECODED-001::04-row-fp16-fp32-fp32-pto-v0",
    "expdif-source-precision": "PTO-AVS-TILE-EXPDIF-STAGE3-DECODED-001::09-column-fp16-fp32-fp32-hw-ieee",
    "partial-tail-zeroed": "PTO-AVS-TILE-TPARTADD-OVERLAP-001::direct-call",
    # sorting
    "sort-unstable": "PTO-AVS-X-TSORT-REF-001::classes-fp32-ascending",  # equal keys keep source order
    "sort-nan-by-bits": "PTO-AVS-X-TSORT-REF-001::classes-fp32-descending",  # NaNs last in both directions
    "sort-index-one-based": "PTO-AVS-TILE-TSORT-BUNDLE-001::spec-bundle",  # within-group indices from 0
    "sort-second-destination-not-reserved": "PTO-AVS-TILE-TSORT-BUNDLE-001::both-destinations-one-hand",  # rename
    "merge-ties-right-first": "PTO-AVS-TILE-TMRGSORT-STABLE-001::spec-direct-call",  # the left stream wins ties
    # rearrangements
    "tinsert-old-destination-ignored": "PTO-AVS-TILE-TINSERT-OLD-001::direct-call",  # uncovered old Words persist
    "ttrans-transposed-pitch": "PTO-AVS-TILE-TTRANS-RECT-001::direct-call",  # a non-square region
    "textract-offset-off-by-one": "PTO-AVS-TILE-TEXTRACT-WINDOW-001::direct-call",  # the window at the offsets
    "tfillpad-fills-valid-region": "PTO-AVS-TILE-TFILLPAD-SCALAR-001::direct-call",  # the copy survives the fill
    "img2col-stride-off-by-one": "PTO-AVS-X-TIMG2COL-REF-001::dilation-2-stride-2",  # output row r at r * stride
    "img2col-dilation-off-by-one": "PTO-AVS-X-TIMG2COL-REF-001::dilation-2x2",  # taps dilation apart
    "img2col-padding-zero": "PTO-AVS-TILE-TIMG2COL-PAD-001::direct-call",  # the descriptor's padding value
    # global memory (TLOAD, TSTORE, TPREFETCH)
    # tile-to-tile moves (TMOV, GMOV)
    "move-drops-padding": "PTO-AVS-X-TMOV-REF-001::padding-copied-with-its-definedness",  # whole payload
    "gmov-peer-of-pe0-only": "PTO-AVS-X-GMOV-REF-001::peer-tid-4-in-pe-3",  # each PE's own GPR file
    "shared-store-pe-bits-reversed": "PTO-AVS-X-TSTORE-SHARED-001::spart-one-pe",  # PE p is mask bit 3 - p
    "tload-shared-mask-ignored": "PTO-AVS-X-TLOAD-SHARED-001::one-quarter-others-undefined",  # B.IOS mask
    "catr-order-lost": "PTO-AVS-X-TLOAD-ORDER-001::acquire",  # B.CATR aq gives every event Acquire
    "memory-alignment-off-by-one": "PTO-AVS-X-TLOAD-REF-001::alignment-fault-first-element",  # U16 at an odd base
    "memory-page-boundary-off-by-one": "PTO-AVS-X-TLOAD-REF-001::top-of-memory-fits",  # ends at the last byte
    "tstore-stores-padding": "PTO-AVS-X-TSTORE-REF-001::dense-default-source-columns",  # only valid columns
    "memory-events-reversed": "PTO-AVS-TILE-TLOAD-DIRECT-001::direct-u64-2x2-stride-32",  # row-major events
    # the indexed memory operations (MGATHER.., MSCATTER..)
    "indexed-mask-inverted": "PTO-AVS-TILE-MGATHER-MASK-LANES-001::lanes-u8-pad-zero",  # exact-one lanes
    "scatter-dedup-before-mask": "PTO-AVS-X-MSCATTER-MASK-REF-001::duplicate-last-lane-disabled",  # mask first
    "cas-expected-of-next-lane": "PTO-AVS-TILE-MGATHER-CAS-RMW-001::rmw-u8-match-and-mismatch",  # lane's own
    "gather-index-scaled": "PTO-AVS-TILE-MGATHER-BYTES-001::bytes-signed-displacement",  # byte displacement
    "four-bit-index-unsigned": "PTO-AVS-X-MSCATTER-REF-001::index-s4x2",  # S4X2 nibble sign-extended
    "gather-null-pad-undefined": "PTO-AVS-TILE-MGATHER-BYTES-001::bytes-u8-pad-null-defined",  # whole tile defined
    # the CUBE matrix engine
    "bias-before-dot-product": "PTO-AVS-X-TMATMUL-BIAS-REF-001::fp16-x-fp16-m16-n1-k33-m16-hw-ieee",  # bias last
    "u8-accumulates-as-s32": "PTO-AVS-X-TMATMUL-REF-001::u8-x-u8-m17-n3-k33-m32-pto-v0",  # U8 -> U32 class
    "mx-scale-per-k": "PTO-AVS-X-TMATMUL-MX-REF-001::e2m1x2-x-fp16-m3-n2-k33-m32-pto-v0",  # one scale per 32 K
    "k-order-reversed": "PTO-AVS-X-TMATMUL-REF-001::fp16-x-fp16-m16-n1-k33-m16-hw-ieee",  # increasing K
    "shared-transb-ignored": "PTO-AVS-X-TMATMUL-SHARED-001::b-shared-transb-pto-v0",  # B(k, n) = S(n, k)
}


@pytest.fixture(scope="module")
def golden_verdicts():
    return mutation.GoldenVerdicts()


@pytest.mark.parametrize("name", sorted(KILLERS))
def test_the_named_case_kills_the_mutant(name, golden_verdicts):
    killer = KILLERS[name]
    cases, errors = mutation.load_cases([VECTORS_DIR / f"{killer.split('::', 1)[0]}.yaml"])
    assert not errors, errors
    case = [c for c in cases if c.id == killer]
    assert case, f"{killer} is not a shipped case"
    result = mutation.run_mutant(name, case, golden_verdicts)
    assert result.killers == [killer], f"{name} survives {killer}"
