"""Campaigns beyond the vectors: mutation self-test, differential fuzzing, exhaustive sweeps."""
