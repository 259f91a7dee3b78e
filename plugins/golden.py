"""The golden model as a device: ``--device golden[:pto-v0|hw-ieee]`` (default pto-v0).

Each case runs on a fresh ``device_model.machine.Machine`` of the chosen profile:
the case's initial state is written through the Machine API, the program runs,
and the snapshot becomes the Observation. The golden model observes every aspect
(memory, memory events, the fault address and shared tiles included: protocol 1.1's
observation) and runs direct calls. Memory events are captured from the start of the
program; a program that records more than the spec's bound of 16 reports no events
(the spec's capture asserts there), so a case expecting events never passes on a log
the spec cannot hold.
"""
from __future__ import annotations

import traceback
from typing import Optional

from ..contract.case import PROFILES, Case, Observation, TileObservation
from ..contract.tile_state import initial_arrays
from .base import Capabilities, Device


class GoldenDevice(Device):
    name = "golden"

    def __init__(self, profile: str):
        from ..device_model.machine import Machine  # the model is only needed once a golden device is opened
        from ..device_model.ops import registry

        self._machine_class = Machine
        self.capabilities = Capabilities(profile=profile, direct_calls=True,
                                         operations=frozenset(registry.names()),
                                         memory=True, events=True, shared_tiles=True, feature_maps=True)

    def execute(self, case: Case) -> Observation:
        machine = self._machine_class(profile=self.capabilities.profile)
        try:
            _set_up(machine, case.state)
        except ValueError as exc:  # the model refused the initial state: the case cannot run
            return Observation.device_error(f"initial state rejected: {exc}")
        try:
            result = machine.run(list(case.program))
        except ValueError as exc:  # a program item the model cannot read (checked before anything runs)
            return Observation.device_error(f"program rejected: {exc}")
        except Exception as exc:  # the model must not raise; if it does, that is this case's device error
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            return Observation.device_error(
                f"golden model raised {type(exc).__name__}: {exc} (at {frame.filename}:{frame.lineno})")
        if result.stopped is not None:  # the program did not run to its end: nothing to judge
            return Observation.device_error(f"the golden model does not model {result.detail}")
        return _observe(machine.snapshot(), result)


def _set_up(machine, state: dict) -> None:
    """Write the initial state (raises ValueError when the model refuses a step)."""
    machine.set_tile_capacity(state["tile_capacity"])
    machine.set_status(state["status"])
    for index, value in state["gprs"].items():
        machine.set_gpr(index, value)
    for pe, registers in state.get("pe_gprs", {}).items():
        for index, value in registers.items():
            machine.set_pe_gpr(pe, index, value)
    memory = state.get("memory")
    if memory is not None:
        machine.set_memory_size(memory["size"])
        for region in memory["regions"]:
            machine.write_memory(region["address"], bytes.fromhex(region["bytes"]))
    for tile in state.get("shared_tiles", []):
        index = tile["index"]
        machine.configure_shared_tile(index, dtype=tile["dtype"], capacity=tile["capacity"], cols=tile["cols"],
                                      valid=tuple(tile["valid"]), layout=tile["layout"], location=tile["location"],
                                      mask=tile["mask"])
        words, defined = initial_arrays(tile, *machine.tile_shape(index, shared=True))
        machine.write_shared_tile(index, words, defined)
    for tile in state["tiles"]:
        index = tile["index"]
        if tile.get("storage_kind") == "predicate":
            machine.configure_predicate_tile(index, capacity=tile["capacity"], rows=tile["rows"], cols=tile["cols"],
                                             valid=tuple(tile["valid"]), mask=tile["mask"])
        else:
            machine.configure_tile(index, dtype=tile["dtype"], capacity=tile["capacity"], cols=tile["cols"],
                                   valid=tuple(tile["valid"]), layout=tile["layout"], location=tile["location"],
                                   mask=tile["mask"])
        words, defined = initial_arrays(tile, *machine.tile_shape(index))
        machine.write_tile(index, words, defined)
        if tile.get("feature_map") is not None:  # set after the contents, as the harness does
            machine.configure_feature_map(index, **tile["feature_map"])


def _observe(snap, result) -> Observation:
    return Observation(fault=result.fault, flags=snap.flags, tiles=_tile_observations(snap.tiles),
                       encoding=list(result.encoding), detail=result.detail or None,
                       fault_address=result.fault_address,
                       memory={"size": len(snap.memory), "hex": snap.memory.hex()},
                       events=None if snap.events_overflowed else [event.to_json() for event in snap.events],
                       shared_tiles=_tile_observations(snap.shared_tiles))


def _tile_observations(views: dict) -> dict:
    """The snapshot's tiles as observed tiles. Words, definedness and storage stay the snapshot's
    own (fresh) arrays, which the comparator reads and ``to_json`` writes as lists: the model's
    answer is not turned into Python lists only to be turned back into arrays."""
    return {
        index: TileObservation(dtype=view.dtype, layout=view.layout, location=view.location, rows=view.rows,
                               cols=view.cols, valid=tuple(view.valid), capacity=view.capacity, mask=view.mask,
                               words=view.words, defined=view.defined,
                               storage=view.storage, **_predicate_members(view))
        for index, view in views.items()}


def _predicate_members(view) -> dict:
    if view.storage_kind != "predicate":
        return {}
    return {"storage_kind": "predicate", "bytes": view.bytes.tolist()}


def check_argument(arg: Optional[str]) -> Optional[str]:
    """Why ``golden:ARG`` is refused (ARG must be a profile), or None."""
    from .base import did_you_mean

    if arg is None or arg in PROFILES:
        return None
    return f"golden profile {arg!r} is not one of {', '.join(PROFILES)}{did_you_mean(arg, PROFILES)}"


def open_device(arg: Optional[str]) -> GoldenDevice:
    problem = check_argument(arg)
    if problem is not None:
        raise ValueError(problem)
    return GoldenDevice(arg or "pto-v0")
