"""The exhaustive element campaigns (avs/campaigns/exhaustive.py, ``pto-avs exhaustive``).

A sampled run agrees with its peers; a golden model broken on known pairs is caught
on exactly those pairs, and the reproducer written for them loads as a vector and
holds the pairs in the tile operation's sources. The full campaigns run from the
command line (docs/campaigns.md); here ``--limit`` samples them.
"""
from __future__ import annotations

import numpy as np
import yaml

from pto_avs.avs import cli
from pto_avs.avs.campaigns import exhaustive
from pto_avs.contract import loader


def test_sampled_campaigns_agree_with_their_peers(capsys):
    assert exhaustive.main(["--campaign", "fp16", "--campaign", "bf16", "--limit", str(3 << 16)]) == 0
    assert exhaustive.main(["--campaign", "fp8", "--limit", "600"]) == 0
    out = capsys.readouterr().out
    assert "fp16 FP16 add  RNE:       196,608 pairs, 0 disagreement(s)" in out
    assert "fp8  E5M2 sqrt RHB:           256 operands, 0 disagreement(s)" in out
    assert out.count("fp8 ") == 2 * 5 * 7


def test_a_broken_golden_model_is_caught_and_reproduced(tmp_path, monkeypatch, capsys):
    real = exhaustive.golden
    planted = {(0x0000, 0x3C00), (0x0000, 0x4000)}  # 0 + 1, 0 + 2 (and 0 * 1, 0 * 2)

    def broken(op, dtype, mode, *operands):
        words, flags = real(op, dtype, mode, *operands)
        hit = np.zeros(words.shape, dtype=bool)
        for a, b in planted:
            hit |= (operands[0] == a) & (operands[1] == b)
        return np.where(hit, words ^ np.uint64(1), words), flags

    monkeypatch.setattr(exhaustive, "golden", broken)
    assert exhaustive.main(["--campaign", "fp16", "--limit", str(1 << 16), "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "fp16 FP16 add  RNE:        65,536 pairs, 2 disagreement(s)" in out
    assert "fp16 FP16 mul  RNE:        65,536 pairs, 2 disagreement(s)" in out
    files = sorted(tmp_path.glob("PTO-AVS-X-FUZZ-*.yaml"))
    assert [f.name.split("-")[4] for f in files] == ["TADD", "TMUL"]
    for path in files:
        document = yaml.safe_load(path.read_text())
        case = document["cases"][0]
        sources = [tile["data"][0] for tile in case["state"]["tiles"]]
        assert sorted(zip(*sources)) == sorted(planted)
        assert "golden 0x3c01" in case["description"] or "golden 0x1" in case["description"]
        loaded = loader.load_file(path)  # a well-formed vector the suite can replay
        assert loaded.error is None and len(loaded.cases) == 1, loaded.error


def test_the_command_is_registered():
    parser = cli.build_parser()
    args = parser.parse_args(["exhaustive", "--campaign", "fp8", "--limit", "10"])
    assert args.handler is exhaustive.run and args.campaign == ["fp8"] and args.limit == 10
