"""Trying a new model or configuration safely.

- `canary`: arms and their weights at run time, guard rails, rollback;
- `arm_stats`: per-arm figures, measured the same way for each arm;
- `replay`: the period's real questions answered again by a candidate configuration.
"""
