"""`csbot eval`: how the bot routes a shop's own questions, before it goes live.

Each line of the TSV (`expected<TAB>language<TAB>question`) names an intent, a
FAQ slug, or `none` for a question the FAQ does not cover; `slug1|slug2` names a message that
asks two things two entries answer (either is right). The bot's decision
(services.understanding.understand, the same one customers get) gives a label of the same
kind. FAQ coverage is the share of questions expecting an entry that got that
entry; the false-answer rate is the share of all questions answered with a
wrong entry, including every answered `none`.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from services.faq.choices import offered
from services.faq.entry import FaqDocument, with_example
from services.faq.lookup import FaqLookupAnswerer
from services.text.sentences import Language
from services.understanding.classifier import Intent, IntentClassifier
from services.understanding.evaluation import macro_f1
from services.understanding.understand import understand

INTENT_NAMES = frozenset(i.value for i in Intent)


class EvalFileError(ValueError):
    pass


@dataclass(frozen=True)
class Question:
    expected: str
    language: str
    text: str
    line: int

    @property
    def answers(self) -> frozenset[str]:
        """What counts as right: the expected label, or any of `a|b`."""
        return frozenset(part.strip() for part in self.expected.split("|"))

    def right(self, label: str) -> bool:
        return label in self.answers

    @property
    def gold(self) -> str:
        """The class it is counted under: the first of `a|b`."""
        return self.expected.split("|")[0].strip()


@dataclass
class EvalReport:
    rows: list[tuple[Question, str]] = field(default_factory=list)
    """Each question with the bot's label."""
    per_class: dict[str, tuple[float, float, int]] = field(default_factory=dict)
    coverage: float | None = None
    one_tap_count: int = 0
    """Covered questions not answered outright whose entry was among the choices offered."""
    uncovered: int = 0
    offered_uncovered_count: int = 0
    """Questions the FAQ does not cover (`none`) that were offered choices all the same."""
    offers: int = 0
    offered_entries: int = 0
    """Questions shown choices, and the entries shown to them in all (buttons per offer)."""
    false_answer_rate: float = 0.0
    covered: int = 0
    macro_f1: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)

    @property
    def one_tap(self) -> float | None:
        return self.one_tap_count / self.covered if self.covered else None

    @property
    def offered_uncovered(self) -> float | None:
        return self.offered_uncovered_count / self.uncovered if self.uncovered else None


def load_questions(path: str | Path) -> list[Question]:
    items: list[Question] = []
    text = Path(path).read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if parts[:3] == ["expected", "language", "question"]:
            continue
        if len(parts) != 3 or not all(p.strip() for p in parts):
            raise EvalFileError(
                f"{path}: line {number}: expected three tab-separated fields: expected, language, question"
            )
        items.append(Question(parts[0].strip(), parts[1].strip(), parts[2].strip(), number))
    if not items:
        raise EvalFileError(f"{path}: no questions (header: expected<TAB>language<TAB>question)")
    return items


def language_of(question: Question) -> Language:
    """The file's language column; `mix` (Japanese alone or mixed) is answered like the bot would."""
    from services.text.normalize import detect_language

    return Language.known(question.language) or detect_language(question.text)


def evaluate(
    questions: list[Question], classifier: IntentClassifier, lookup: FaqLookupAnswerer
) -> EvalReport:
    slugs = set(lookup.matcher.slugs)
    intent_only = all(q.expected in INTENT_NAMES for q in questions)
    report = EvalReport()
    offered_right = offered_none = 0
    for question in questions:
        started = time.perf_counter()
        understanding = understand(question.text, language_of(question), classifier, lookup)
        report.latencies_ms.append((time.perf_counter() - started) * 1000)
        choices = offered(understanding, question.text)
        offered_right += bool(question.answers & set(choices))
        offered_none += question.expected == "none" and bool(choices)
        report.offers += bool(choices)
        report.offered_entries += len(choices)
        label = understanding.label
        if intent_only and (label in slugs or label == "none"):
            label = understanding.intent.value  # an intents file asks what the message is about
        elif label in slugs and understanding.entry is None:
            label = f"intent:{label}"  # a shop's entry named like an intent ("shipping") was not the answer
        report.rows.append((question, label))
    gold = Counter(label if q.right(label) else q.gold for q, label in report.rows)
    guessed = Counter(label for _, label in report.rows)
    hits = Counter(label for q, label in report.rows if q.right(label))
    report.per_class = {
        name: (
            hits[name] / guessed[name] if guessed[name] else 0.0,
            hits[name] / gold[name] if gold[name] else 0.0,
            gold[name],
        )
        for name in sorted(set(gold) | set(guessed))
    }
    report.macro_f1 = macro_f1(report.per_class.values())
    expecting_entry = [(q, label) for q, label in report.rows if q.answers & slugs or q.expected == "none"]
    covered = [(q, label) for q, label in expecting_entry if q.expected != "none"]
    report.covered = len(covered)
    if covered:
        report.coverage = sum(q.right(label) for q, label in covered) / len(covered)
    report.one_tap_count, report.offered_uncovered_count = offered_right, offered_none
    report.uncovered = sum(q.expected == "none" for q, _ in expecting_entry)
    wrong = sum(label in slugs and not q.right(label) for q, label in report.rows)
    report.false_answer_rate = wrong / len(report.rows)
    return report


