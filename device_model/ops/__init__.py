"""The modelled operations. Each one joins ``ops.registry`` when its module is
imported; ``ops.installed`` imports them all (the machine does). Every entry is an
``ops.operation.Operation`` (the one protocol, and the TEPL bundle flow every TEPL
operation shares); the twelve CUBE operations are ``cube.CubeOperation`` declarations
(``ops/matmul.py``) whose commit is the CUBE flow."""
