"""pto-avs avs."""
