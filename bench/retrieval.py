"""The second look (services/faq/second_look.py): fit its calibration, and choose the offers' bars.

    .venv/bin/python -m bench.retrieval            # refit services/faq/data/second_look_calibration.json
    .venv/bin/python -m bench.retrieval --offers   # reached and noise per OFFER_ABOVE / BESIDE_A_SERVICE_ABOVE

Tuning FAQs only (bench.eval_sets.TUNING_FAQ), each asked twice: as written, and with the first
half of its questions filed under their entries as examples and the second half asked (what a
shop gets after teaching the bot, `csbot eval --learn 0.5`). A row is a question the matcher's own
calibration does not answer; its label is whether the second look's first entry is right. The bar
is the lowest probability at which the second look adds at most SECOND_LOOK_BUDGET wrong answers
over all the questions of the pool, and at most SET_LIMIT on any one set.
"""

from __future__ import annotations

import json
import sys

import numpy as np

from bench.calibrate import fit_logistic
from bench.eval_sets import DATA, TUNING_FAQ, TUNING_VOICE_FAQ, demo_classifier, faq_documents
from services.faq.calibration import Calibration
from services.faq.entry import FaqDocument
from services.faq.evaluation import Question, evaluate, file_examples, language_of, load_questions
from services.faq.lookup import FaqLookupAnswerer
from services.faq.matcher import FaqMatcher
from services.faq.second_look import CALIBRATION_PATH, FEATURES

SECOND_LOOK_BUDGET = 0.003
SET_LIMIT = 0.05


def versions() -> list[tuple[str, list[FaqDocument], list[Question]]]:
    """Each tuning FAQ as written with all its questions, and learnt from its first half."""
    out = []
    for faq, questions_file in TUNING_FAQ:
        documents = faq_documents(faq)
        questions = load_questions(DATA / questions_file)
        cut = round(len(questions) / 2)
        out.append((questions_file, documents, questions))
        out.append((f"{questions_file} (learnt)", file_examples(documents, questions[:cut]), questions[cut:]))
    return out


def rows() -> list[tuple[str, int, np.ndarray, np.ndarray]]:
    """Per version: its question count, the second look's features and labels."""
    sets = []
    for name, documents, questions in versions():
        matcher = FaqMatcher(documents)
        features, labels = [], []
        for question in questions:
            language = language_of(question)
            found = matcher.match(question.text, language=language)
            if found is None or found.answered:
                continue
            combined, _ = matcher.scores(question.text)
            first = (matcher.slugs.index(found.slug), found.confidence)
            judged = matcher.second_look.judge(question.text, combined, first)
            if judged is None:
                continue
            order, _, evidence = judged
            features.append([evidence[f] for f in FEATURES])
            labels.append(float(question.right(matcher.slugs[int(order[0])])))
        sets.append((name, len(questions), np.array(features), np.array(labels)))
        print(
            f"{name}: {len(labels)} questions for the second look, top-1 right {np.mean(labels):.3f}",
            flush=True,
        )
    return sets


def fit() -> dict[str, object]:
    sets = rows()
    x = np.vstack([f for _, _, f, _ in sets if len(f)])
    y = np.concatenate([c for _, _, _, c in sets])
    weights, bias = fit_logistic(x, y)
    calibration = Calibration(tuple(float(w) for w in weights), bias, 0.0, FEATURES)
    probabilities = [
        np.array([calibration.probability(dict(zip(FEATURES, row, strict=True))) for row in f])
        for _, _, f, _ in sets
    ]
    total = sum(n for _, n, _, _ in sets)

    def within(bar: float) -> bool:
        wrong = [
            int(((p >= bar) & (c == 0)).sum()) for p, (_, _, _, c) in zip(probabilities, sets, strict=True)
        ]
        if sum(wrong) / total > SECOND_LOOK_BUDGET:
            return False
        return all(w / n <= SET_LIMIT for w, (_, n, _, _) in zip(wrong, sets, strict=True))

    bar = next((float(t) for t in np.arange(0.30, 0.995, 0.01) if within(t)), 0.99)
    p_all, c_all = np.concatenate(probabilities), y
    for t in (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.93):
        print(
            f"bar {t}: right {int(((p_all >= t) & (c_all == 1)).sum())}, wrong {int(((p_all >= t) & (c_all == 0)).sum())} of {total} questions"
        )
    for p, (name, n, _, c) in zip(probabilities, sets, strict=True):
        print(
            f"{name}: at {bar:.2f} right {int(((p >= bar) & (c == 1)).sum())}, wrong {int(((p >= bar) & (c == 0)).sum())} of {n}"
        )
    return {
        "features": list(FEATURES),
        "weights": [round(float(w), 4) for w in weights],
        "bias": round(bias, 4),
        "threshold": round(bar, 2),
        "fitted_on": [name for name, _, _, _ in sets],
        "second_look_budget": SECOND_LOOK_BUDGET,
        "set_limit": SET_LIMIT,
    }


OFFER_GRID = (
    (0.05, 9.0),
    (0.05, 0.1),
    (0.04, 0.1),
    (0.03, 0.3),
    (0.03, 0.1),
    (0.03, 0.05),
    (0.02, 0.1),
    (0.0, 0.1),
)
"""(`OFFER_ABOVE`, `BESIDE_A_SERVICE_ABOVE`) pairs; 9.0: never beside a service."""


def offers() -> None:
    """Reached (answered right or offered), noise (uncovered questions shown buttons) and buttons
    per offer, per pair of bars, on the tuning FAQs and on those in the customer's voice (a customer
    the bot does not know yet, as `csbot eval` asks)."""
    import services.faq.choices as choices

    classifier = demo_classifier()
    groups = {
        name: [(FaqLookupAnswerer(faq_documents(f)), load_questions(DATA / q)) for f, q in files]
        for name, files in (("tuning", TUNING_FAQ), ("voice", TUNING_VOICE_FAQ))
    }
    for above, beside in OFFER_GRID:
        choices.OFFER_ABOVE, choices.BESIDE_A_SERVICE_ABOVE = above, beside
        line = [f"OFFER_ABOVE {above} BESIDE_A_SERVICE_ABOVE {beside}:"]
        for name, sets in groups.items():
            reports = [evaluate(questions, classifier, lookup) for lookup, questions in sets]
            reached = np.mean([(r.coverage or 0) + (r.one_tap or 0) for r in reports])
            noise = np.mean([r.offered_uncovered or 0 for r in reports])
            per_offer = np.mean([r.offered_entries / max(1, r.offers) for r in reports])
            line.append(f"{name} reached {reached:.3f} noise {noise:.3f} per offer {per_offer:.2f}")
        print("  ".join(line))


def main() -> None:
    if "--offers" in sys.argv:
        offers()
        return
    CALIBRATION_PATH.write_text(json.dumps(fit(), indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
