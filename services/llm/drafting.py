"""Whether the drafter model is worth a reply's time: learned from how much of its drafts the target keeps."""

from __future__ import annotations

from dataclasses import dataclass

DRAFTER_ACCEPTANCE_START = 0.5
DRAFTER_ACCEPTANCE_FLOOR = 0.3
"""Below this recent acceptance the drafter model costs more time than it saves: skip it."""
DRAFTER_PROBE_EVERY = 10
"""A skipped drafter still drafts one reply in this many, so it can earn its place back."""
DRAFTER_SMOOTHING = 0.3


@dataclass
class DrafterPolicy:
    acceptance: float = DRAFTER_ACCEPTANCE_START
    _skipped: int = 0

    def worth_trying(self) -> bool:
        """Below the acceptance floor the drafter costs more than it saves, but a bad streak passes."""
        if self.acceptance >= DRAFTER_ACCEPTANCE_FLOOR:
            return True
        self._skipped += 1
        if self._skipped < DRAFTER_PROBE_EVERY:
            return False
        self._skipped = 0
        return True

    def record(self, drafted: int, accepted: int) -> None:
        if drafted:
            self.acceptance += DRAFTER_SMOOTHING * (accepted / drafted - self.acceptance)
