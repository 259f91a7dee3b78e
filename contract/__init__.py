"""pto-avs contract: what a case is (vector format, loader), what a device observes, and how an observation is judged.

Below the devices, the runner and the reports; above the golden model only for data types and layouts.
"""
