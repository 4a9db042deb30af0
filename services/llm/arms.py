"""Weighted arms: which configuration answers which customer.

A customer is placed by a stable hash of their user id, so they meet one model for
the whole conversation and per-arm numbers compare like with like. Canaries take
the top of the hash range, in configured order from the top, and the baseline
keeps the rest: raising a canary from 5% to 25% keeps its first 5% in it (and
only adds customers), so a schedule never shuffles anyone between models.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from services.faq.lookup import FaqLookupAnswerer
from services.llm.config import LLMRoles
from services.llm.gateway import LLMGateway
from services.llm.speculative import AnswerRequest, SpeculativeAnswerer, VerifiedAnswer

BUCKETS = 10_000
"""Resolution of a weight: 0.01 percent."""


def bucket(user_id: int, salt: str) -> int:
    """Where a customer sits in [0, BUCKETS): the same on every process and every restart."""
    digest = hashlib.blake2b(f"{salt}:{user_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % BUCKETS


def choose_arm(
    user_id: int | None, baseline: str, canaries: Sequence[tuple[str, float]], *, salt: str
) -> str:
    """The arm serving this customer; `canaries` are (name, percent) in configured order.

    Nobody without a user id (a channel post) is experimented on.
    """
    if user_id is None:
        return baseline
    position = bucket(user_id, salt)
    top = BUCKETS
    for name, percent in canaries:
        low = top - round(percent * BUCKETS / 100)
        if position >= low:  # an arm of 0 buckets takes none: the positions above it were taken
            return name
        top = low
    return baseline


class ArmAnswerer(SpeculativeAnswerer):
    """The answerer of one arm: every reply report it starts carries the arm's name."""

    def __init__(self, arm: str, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.arm = arm

    def stream(self, request: AnswerRequest) -> VerifiedAnswer:
        answer = super().stream(request)
        answer.report.arm = self.arm
        return answer


@dataclass
class ArmSet:
    """The answerers of every configured arm, over one shared FAQ index."""

    roles: LLMRoles
    answerers: dict[str, ArmAnswerer]
    gateways: dict[str, LLMGateway]

    @classmethod
    def build(cls, roles: LLMRoles, lookup: FaqLookupAnswerer, *, temperature: float = 0.0) -> ArmSet:
        answerers: dict[str, ArmAnswerer] = {}
        gateways: dict[str, LLMGateway] = {}
        for name in [roles.baseline, *(arm.name for arm in roles.arms)]:
            own = roles.arm_roles(name)
            gateway = LLMGateway(own) if own.target else None
            if gateway is not None:
                gateways[name] = gateway
            answerers[name] = ArmAnswerer(
                name,
                lookup,
                gateway,
                temperature=temperature,
                retrieval_check=own.retrieval_check,
                reply_deadline=own.reply_deadline,
            )
        return cls(roles, answerers, gateways)

    @property
    def baseline(self) -> ArmAnswerer:
        return self.answerers[self.roles.baseline]

    @property
    def canary_names(self) -> list[str]:
        return [arm.name for arm in self.roles.arms]

    def choose(self, user_id: int | None, weights: Mapping[str, float]) -> str:
        """The arm for this customer under `weights` (percent per canary; missing means configured)."""
        canaries = [(arm.name, weights.get(arm.name, arm.weight)) for arm in self.roles.arms]
        return choose_arm(user_id, self.roles.baseline, canaries, salt=self.roles.arm_salt)

    async def settled(self) -> None:
        for answerer in self.answerers.values():
            await answerer.settled()

    async def close(self) -> None:
        for gateway in self.gateways.values():
            await gateway.close()
