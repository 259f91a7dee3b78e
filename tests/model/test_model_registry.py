"""The operation registry: the block state machine names no operation, operations
join the registry, and nothing imports in a cycle."""
from __future__ import annotations

import io
import subprocess
import sys
import tokenize
from pathlib import Path
from unittest import mock

import pytest

from pto_avs.device_model import block
from pto_avs.device_model.machine import Machine
from pto_avs.device_model.ops import registry, tcvt
from pto_avs.device_model.ops.common import Publication
from pto_avs.device_model.ops.operation import PROTOCOL, Operation, OperationModule
from pto_avs.device_model.encoding.names import TEPL_OPS
from model_support import unregistered_tepl_operation

MODEL = Path(block.__file__).resolve().parent


def _code_words(path: Path) -> set:
    """Names and string contents of a module's code (comments left out)."""
    words = set()
    for token in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if token.type in (tokenize.NAME, tokenize.STRING):
            words.update(token.string.replace('"', " ").replace("'", " ").replace(",", " ").split())
    return words


def test_block_names_no_operation():
    named = _code_words(MODEL / "block.py") & (set(TEPL_OPS) | set(registry.names()))
    assert not named, f"block.py names operations {sorted(named)}"


@pytest.mark.slow  # a fresh interpreter per module
@pytest.mark.parametrize("module", ["block", "machine", "ops.registry", "ops.operation", "ops.tcvt", "ops.tquant",
                                    "ops.tmuls", "ops.cube", "ops.matmul", "ops.elementwise", "ops.tand", "ops.installed",
                                    "ops.predicate", "ops.tcmp", "ops.tsels"])
