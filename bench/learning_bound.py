"""What filing a shop's customers' questions can give back offline: the learning curve's ceiling.

    .venv/bin/python -m bench.learning_bound          # every FAQ in the customer's voice
    .venv/bin/python -m bench.learning_bound --held-out   # the held-out ones only
    .venv/bin/python -m bench.learning_bound --as-written # nothing filed, every question read
    .venv/bin/python -m bench.learning_bound --fit-on-tuning  # a model of every signal, tuning -> held out

For each FAQ in the customer's voice, the covered questions of the first half of its file are filed
under their entries (as `csbot eval --learn 0.5` does) and the second half is read with every
signal the bot has, after learning: the matcher's calibrated evidence (services/faq/matcher.py),
the second look's (services/faq/second_look.py) and the nearest filed question by meaning (e5).
It prints, per FAQ:

- `top1`: covered questions whose closest entry after learning is right: no bar on any
  confidence can answer more of them;
- `nearest_filed`: covered questions whose nearest filed customer question (e5) was filed
  under the right entry: what learning by example could lean on;
- `bot`: the bot's own coverage and false answers after learning (as `csbot eval --learn`);
- `oracle`: the most covered questions answered right with at most 2% of all the questions
  answered wrong, by the best bar on one signal and by a logistic model over all of them, each
  fitted and chosen *on that very half* (an oracle: a bound, not a bar the bot could use);
- `cross_validated`: the logistic model fitted on the other FAQs' halves, its bar the one that keeps
  them within the budget: what a learnt bar could do on a FAQ it never saw.

The last line is the mean over the FAQs; the learning curve's goal is coverage 0.60 at 2% false.
`--as-written` reads every question of the FAQs as published (nothing filed): the same ceilings for
coverage itself, whose goal is 0.25. `--fit-on-tuning` fits the logistic model on the tuning FAQs
only and asks the held-out ones: what answering on every signal would trade on FAQs it never saw.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np

from bench.calibrate import fit_logistic
from bench.eval_sets import DATA, HELD_OUT_VOICE_FAQ, TUNING_VOICE_FAQ, demo_classifier, faq_documents
from services.faq.evaluation import Question, evaluate, file_examples, language_of, load_questions
from services.faq.lookup import FaqLookupAnswerer
from services.faq.matcher import FEATURES as MATCHER_FEATURES
from services.faq.matcher import FaqMatcher
from services.faq.second_look import FEATURES as SECOND_LOOK_FEATURES
from services.understanding.retrieval_encoder import shared_retrieval_encoder

FALSE_BUDGET = 0.02


@dataclass
class Half:
    """The second half of one FAQ's questions, read after the first half was filed."""

    name: str
    questions: int
    covered: int
    signals: dict[str, np.ndarray]
    right: np.ndarray
    """Per question: covered and its closest entry (after learning) is right."""
    nearest_filed_right: int


def split(questions: list[Question], *, learn: bool) -> tuple[list[Question], list[Question]]:
    """The questions filed and the questions asked: the first half and the second, or (`learn`
    False) none and all of them."""
    if not learn:
        return [], questions
    cut = round(len(questions) / 2)
    return questions[:cut], questions[cut:]


def taught(
    faq: str, questions_file: str, *, learn: bool
) -> tuple[FaqLookupAnswerer, list[Question], list[Question]]:
    """The FAQ after filing (`split`), the questions filed and the questions asked."""
    day_one, day_two = split(load_questions(DATA / questions_file), learn=learn)
    return FaqLookupAnswerer(file_examples(faq_documents(faq), day_one)), day_one, day_two


def read_half(faq: str, questions_file: str, *, learn: bool = True) -> Half:
    return read(questions_file, *taught(faq, questions_file, learn=learn))


