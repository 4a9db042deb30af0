"""What an import did, or would do: the counts, and the first changes by name."""

from __future__ import annotations

from dataclasses import dataclass, field

SHOWN_CHANGES = 20


@dataclass
class ImportReport:
    kind: str
    new: int = 0
    changed: int = 0
    unchanged: int = 0
    details: list[str] = field(default_factory=list)
    hidden: int = 0
    untouched: int = 0
    """rows csbot has that the file does not mention: an import never deletes"""

    def add_new(self, key: str) -> None:
        self.new += 1
        self._detail(f"new {key}")

    def add_changed(self, key: str, fields: list[str]) -> None:
        self.changed += 1
        self._detail(f"changed {key}: {', '.join(fields)}")

    def _detail(self, line: str) -> None:
        if len(self.details) < SHOWN_CHANGES:
            self.details.append(line)
        else:
            self.hidden += 1

    def render(self, *, dry_run: bool) -> str:
        verb = "would import" if dry_run else "imported"
        lines = [
            f"{self.kind}: {verb} {self.new} new, {self.changed} changed, {self.unchanged} unchanged"
            + (" (dry run: nothing written)" if dry_run else "")
        ]
        lines += [f"  {line}" for line in self.details]
        if self.hidden:
            lines.append(f"  ... and {self.hidden} more")
        if self.untouched:
            lines.append(f"  {self.untouched} {self.kind} not in this file are left as they are")
        return "\n".join(lines)
