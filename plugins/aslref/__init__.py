"""The executable PTO spec (its ASL under the aslref interpreter) as a pto-avs device.

``device`` (the adapter and ``open_device``), ``program`` (the ASL written per batch
of cases), ``harness.asl`` (our ASL helpers appended after the spec), ``output``
(the interpreter's output read back as observations), ``spec`` (the checkout, the
interpreter, assembling a program and mapping ASL errors back to the spec's sources).
"""