def read(name: str, lookup: FaqLookupAnswerer, day_one: list[Question], day_two: list[Question]) -> Half:
    """Every signal for each question of `day_two`, asked of `lookup` (`day_one` filed in it)."""
    matcher = lookup.matcher
    slot = {slug: n for n, slug in enumerate(matcher.slugs)}
    filed = [q for q in day_one if len(q.answers) == 1 and q.gold in slot]
    encoder = shared_retrieval_encoder()
    filed_vectors = encoder.queries([q.text for q in filed])
    filed_entries = np.array([slot[q.gold] for q in filed], dtype=np.int64)
    rows: list[dict[str, float]] = []
    right: list[bool] = []
    nearest_filed_right = 0
    for question in day_two:
        row, top, nearest = _signals(matcher, question, filed_vectors, filed_entries)
        rows.append(row)
        covered = question.expected != "none"
        right.append(covered and question.right(matcher.slugs[top]))
        nearest_filed_right += covered and nearest is not None and question.right(matcher.slugs[nearest])
    names = list(rows[0])
    return Half(
        name,
        len(day_two),
        sum(q.expected != "none" for q in day_two),
        {name: np.array([row[name] for row in rows]) for name in names},
        np.array(right),
        nearest_filed_right,
    )


def _signals(
    matcher: FaqMatcher, question: Question, filed_vectors: np.ndarray, filed_entries: np.ndarray
) -> tuple[dict[str, float], int, int | None]:
    """Every signal for `question`, the closest entry's index after the second look, and the entry
    of its nearest filed question."""
    found = matcher.match(question.text, language=language_of(question))
    assert found is not None
    evidence = matcher.evidence(question.text)
    assert evidence is not None
    combined, _ = matcher.scores(question.text)
    first = (matcher.slugs.index(found.slug), found.confidence)
    judged = matcher.second_look.judge(question.text, combined, first)
    assert judged is not None
    order, _, second = judged
    top = int(order[0])
    row = {f"matcher_{name}": evidence[2][name] for name in MATCHER_FEATURES}
    row |= {f"second_{name}": second[name] for name in SECOND_LOOK_FEATURES}
    row["matcher_probability"] = found.confidence
    nearest: int | None = None
    row["nearest_filed"] = row["nearest_filed_lead"] = 0.0
    if len(filed_vectors):
        similarity = filed_vectors @ shared_retrieval_encoder().query(question.text)
        per_entry = np.full(len(matcher.slugs), -1.0)
        np.maximum.at(per_entry, filed_entries, similarity)
        nearest = int(np.argmax(per_entry))
        others = np.delete(per_entry, nearest)
        row["nearest_filed"] = float(per_entry[top])
        row["nearest_filed_lead"] = float(per_entry[top] - (others.max() if len(others) else -1.0))
    return row, top, nearest


def best_coverage(score: np.ndarray, half: Half) -> float:
    """The most covered questions answered right at any bar on `score` with at most FALSE_BUDGET of
    all the questions answered wrong (answering a question means answering its closest entry)."""
    best = 0
    order = np.argsort(-score, kind="stable")
    right = half.right[order]
    hits = wrong = 0
    for n in range(len(order)):
        hits += bool(right[n])
        wrong += not right[n]
        tied = n + 1 < len(order) and score[order[n + 1]] == score[order[n]]
        if not tied and wrong / half.questions <= FALSE_BUDGET:
            best = max(best, hits)
    return best / half.covered


def oracle(half: Half) -> tuple[str, float, float]:
    """The best single signal (either direction) and its coverage, and a logistic model's."""
    single = max(
        (
            (f"{'-' if sign < 0 else ''}{name}", best_coverage(sign * values, half))
            for name, values in half.signals.items()
            for sign in (1, -1)
        ),
        key=lambda pair: pair[1],
    )
    x = np.column_stack(list(half.signals.values()))
    weights, bias = fit_logistic(x, half.right.astype(float))
    return single[0], single[1], best_coverage(x @ weights + bias, half)


def matrix(half: Half) -> np.ndarray:
    return np.column_stack(list(half.signals.values()))


def fitted(halves: list[Half], budget: float) -> tuple[np.ndarray, float, float]:
    """A logistic model over every signal fitted on `halves`, and the lowest bar that keeps their
    pooled wrong answers within `budget` of their questions."""
    x = np.vstack([matrix(h) for h in halves])
    y = np.concatenate([h.right for h in halves]).astype(float)
    weights, bias = fit_logistic(x, y)
    scores = x @ weights + bias
    total = sum(h.questions for h in halves)
    bar = next(
        (float(t) for t in np.sort(scores) if ((scores >= t) & (y == 0)).sum() / total <= budget), np.inf
    )
    return weights, bias, bar


