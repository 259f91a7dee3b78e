"""pto-avs reports."""
