"""Spec catalogs shipped with pto-avs (see README.md beside this file)."""
import json
from functools import lru_cache
from pathlib import Path

DIR = Path(__file__).resolve().parent


@lru_cache(maxsize=None)
def load(name: str):
    """Parse one of the shipped catalogs, e.g. ``load("tile-avs-catalog")``."""
    return json.loads((DIR / f"{name}.json").read_text())


@lru_cache(maxsize=None)
def operation_names() -> tuple:
    """Every tile operation mnemonic of the AVS catalog, in its order (109 at 0.58.3)."""
    return tuple(unit["mnemonic"] for unit in load("tile-avs-catalog")["units"])