def answered(half: Half, model: tuple[np.ndarray, float, float]) -> tuple[float, int]:
    """Coverage and wrong answers on `half` of a fitted model at its bar."""
    weights, bias, bar = model
    answers = matrix(half) @ weights + bias >= bar
    return float((answers & half.right).sum()) / half.covered, int((answers & ~half.right).sum())


def cross_validated(halves: list[Half]) -> list[float]:
    """Per half: the model fitted on the *other* FAQs' halves at FALSE_BUDGET: what a learnt bar
    could do on a FAQ it never saw."""
    out = []
    for n, half in enumerate(halves):
        coverage, wrong = answered(half, fitted([h for m, h in enumerate(halves) if m != n], FALSE_BUDGET))
        out.append(coverage)
        print(
            f"{half.name}: cross-validated logistic coverage {coverage:.3f}, wrong {wrong}/{half.questions}"
        )
    return out


def fit_on_tuning() -> None:
    """The model fitted on the tuning FAQs in the customer's voice (as written and learnt from their
    first half), at three budgets, asked the held-out ones as written: the trade a shop would get."""
    tuning = [read_half(f, q, learn=learn) for f, q in TUNING_VOICE_FAQ for learn in (False, True)]
    held_out = [read_half(f, q, learn=False) for f, q in HELD_OUT_VOICE_FAQ]
    for budget in (0.01, 0.015, 0.02):
        model = fitted(tuning, budget)
        results = [(h.name, *answered(h, model)) for h in held_out]
        print(
            f"fitted on tuning at {budget:.1%} wrong: "
            + "; ".join(
                f"{name} coverage {c:.3f} wrong {w}/{h.questions}"
                for (name, c, w), h in zip(results, held_out, strict=True)
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--held-out", action="store_true", help="the held-out FAQs only")
    parser.add_argument(
        "--as-written", action="store_true", help="file nothing and read every question: coverage's ceiling"
    )
    parser.add_argument(
        "--fit-on-tuning",
        action="store_true",
        help="a model fitted on the tuning FAQs, asked the held-out ones",
    )
    args = parser.parse_args()
    if args.fit_on_tuning:
        fit_on_tuning()
        return
    learn = not args.as_written
    sets = HELD_OUT_VOICE_FAQ if args.held_out else TUNING_VOICE_FAQ + HELD_OUT_VOICE_FAQ
    classifier = demo_classifier()
    totals: list[tuple[float, float, float, float]] = []
    halves = []
    for faq, questions_file in sets:
        lookup, filed, asked = taught(faq, questions_file, learn=learn)
        half = read(questions_file, lookup, filed, asked)
        halves.append(half)
        bot = evaluate(asked, classifier, lookup)
        name, single, logistic = oracle(half)
        top1 = float(half.right.sum()) / half.covered
        nearest = half.nearest_filed_right / half.covered
        totals.append((top1, nearest, single, logistic))
        print(
            f"{questions_file}: {half.questions} questions, {half.covered} covered; top1 {top1:.3f} "
            f"nearest_filed {nearest:.3f}; bot coverage {bot.coverage or 0:.3f} false "
            f"{bot.false_answer_rate:.3f}; oracle at {FALSE_BUDGET:.0%} false: {name} {single:.3f}, "
            f"logistic over {len(half.signals)} signals {logistic:.3f}",
            flush=True,
        )
    cross = cross_validated(halves) if len(halves) > 1 else [float("nan")]
    top1, nearest, single, logistic = (float(np.mean(column)) for column in zip(*totals, strict=True))
    print(
        f"{'learning_bound' if learn else 'coverage_bound'} faqs={len(totals)} top1={top1:.3f} nearest_filed={nearest:.3f} "
        f"oracle_single={single:.3f} oracle_logistic={logistic:.3f} "
        f"cross_validated={float(np.mean(cross)):.3f} goal={0.60 if learn else 0.25:.2f}"
    )


if __name__ == "__main__":
    main()