def file_examples(documents: list[FaqDocument], questions: list[Question]) -> list[FaqDocument]:
    """The FAQ after a shop filed each covered question under its entry as an example, as an admin
    does from the console's gaps page (a question that names two entries is filed under neither)."""
    slugs = {d.slug for d in documents}
    for question in questions:
        if len(question.answers) == 1 and question.gold in slugs:
            documents = with_example(documents, question.gold, question.text, language_of(question))
    return documents


@dataclass(frozen=True)
class LearningCurve:
    filed: int
    """Questions of the first half filed as examples."""
    before: EvalReport
    after: EvalReport
    """The second half, asked before and after."""


def learning_curve(
    questions: list[Question], classifier: IntentClassifier, lookup: FaqLookupAnswerer, *, first: float = 0.5
) -> LearningCurve:
    """File the first part's covered questions (`first`, a share of the file in its order) as their
    entries' examples, then ask the rest: what a shop gets back from teaching the bot its customers'
    words."""
    cut = max(1, min(len(questions) - 1, round(len(questions) * first)))
    day_one, day_two = questions[:cut], questions[cut:]
    documents = list(lookup.matcher.documents)
    learnt = lookup.learnt(file_examples(documents, day_one))
    filed = sum(len(q.answers) == 1 and q.gold in set(lookup.matcher.slugs) for q in day_one)
    return LearningCurve(filed, evaluate(day_two, classifier, lookup), evaluate(day_two, classifier, learnt))


def render_learning(curve: LearningCurve) -> str:
    lines = [f"filed {curve.filed} covered questions of the first part as examples; asked the rest:"]
    for name, report in (("before", curve.before), ("after", curve.after)):
        lines.append(
            f"  {name:<7} coverage {report.coverage or 0.0:.3f}  reached "
            f"{(report.coverage or 0.0) + (report.one_tap or 0.0):.3f}  false {report.false_answer_rate:.3f}"
            f"  ({len(report.rows)} questions, {report.covered} covered)"
        )
    return "\n".join(lines) + "\n\n" + render(curve.after)


def render(report: EvalReport) -> str:
    lines = [f"{'class':<28}{'precision':>10}{'recall':>8}{'support':>9}"]
    for name, (precision, recall, support) in report.per_class.items():
        lines.append(f"{name:<28}{precision:>10.3f}{recall:>8.3f}{support:>9}")
    lines.append(f"macro-F1 {report.macro_f1:.3f} over {len(report.per_class)} classes")
    if report.coverage is not None:
        lines.append(
            f"FAQ coverage {report.coverage:.3f} ({report.covered} questions an entry answers); "
            f"false-answer rate {report.false_answer_rate:.3f} (of {len(report.rows)} questions)"
        )
        lines.append(
            f"one tap away {report.one_tap or 0.0:.3f} ({report.one_tap_count} of the {report.covered} "
            "covered questions were not answered outright but had the right entry among the buttons "
            f"offered); reached {report.coverage + (report.one_tap or 0.0):.3f}"
        )
    if report.offered_uncovered is not None:
        lines.append(
            f"buttons offered anyway to {report.offered_uncovered:.3f} of the questions the FAQ does not "
            f"cover ({report.offered_uncovered_count} of {report.uncovered})"
        )
    if report.offers:
        lines.append(
            f"{report.offered_entries / report.offers:.1f} entries per offer on average "
            f"({report.offers} offers)"
        )
    latencies = sorted(report.latencies_ms)
    if latencies:
        p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
        lines.append(f"per message: median {latencies[len(latencies) // 2]:.2f} ms, p99 {p99:.2f} ms")
    confusions = Counter((q.expected, label) for q, label in report.rows if not q.right(label))
    if confusions:
        lines.append("confusions (expected -> answered: count):")
        lines.extend(f"  {e} -> {g}: {n}" for (e, g), n in confusions.most_common())
        lines.append("misses:")
        lines.extend(
            f"  line {q.line}: [{q.expected} -> {label}] ({q.language}) {q.text}"
            for q, label in report.rows
            if not q.right(label)
        )
    return "\n".join(lines)
