"""customers.csv: `customer_id,name,phone,email`; the phone is what a Telegram contact is matched on."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from services.shop.files.problems import ProblemCollector, open_csv
from services.shop.phone import DEFAULT_COUNTRY_CODE, normalize_phone, plausible_phone

REQUIRED = ("customer_id", "name", "phone")
OPTIONAL = ("email",)
COLUMNS = ("customer_id", "name", "phone", "email")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


@dataclass(frozen=True)
class CustomerRecord:
    customer_id: str
    name: str
    phone: str
    """digits with the country code, as `services.shop.phone.normalize_phone` gives"""
    email: str = ""
    line: int = field(default=0, compare=False)
    given: frozenset[str] = field(default=frozenset(OPTIONAL), compare=False)
    """Optional columns the file has; a file without `email` leaves e-mails as they are."""


def read_customers(
    path: str | Path, country_code: str = DEFAULT_COUNTRY_CODE, problems: ProblemCollector | None = None
) -> tuple[list[CustomerRecord], list[str]]:
    """`country_code` completes numbers written the domestic way (`010-...`)."""
    problems = problems or ProblemCollector(path)
    table = open_csv(path, REQUIRED, OPTIONAL, problems)
    reader, ignored, given = table.rows, table.ignored, table.given
    records: list[CustomerRecord] = []
    ids: dict[str, int] = {}
    phones: dict[str, int] = {}
    for row in reader:
        line = reader.line_num
        if None in row:
            problems.add(line, "", "more values than columns")
            continue

        def value(name: str, row: dict[str, str | None] = row) -> str:
            return (row.get(name) or "").strip()

        before = problems.count
        customer_id, name, raw_phone, email = (
            value("customer_id"),
            value("name"),
            value("phone"),
            value("email"),
        )
        if not customer_id:
            problems.add(line, "customer_id", "empty")
        elif customer_id in ids:
            problems.add(line, "customer_id", f"{customer_id!r} already on line {ids[customer_id]}")
        if not name:
            problems.add(line, "name", "empty")
        phone = normalize_phone(raw_phone, country_code)
        if not raw_phone:
            problems.add(line, "phone", "empty (the phone is how a customer is recognised on Telegram)")
        elif not plausible_phone(phone):
            problems.add(line, "phone", f"{raw_phone!r} is not a phone number")
        elif phone in phones:
            problems.add(line, "phone", f"{raw_phone!r} is the same number as line {phones[phone]}")
        if email and not _EMAIL.match(email):
            problems.add(line, "email", f"{email!r} is not an e-mail address")
        if problems.count > before:
            continue
        ids[customer_id] = line
        phones[phone] = line
        records.append(CustomerRecord(customer_id, name, phone, email, line, given))
    problems.raise_if_any()
    return records, ignored


def write_customers(records: Iterable[CustomerRecord], out: io.TextIOBase | io.StringIO) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for r in records:
        writer.writerow([r.customer_id, r.name, f"+{r.phone}", r.email])
