"""`pytest avs/`: every vector case on every selected device.

The pto_avs pytest plugin (``pto_avs.avs.pytest_plugin``, registered through the ``pytest11``
entry point) replaces the function below, at collection, with one test per vector
case and device. Without the plugin the function runs and says what is missing.
"""
import pytest

from .pytest_plugin import conformance_suite

pytestmark = pytest.mark.slow  # every vector case on every device: 17k items, minutes (the plugin reads no file under -m "not slow")


@conformance_suite
def test_conformance():
    pytest.fail("the pto_avs pytest plugin is not active: install pto-avs (pip install -e .) "
                "or load it with -p pto_avs.avs.pytest_plugin")
