"""pto-avs plugins."""
