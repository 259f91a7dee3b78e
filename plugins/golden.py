"""The golden model as a device: ``--device golden[:pto-v0|hw-ieee]`` (default pto-v0).

Each case runs on a fresh ``device_model.machine.Machine`` of the chosen profile:
the case's initial state is written through the Machine API, the program runs,
and the snapshot becomes the Observation. The golden model observes every aspect
and runs direct calls.
"""
from __future__ import annotations

import traceback
from typing import Optional

from avs.case import PROFILES, Case, Observation, TileObservation
from avs.tile_state import initial_arrays
from plugins.base import Capabilities, Device


class GoldenDevice(Device):
    name = "golden"

    def __init__(self, profile: str):
        from device_model.machine import Machine  # the model is only needed once a golden device is opened

        self._machine_class = Machine
        self.capabilities = Capabilities(profile=profile, direct_calls=True)

    def execute(self, case: Case) -> Observation:
        try:
            machine = self._machine_class(profile=self.capabilities.profile)
            problem = _set_up(machine, case.state)
            if problem is not None:
                return Observation.device_error(problem)
            result = machine.run(list(case.program))
            return _observe(machine, result)
        except Exception as exc:  # the model must not raise; if it does, that is this case's device error
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            return Observation.device_error(
                f"golden model raised {type(exc).__name__}: {exc} (at {frame.filename}:{frame.lineno})")


def _set_up(machine, state: dict) -> Optional[str]:
    """Write the initial state; a rejected setup step is reported, not raised."""
    machine.set_tile_capacity(state["tile_capacity"])
    machine.set_status(state["status"])
    for index, value in state["gprs"].items():
        machine.set_gpr(index, value)
    for tile in state["tiles"]:
        index = tile["index"]
        try:
            machine.configure_tile(index, dtype=tile["dtype"], capacity=tile["capacity"], cols=tile["cols"],
                                   valid=tuple(tile["valid"]), layout=tile["layout"], location=tile["location"],
                                   mask=tile["mask"])
            view = machine.snapshot().tiles[index]
            words, defined = initial_arrays(tile, view.rows, view.cols)
            machine.write_tile(index, words, defined)
        except ValueError as exc:
            return f"initial state of tile {index} rejected: {exc}"
    return None


def _observe(machine, result) -> Observation:
    snap = machine.snapshot()
    tiles = {}
    for index, view in snap.tiles.items():
        tiles[int(index)] = TileObservation(
            dtype=str(getattr(view.dtype, "name", view.dtype)),
            layout=str(view.layout),
            location=str(view.location),
            rows=int(view.rows),
            cols=int(view.cols),
            valid=tuple(int(v) for v in view.valid),
            capacity=int(view.capacity),
            mask=view.mask if isinstance(view.mask, str) else format(int(view.mask), "04b"),
            words=view.words.tolist(),
            defined=view.defined.tolist(),
            storage=None if view.storage is None else view.storage.tolist(),
        )
    return Observation(fault=result.fault, flags=int(snap.flags), tiles=tiles,
                       encoding=[int(w) for w in result.encoding])


def open_device(arg: Optional[str]) -> GoldenDevice:
    profile = arg or "pto-v0"
    if profile not in PROFILES:
        raise ValueError(f"golden profile {profile!r} is not one of {', '.join(PROFILES)}")
    return GoldenDevice(profile)
