"""The modelled operations. Each one joins ``ops.registry`` when its module is
imported; ``ops.installed`` imports them all (the machine does). TEPL operations
share the bundle flow in ``ops.tepl``; TGEMV_MX_ACC has its own CUBE path."""
