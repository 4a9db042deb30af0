"""Every evaluation set in one run: tuning next to held-out, the table for the README and the note.

    .venv/bin/python -m bench.eval_sets            # FAQ sets and intent sets
    .venv/bin/python -m bench.eval_sets --misses   # and each set's misses

Why one command: a change is judged by whether it helps the held-out sets as much as
the tuning sets it was chosen on; printing them side by side makes over-fitting
visible. The role of each file (tuning or held out) is stated in its header and in
TUNING_FAQ / HELD_OUT_FAQ below; bench/calibrate.py reads only the tuning ones.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from db.seed import DEMO_PRODUCTS, demo_names
from services.faq.entry import FaqDocument
from services.faq.evaluation import evaluate, learning_curve, load_questions
from services.faq.lookup import FaqLookupAnswerer
from services.faq.store import demo_documents, file_documents
from services.text.sentences import Language
from services.understanding.classifier import IntentClassifier
from services.understanding.entities import CatalogueName
from services.understanding.evaluation import evaluate as evaluate_intents
from services.understanding.evaluation import load_labelled

DATA = Path("tests/data")
TUNING_FAQ: tuple[tuple[str, str], ...] = (
    ("demo", "faq_demo.tsv"),
    ("unseen_faq.csv", "unseen_faq_questions.tsv"),
    ("tuning_faq3.csv", "tuning_faq3_questions.tsv"),
    ("tuning_faq4.csv", "tuning_faq4_questions.tsv"),
    ("tuning_faq6.csv", "tuning_faq6_questions.tsv"),
    ("tuning_faq7.csv", "tuning_faq7_questions.tsv"),
    ("tuning_faq11.csv", "tuning_faq11_questions.tsv"),
    ("tuning_faq12.csv", "tuning_faq12_questions.tsv"),
    ("tuning_cosmetics.csv", "tuning_cosmetics_questions.tsv"),
)
"""FAQ files and their questions that bench/calibrate.py and bench/retrieval.py fit on (the
matcher's calibration was fitted before the last, customer-voice set came)."""
HELD_OUT_FAQ: tuple[tuple[str, str], ...] = (
    ("demo", "faq_demo_holdout.tsv"),
    ("unseen_faq2.csv", "unseen_faq2_questions.tsv"),
    ("holdout_faq5.csv", "holdout_faq5_questions.tsv"),
    ("holdout_faq8.csv", "holdout_faq8_questions.tsv"),
    ("holdout_faq9.csv", "holdout_faq9_questions.tsv"),
    ("holdout_faq10.csv", "holdout_faq10_questions.tsv"),
    ("holdout_faq13.csv", "holdout_faq13_questions.tsv"),
    ("holdout_faq14.csv", "holdout_faq14_questions.tsv"),
    ("holdout_faq15.csv", "holdout_faq15_questions.tsv"),
)
"""Never read by bench/calibrate.py nor used to choose a weight."""
TUNING_VOICE_FAQ: tuple[tuple[str, str], ...] = (
    ("tuning_cosmetics.csv", "tuning_cosmetics_questions.tsv"),
    ("tuning_electronics.csv", "tuning_electronics_questions.tsv"),
    ("tuning_pets.csv", "tuning_pets_questions.tsv"),
    ("tuning_bakery.csv", "tuning_bakery_questions.tsv"),
)
"""In the customer's voice (long messages, two questions in one, typos, casual and honorific Korean,
keigo), FAQs as shops publish them (no examples); the last three were held out at first, then their
misses were read and the offers' bars (services/faq/choices.py) chosen on them."""
HELD_OUT_VOICE_FAQ: tuple[tuple[str, str], ...] = (
    ("holdout_camping.csv", "holdout_camping_questions.tsv"),
    ("holdout_furniture.csv", "holdout_furniture_questions.tsv"),
    ("holdout_kids.csv", "holdout_kids_questions.tsv"),
)
"""Held out, in the customer's voice: the sets to trust when the others disagree."""
TUNING_ROUTES: tuple[str, ...] = ("complaints.tsv", "product_facts.tsv")
HELD_OUT_ROUTES: tuple[str, ...] = ("complaints_holdout.tsv", "product_facts_holdout.tsv")
"""Questions to the demo shop judged by the route they get (a return offered, a person, the stock
line or an honest "I don't know"), not by an FAQ entry: complaints and damage reports
(services/understanding/complaints.py), questions about a product's facts (services/understanding/understand.py)."""
TUNING_INTENTS: tuple[str, ...] = (
    "intents.tsv",
    "intents_tuning2.tsv",
    "intents_tuning_voice.tsv",
    "intents_tuning_voice2.tsv",
)
HELD_OUT_INTENTS: tuple[str, ...] = (
    "intents_holdout.tsv",
    "intents_holdout2.tsv",
    "intents_holdout3.tsv",
    "intents_holdout4.tsv",
    "intents_holdout_voice.tsv",
)


def faq_documents(name: str) -> list[FaqDocument]:
    if name == "demo":
        return demo_documents()
    path = DATA / name
    return file_documents(path.read_bytes(), source=str(path))


def demo_classifier() -> IntentClassifier:
    return IntentClassifier(CatalogueName(p["sku"], demo_names(p)) for p in DEMO_PRODUCTS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--misses", action="store_true", help="print each set's misses")
    parser.add_argument(
        "--min-confidence",
        type=float,
        default=None,
        help="the FAQ's bar, as CSBOT_FAQ_MIN_CONFIDENCE sets it",
    )
    args = parser.parse_args()
    classifier = demo_classifier()
    print(
        f"{'FAQ set':<34}{'role':<10}{'coverage':>9}{'false':>7}{'one tap':>9}{'reached':>9}{'noise':>7}{'questions':>10}"
    )
    for role, sets in (
        ("tuning", TUNING_FAQ),
        ("held-out", HELD_OUT_FAQ),
        ("voice", TUNING_VOICE_FAQ[1:]),
        ("voice-out", HELD_OUT_VOICE_FAQ),
    ):
        totals = [0.0, 0.0, 0.0]
        for faq, questions in sets:
            if not (DATA / questions).exists():
                continue
            lookup = FaqLookupAnswerer(faq_documents(faq), min_confidence=args.min_confidence)
            report = evaluate(load_questions(DATA / questions), classifier, lookup)
            totals = [
                total + value
                for total, value in zip(
                    totals, (report.coverage or 0, report.false_answer_rate, report.one_tap or 0), strict=True
                )
            ]
            print(
                f"{questions:<34}{role:<10}{report.coverage or 0:>9.3f}{report.false_answer_rate:>7.3f}"
                f"{report.one_tap or 0:>9.3f}{(report.coverage or 0) + (report.one_tap or 0):>9.3f}"
                f"{report.offered_uncovered or 0:>7.3f}"
                f"{len(report.rows):>10}"
            )
            if args.misses:
                for question, label in report.rows:
                    if label != question.expected:
                        print(f"    [{question.expected} -> {label}] ({question.language}) {question.text}")
        coverage, false, one_tap = (total / len(sets) for total in totals)
        print(f"{'mean of the sets above':<34}{role:<10}{coverage:>9.3f}{false:>7.3f}{one_tap:>9.3f}")
    print(
        f"\n{'learning curve (half filed)':<34}{'role':<10}{'coverage':>9}{'false':>7}{'reached':>9}  before"
    )
    for role, sets in (("voice", TUNING_VOICE_FAQ), ("voice-out", HELD_OUT_VOICE_FAQ)):
        for faq, questions in sets:
            lookup = FaqLookupAnswerer(faq_documents(faq), min_confidence=args.min_confidence)
            curve = learning_curve(load_questions(DATA / questions), classifier, lookup)
            before, after = curve.before, curve.after
            print(
                f"{questions:<34}{role:<10}{after.coverage or 0:>9.3f}{after.false_answer_rate:>7.3f}"
                f"{(after.coverage or 0) + (after.one_tap or 0):>9.3f}  {before.coverage or 0:.3f} / "
                f"{before.false_answer_rate:.3f} / {(before.coverage or 0) + (before.one_tap or 0):.3f}"
            )
    print(f"\n{'route set':<34}{'role':<10}{'macro-F1':>9}  precision/recall per label")
    demo_lookup = FaqLookupAnswerer(faq_documents("demo"), min_confidence=args.min_confidence)
    for role, names in (("tuning", TUNING_ROUTES), ("held-out", HELD_OUT_ROUTES)):
        for name in names:
            report = evaluate(load_questions(DATA / name), classifier, demo_lookup)
            labels = "  ".join(
                f"{label} {precision:.2f}/{recall:.2f}"
                for label, (precision, recall, support) in report.per_class.items()
                if support
            )
            print(f"{name:<34}{role:<10}{report.macro_f1:>9.3f}  {labels}")
            if args.misses:
                for question, label in report.rows:
                    if label != question.expected:
                        print(f"    [{question.expected} -> {label}] ({question.language}) {question.text}")
    print(f"\n{'intent set':<34}{'role':<10}{'macro-F1':>9}{'ko':>7}{'en':>7}{'ja/mix':>7}")
    for role, names in (("tuning", TUNING_INTENTS), ("held-out", HELD_OUT_INTENTS)):
        for name in names:
            if not (DATA / name).exists():
                continue
            intents = evaluate_intents(classifier, load_labelled(DATA / name))
            by = intents.by_language
            japanese = by.get(Language.JA, by.get("mix", float("nan")))
            print(
                f"{name:<34}{role:<10}{intents.macro_f1:>9.3f}{by.get('ko', float('nan')):>7.3f}"
                f"{by.get('en', float('nan')):>7.3f}{japanese:>7.3f}"
            )
            if args.misses:
                for item, guess in intents.mistakes:
                    print(f"    [{item.intent.value} -> {guess.value}] ({item.language}) {item.text}")


if __name__ == "__main__":
    main()
