"""``python -m pto_avs.vectors.reference generate|check [OPERATION...]`` (see engine.py)."""
import sys

from .engine import main

sys.exit(main())
