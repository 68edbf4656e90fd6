"""The metrics: one home per formula (scoring rules, decisions and agreement, ranking,
calibration, CORP)."""