def test_each_module_imports_first_without_a_cycle(module):
    """A cycle shows as an ImportError or AttributeError when a module of the cycle is
    the first one imported into a fresh interpreter."""
    code = f"import pto_avs.device_model.{module}"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_block_imports_no_operation_module():
    code = ("import sys, pto_avs.device_model.block; "
            "print(sorted(m for m in sys.modules if m.startswith('pto_avs.device_model.ops.')))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "['pto_avs.device_model.ops.registry']"


def test_the_four_operations_joined():
    assert {"TCVT", "TQUANT", "TMULS", "TGEMV_MX_ACC"} <= set(registry.names())
    for name in registry.names():
        entry = registry.find(name)
        assert entry.NAME == name
        assert entry.BSTART == "BSTART.TEPL" or entry.MATRIX or getattr(entry, "TLSU", False)


def test_every_entry_satisfies_the_one_protocol():
    """Every entry is an Operation: a declaration of one of its kinds, or an operation
    module wrapped in OperationModule. Only a Matrix (CUBE) entry and a memory-flow (TLSU)
    entry bring a commit flow of their own; every TEPL entry commits through the one TEPL
    flow. A memory-flow entry runs through its block only (its check_call refuses a call)."""
    for name in registry.names():
        entry = registry.find(name)
        assert isinstance(entry, Operation), name
        assert all(getattr(entry, member) is not None for member in PROTOCOL), name
        own_flow = getattr(entry.commit_bundle, "__func__", entry.commit_bundle) is not Operation.commit_bundle
        tlsu = getattr(entry, "TLSU", False)
        assert own_flow == (entry.MATRIX or tlsu), name
        assert isinstance(entry, OperationModule) or own_flow or type(entry).commit_bundle is Operation.commit_bundle, name
        if not own_flow:  # the TEPL flow's hooks that have no default are given
            assert _given(entry, "closed_schema_check") or _given(entry, "schema_legal"), name
            assert _given(entry, "execute_bundle") or _given(entry, "run"), name
        assert _given(entry, "direct") or _given(entry, "run") or (tlsu and _given(entry, "check_call")), name


def _given(entry, member: str) -> bool:
    """Whether ``entry`` gives ``member`` itself rather than the base's default."""
    found = getattr(entry, member)
    return getattr(found, "__func__", found) is not getattr(Operation, member)


def test_a_module_operation_reads_its_members_at_call_time():
    """A protocol member the module defines wins over the base's default, read when it is
    used (so a mutant can replace one module function); the others are the base's."""
    entry = registry.find("TCVT")
    assert entry.check_call({}) is None and not hasattr(tcvt, "check_call")
    with mock.patch.object(tcvt, "check_call", lambda call: "the module's", create=True):
        assert entry.check_call({}) == "the module's"
    with mock.patch.object(tcvt, "DATR_ALLOWED", frozenset()):
        assert entry.DATR_ALLOWED == frozenset()
    assert "Layout" in entry.DATR_ALLOWED and entry.pair_supported is tcvt.pair_supported


def test_a_name_joins_once():
    with pytest.raises(ValueError, match="already registered"):
        registry.register(registry.find("TCVT"))


@pytest.fixture
def unregistered():
    """A TEPL operation (of any Mode) the model does not execute (model_support)."""
    with unregistered_tepl_operation() as name:
        yield name


class _FillOne:
    """A stand-in operation that publishes a fixed tile: joining the registry is all
    it takes for the block machine to execute it."""

    BSTART = "BSTART.TEPL"
    MATRIX = False
    DIRECT_ARGUMENTS = {"dst": registry.REQUIRED}

    def __init__(self, name, template):
        self.NAME, self.template = name, template

    def commit_bundle(self, state, block_state, profile):
        return Publication({5: self.template}, 0x10)

    def direct(self, state, call, profile):
        return Publication({call["dst"]: self.template}, 0x01)

    def check_call(self, call):
        pass


def test_a_registered_operation_runs_without_block_changes(unregistered):
    name = unregistered
    m = Machine()
    m.configure_tile(1, "U8", 128, cols=8, valid=(1, 2))
    template = m._state.tiles[1]
    program = f"BSTART.TEPL {name}, U8; B.DIM LB0=2; B.IOT T1, mask=1111, <last>, ->T<1>; BSTOP"
    assert m.run(program).stopped  # not modelled yet
    entries = {**registry.OPERATIONS, name: _FillOne(name, template)}
    with mock.patch.object(registry, "OPERATIONS", entries):
        result = m.run(program)
        assert result.fault is None and not result.stopped
        assert 5 in m.snapshot().tiles and m.snapshot().flags == 0x10
        m.run([{"call": name, "dst": 7}])
        assert 7 in m.snapshot().tiles and m.snapshot().flags == 0x11
    with pytest.raises(ValueError, match="direct call"):
        m.run([{"call": name, "dst": 8}])


TCVT_BLOCK = ("BSTART.VEC TCVT, U8; B.DATR U16, NORM, Null; B.DIM LB0=2; B.DIM LB2=8; "
              "B.IOT T1, mask=1111, <last>, ->T<2>")


def _tcvt_machine():
    m = Machine()
    m.configure_tile(1, "U8", 128, cols=8, valid=(1, 2))
    m.write_tile(1, [[7, 9]])
    return m


def test_unmodelled_bstart_completes_the_open_block_like_a_modelled_one(unregistered):
    """Issue 12: a BSTART of an operation the model does not execute still completes the
    open block (CompleteBundleAt), keeping its effects, then stops as 'not modelled'."""
    name = unregistered
    stopped, modelled = _tcvt_machine(), _tcvt_machine()
    result = stopped.run(f"{TCVT_BLOCK}; BSTART.TEPL {name}, U8; BSTOP")
    assert result.fault is None and result.outcome == "not modelled" and result.step == 5
    assert modelled.run(f"{TCVT_BLOCK}; {TCVT_BLOCK.split(';')[0]}").outcome == "completed"
    assert 0 in stopped.snapshot().tiles and stopped.snapshot().tiles[0].words[0, :2].tolist() == [7, 9]
    assert stopped.snapshot().same_as(modelled.snapshot())


def test_unmodelled_bstart_reports_the_open_blocks_fault(unregistered):
    name = unregistered
    m = _tcvt_machine()
    before = m.snapshot()
    result = m.run(f"{TCVT_BLOCK.replace('LB0=2', 'LB0=3')}; BSTART.TEPL {name}, U8")
    assert result.outcome == "fault" and result.fault == "Fault_TileLegality" and result.step == 5
    assert m.snapshot().same_as(before)


def test_unmodelled_branch_bstart_leaves_the_open_block_and_says_so():
    """A BSTART whose descriptor and target checks the model does not know (BSTART.STD)
    cannot complete the block the spec's way: the run stops and says the block is open."""
    m = _tcvt_machine()
    result = m.run([TCVT_BLOCK, 0x00001001])
    assert result.outcome == "not modelled" and "not completed" in result.detail
    assert 0 not in m.snapshot().tiles
