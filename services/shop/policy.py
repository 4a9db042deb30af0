"""The shop's own rules, as configuration: what the bot promises must be what it enforces.

The demo FAQ says returns are accepted "within 7 days of delivery" and cancellations
"before dispatch"; the defaults below say the same (a test holds them together).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from db.models import OrderStatus

DEFAULT_TIMEZONE = "Asia/Seoul"
DEFAULT_RETURN_WINDOW_DAYS = 7
DEFAULT_RETURNABLE = (OrderStatus.SHIPPED, OrderStatus.DELIVERED)
DEFAULT_CANCELLABLE = (OrderStatus.PENDING, OrderStatus.PAID, OrderStatus.PREPARING)


@dataclass(frozen=True)
class ShopPolicy:
    return_window_days: int = DEFAULT_RETURN_WINDOW_DAYS
    returnable_statuses: tuple[OrderStatus, ...] = DEFAULT_RETURNABLE
    cancellable_statuses: tuple[OrderStatus, ...] = DEFAULT_CANCELLABLE
    timezone: ZoneInfo = field(default_factory=lambda: ZoneInfo(DEFAULT_TIMEZONE))
    tracking_urls: Mapping[str, str] = field(default_factory=dict)
    """The shop's own tracking pages by carrier name (services.orders.tracking)."""

    def return_deadline(self, delivered_at: datetime) -> datetime:
        """The end of the window's last day in the shop's time zone.

        "Within 7 days of delivery" is read as a customer reads it: delivered on the 1st,
        the 8th is the last day, until midnight where the shop is, whatever the hour of delivery.
        """
        local_day = delivered_at.astimezone(self.timezone).date() + timedelta(days=self.return_window_days)
        return datetime.combine(local_day + timedelta(days=1), time(0), tzinfo=self.timezone)

    def within_return_window(self, delivered_at: datetime | None, now: datetime) -> bool:
        """Not delivered yet (or delivery time unknown) is inside: the window has not started."""
        return delivered_at is None or now < self.return_deadline(delivered_at)
