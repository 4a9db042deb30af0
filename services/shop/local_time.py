"""Times as the shop's people and customers read them: in the shop's time zone.

Stored times are UTC. Every time shown, to a customer, in a staff brief, in the console, goes
through here, so a tracking event at 06:40 in Seoul is never shown as the previous day's 21:40.
"""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo


def in_zone(moment: datetime, zone: tzinfo) -> datetime:
    """`moment` where the shop is; a naive time (as SQLite returns it) is read as UTC."""
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(zone)


def local_day(moment: datetime, zone: tzinfo) -> str:
    """`2026-11-27`: the shop's calendar day of `moment`."""
    return f"{in_zone(moment, zone):%Y-%m-%d}"


def local_minute(moment: datetime, zone: tzinfo) -> str:
    """`2026-12-01 06:40 KST`: with the zone's name, since a customer abroad could read it as theirs."""
    local = in_zone(moment, zone)
    return f"{local:%Y-%m-%d %H:%M} {local.tzname() or ''}".rstrip()


def local_second(moment: datetime, zone: tzinfo) -> str:
    """`2026-12-01 06:40:05 KST`, for the console's logs."""
    local = in_zone(moment, zone)
    return f"{local:%Y-%m-%d %H:%M:%S} {local.tzname() or ''}".rstrip()
