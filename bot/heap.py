"""Keep the garbage collector off what start-up built.

A serving process holds a few hundred thousand long-lived objects once started
(aiogram's and pydantic's classes and schemas, the SQLAlchemy mappers, the
classifier's and the FAQ index's tables). CPython's oldest-generation collection
walks every one of them: measured here at about 0.3 s per collection, a pause of
every chat at once, three times during `bench.streaming_load` (1.0 s of the event
loop's time) and once per few thousand updates in `bench.bot_overhead`. Moving
them to the permanent generation after start-up (`gc.freeze`, CPython >= 3.7)
leaves the collector only what handling updates allocates.
"""

from __future__ import annotations

import gc


def settle_heap() -> int:
    """Collect what start-up left as garbage, then exempt every surviving object from later
    collections; returns how many are exempt. Call once the app is built, before serving.

    Objects frozen here that later become unreachable are still freed by reference counting;
    only cycles among them would stay (start-up objects live as long as the process anyway).
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
