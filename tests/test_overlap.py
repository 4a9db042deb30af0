"""What a model repeats when told to continue is cut, wherever in the recent text it comes from."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from services.llm.overlap import MIN_OVERLAP_CHARS, strip_overlap, without_repeats

SHOWN = (
    "Orders paid by 2 p.m. on a weekday ship the same day and usually arrive the next day. "
    "Orders after 2 p.m. or on weekends ship the next business day. "
)
REST = "Jeju takes 1-2 days more."


@pytest.mark.parametrize("repeat", [6, 20, 48, 60, 100, len(SHOWN)])
def test_a_repeat_of_the_end_of_the_shown_text_is_cut_whatever_its_length(repeat: int) -> None:
    assert strip_overlap(SHOWN, SHOWN[-repeat:] + REST) == REST


def test_a_repeated_sentence_from_the_middle_is_cut_a_changed_one_stands() -> None:
    middle = "Orders paid by 2 p.m. on a weekday ship the same day and usually arrive the next day. "
    assert strip_overlap(SHOWN, middle + REST) == REST
    changed = "Orders after 2 p.m. ship in a week."
    assert strip_overlap(SHOWN, changed) == changed, "restating a sentence to change it is not a repeat"
    assert strip_overlap(SHOWN, REST) == REST
    # repeated up to where the shown sentence went on, or with another stop: the stop goes too
    shorter = "Orders paid by 2 p.m. on a weekday ship the same day. " + REST
    assert strip_overlap(SHOWN, shorter) == REST
    exclaimed = "Orders after 2 p.m. or on weekends ship the next business day! " + REST
    assert strip_overlap(SHOWN, exclaimed) == REST
    # changed in its last letter, just before its stop: the stop ends no repeated sentence
    last_letter = "Orders paid by 2 p.m. on a weekday ship the same days. Jeju takes longer."
    assert strip_overlap(SHOWN, last_letter) == last_letter


@pytest.mark.parametrize(
    ("sentence", "cut"), [("We wrap gifts for a fee.", True), ("We wrap gifts for fees.", False)]
)
def test_an_inner_repeat_counts_from_24_characters(sentence: str, cut: bool) -> None:
    """A sentence from the middle said again is cut from `MIN_INNER_REPEAT_CHARS` (24) characters
    with its stop; a shorter one may be chance and stands."""
    shown = f"{sentence} Orders ship on weekdays and arrive the next day. "
    continued = f"{sentence} Jeju takes longer."
    assert strip_overlap(shown, continued) == ("Jeju takes longer." if cut else continued)


async def _pieces(text: str, size: int = 7) -> AsyncIterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]


@pytest.mark.parametrize("repeat", [0, 60, 100])
async def test_streamed_continuations_are_held_back_only_while_they_may_repeat(repeat: int) -> None:
    continuation = SHOWN[len(SHOWN) - repeat :] + REST
    released = [piece async for piece in without_repeats(SHOWN, _pieces(continuation))]
    assert "".join(released) == REST
    if not repeat:
        assert released[0] == REST[:7], "text that repeats nothing is not held back"


@pytest.mark.parametrize(
    ("continuation", "released"),
    [
        ("Busan", "Busan"),  # shorter than any repeat could be: still sent when the stream ends
        (SHOWN[-40:], ""),  # the end of the shown text again, and nothing after it
        (SHOWN[-40:] + " Yes.", " Yes."),
    ],
)
async def test_what_is_held_back_at_the_end_of_the_stream_is_sent_unless_a_repeat(
    continuation: str, released: str
) -> None:
    assert "".join([piece async for piece in without_repeats(SHOWN, _pieces(continuation, 100))]) == released


def test_words_said_again_of_something_else_are_kept() -> None:
    """The shown text stopped inside a sentence; its continuation says of Busan what was said of
    Seoul: no repeat to cut, however long the shared words."""
    shown = "Seoul: delivery usually takes one to two days.\nBusan"
    going_on = ": delivery usually takes one to two days."
    assert strip_overlap(shown, going_on) == going_on
    restart = "Seoul: delivery usually takes one to two days.\nBusan: two to three days."
    assert strip_overlap(shown, restart) == ": two to three days.", "a restart from the top is still cut"


async def test_a_continuation_is_released_as_soon_as_it_cannot_be_a_repeat() -> None:
    """A continuation that shares nothing with the text shown is released once it is as long as the
    shortest repeat looked for, not one piece later: the customer sees it streaming."""
    taken = 0

    async def one_at_a_time() -> AsyncIterator[str]:
        nonlocal taken
        for character in "Zyxwvutsrq"[: MIN_OVERLAP_CHARS + 2]:
            taken += 1
            yield character

    stream = without_repeats(SHOWN, one_at_a_time())
    first = await anext(stream)
    assert (first, taken) == ("Zyxwvutsrq"[:MIN_OVERLAP_CHARS], MIN_OVERLAP_CHARS)
