"""Imports every operation module, so each joins ``ops.registry``."""
from . import tcvt, tgemv, tmuls, tquant  # noqa: F401
