"""The benchmark runs end to end and ends with the line CI and people read (no timing asserted)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench import draft_verify, understanding


async def test_draft_verify_bench_prints_its_ratios(capsys: pytest.CaptureFixture[str]) -> None:
    await draft_verify.main(scale=0.005)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("Simulated latencies")
    assert re.fullmatch(r"latency_ratio=\d+\.\d{3} cost_ratio=\d+\.\d{3}", lines[-1])
    assert any(line.startswith("faq   draft-verify ") for line in lines)
    assert any(line.startswith("[dv faq-as-draft token] latency_ratio=") for line in lines)


@pytest.mark.timeout(240)
async def test_fault_bench_quick_run_on_sqlite_loses_repeats_and_reorders_nothing() -> None:
    """`bench/faults.py --quick` on SQLite: a real polling process, killed with SIGKILL once while a
    reply is in flight, under every other fault the bench injects (Redis and the small journal file
    system only where the machine has them: the report lists what it skipped)."""
    from bench import faults

    report = await faults.run(faults.parse_args(["--quick", "--updates", "40", "--seed", "5"]))
    lines = faults.render(report)
    assert re.fullmatch(
        r"updates=\d+ lost=\d+ unanswered=\d+ duplicated=\d+ out_of_order=\d+ kills=1", lines[-1]
    ), lines
    assert "stuck" not in report, "\n".join(lines)
    assert report["sends_refused"].get("429") and report["sends_refused"].get("500"), "the faults did happen"
    assert (report["lost"], report["unanswered"], report["out_of_order"]) == (0, 0, 0), "\n".join(lines)
    assert report["duplicated"] <= report["kills"], "\n".join(lines)
    assert report["return_requests"] == 1, "the confirmation was delivered several times, filed once"
    assert not faults.failed(report)


def test_understanding_bench_prints_the_goal_ratio(capsys: pytest.CaptureFixture[str]) -> None:
    understanding.main(limit=30)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "30 distinct messages, one thread"
    assert any(line.startswith("classify + FAQ match (the bot)") for line in lines)
    assert re.fullmatch(
        r"p99_ms=\d+\.\d\d goal_ratio=\d+\.\d\d cpu_p99_ms=\d+\.\d\d cpu_goal_ratio=\d+\.\d\d "
        r"vs_cue_tables=\d+x",
        lines[-1],
    )


async def test_bot_overhead_bench_prints_its_table_and_line(database_url: str) -> None:
    """A short run of bench/bot_overhead.py on each backend: three dispatchers, both modes."""
    from bench import bot_overhead

    url = None if database_url.startswith("sqlite") else database_url
    args = ["--updates", "30", "--users", "10", "--concurrency", "5"]
    if url is not None:
        args += ["--database-url", url]
    report = await bot_overhead.run(bot_overhead.parse_args(args))
    lines = bot_overhead.render(report)
    assert sum(line.startswith("| SQLite," if url is None else "| PostgreSQL,") for line in lines) == 2
    assert re.fullmatch(r"updates_per_s=\d+\.\d p99_ms=\d+\.\d\d floor_ratio=\d+\.\d\d", lines[-1])
    statements = next(line for line in lines if line.startswith("csbot per update"))
    assert float(statements.split(": ")[1].split()[0]) < 6, "round trips per update crept back up"


async def test_streaming_load_bench_answers_every_chat_without_a_429() -> None:
    """A short run of bench/streaming_load.py: a few chats at once, model latencies scaled down."""
    from bench import streaming_load

    report = await streaming_load.run(streaming_load.parse_args(["--chats", "40", "--time-scale", "0.02"]))
    lines = streaming_load.render(report)
    assert (report["answered"], report["refused_429"]) == (40, 0), lines
    assert report["drafts_sent"] + report["drafts_dropped"] > 0, "the answers were streamed"
    assert re.fullmatch(r"answered=40/40 429s=0 p95_final_s=\d+\.\d\d bound_s=\d+\.\d\d", lines[-1])


async def test_bot_overhead_times_each_phase_and_puts_the_originals_back() -> None:
    """`--phases`: every phase of an update timed (each a part of the update in all), the table and
    last line unchanged, and nothing left patched after the run."""
    from bench import bot_overhead, phase_timer

    originals = [getattr(owner, name) for _, owner, name, _ in phase_timer.PHASES]
    report = await bot_overhead.run(
        bot_overhead.parse_args(["--updates", "30", "--users", "10", "--concurrency", "5", "--phases"])
    )
    lines = bot_overhead.render(report)
    timed = {
        line.split(": ")[0].strip(): float(line.split(": ")[1].split()[0])
        for line in lines
        if line.endswith("ms per update")
    }
    assert len(timed) == len(phase_timer.PHASES)
    assert all(0 < spent <= timed["one update in all"] for spent in timed.values()), timed
    assert re.fullmatch(r"updates_per_s=\d+\.\d p99_ms=\d+\.\d\d floor_ratio=\d+\.\d\d", lines[-1])
    assert [getattr(owner, name) for _, owner, name, _ in phase_timer.PHASES] == originals


def test_the_mutation_bench_finds_and_applies_mutants_and_leaves_docstrings_alone() -> None:
    """Every site of a module changes its syntax tree when applied (no no-op mutants), and none
    changes a docstring."""
    import ast

    from bench.mutations import ROOT, mutants_of

    path = ROOT / "services" / "llm" / "overlap.py"
    source = path.read_bytes()
    found = mutants_of(path)
    kinds = {mutant.kind for mutant in found}
    assert {"comparison", "constant", "condition negated", "return None", "boolean"} <= kinds
    original = ast.parse(source)

    def docstrings(tree: ast.AST) -> list[str | None]:
        kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        return [ast.get_docstring(node) for node in ast.walk(tree) if isinstance(node, kinds)]

    for mutant in found:
        mutated = ast.parse(source[: mutant.start] + mutant.replacement.encode() + source[mutant.end :])
        assert ast.dump(mutated) != ast.dump(original), mutant.describe()
        assert docstrings(mutated) == docstrings(original), mutant.describe()
    # --by-coverage finds a mutant's tests by the first line of the innermost statement holding it
    starts = {node.lineno: node for node in ast.walk(original) if isinstance(node, ast.stmt)}
    for mutant in found:
        statement = starts[mutant.statement]
        assert statement.lineno <= mutant.line <= (statement.end_lineno or 0), mutant.describe()
        deeper = [
            node
            for node in ast.walk(statement)
            if isinstance(node, ast.stmt)
            and node is not statement
            and node.lineno <= mutant.line <= (node.end_lineno or 0)
        ]
        assert not deeper, mutant.describe()


def test_the_learning_bound_counts_right_answers_within_the_false_budget() -> None:
    """`bench.learning_bound`'s oracle: the best bar answers the most covered questions right with
    at most 2% of all the questions wrong, ties at a bar answered together; a model fitted on one
    half answers what its bar lets through."""
    import numpy as np

    from bench.learning_bound import FALSE_BUDGET, Half, answered, best_coverage, fitted

    right = np.array([True] * 6 + [False] * 94)  # 100 questions, 10 covered, 6 ranked right
    covered = 10
    score = np.linspace(1.0, 0.0, 100)  # the six right ones score highest
    half = Half("synthetic", 100, covered, {"score": score}, right, 0)
    assert FALSE_BUDGET == 0.02
    assert best_coverage(score, half) == 0.6, "all six right, at most two wrong"
    shuffled = score.copy()
    shuffled[[6, 7, 8]] = 2.0  # three wrong answers above every right one: one too many
    assert best_coverage(shuffled, half) == 0.0
    tied = np.where(right, 1.0, 0.0)
    tied[[6, 7, 8]] = 1.0  # tied with the right ones: a bar takes them together
    assert best_coverage(tied, half) == 0.0
    weights, bias, bar = fitted([half], FALSE_BUDGET)
    coverage, wrong = answered(half, (weights, bias, bar))
    assert coverage == 0.6 and wrong <= 2


def test_a_returned_false_is_not_replaced_by_none_but_a_returned_zero_is() -> None:
    """None is as falsy as False: that mutant could only survive. 0 is a number, None is not."""
    import uuid

    from bench.mutations import ROOT, mutants_of

    path = ROOT / f".mutation-sample-{uuid.uuid4().hex[:8]}.py"
    path.write_text("def f(x):\n    if x:\n        return False\n    return 0\n", encoding="utf-8")
    try:
        found = {(mutant.original, mutant.kind) for mutant in mutants_of(path)}
    finally:
        path.unlink()
    assert ("return 0", "return None") in found and ("return False", "return None") not in found
    assert ("False", "constant") in found, "False still becomes True"


def test_the_mutation_bench_lists_only_the_sites_under_a_path(capsys: pytest.CaptureFixture[str]) -> None:
    from bench.mutations import ROOT, main, mutants_of

    assert main(["services/llm", "--under", "services/llm/overlap.py", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    count = len(mutants_of(ROOT / "services" / "llm" / "overlap.py"))
    assert lines[-1] == f"{count} mutation sites in services/llm" and len(lines) == count + 1
    assert all(line.startswith("services/llm/overlap.py:") for line in lines[:-1])


def test_each_mutant_runs_the_tests_that_run_its_statement_or_its_module() -> None:
    """Step 1 of the whole-suite kill set: a statement's own tests; for one run on import, every
    test that runs a line of its module; nothing chosen when no test runs it in the suite's
    process (the test files naming the package decide then)."""
    from bench.mutations import Mutant, chosen_tests

    covering = {
        ("services/llm/a.py", 3): ["tests/test_a.py::one", "tests/test_b.py::two"],
        ("services/llm/a.py", 7): ["tests/test_c.py::three"],
        ("services/llm/a.py", 1): [],
        ("services/llm/b.py", 1): [],
        ("services/llm/c.py", 4): ["tests/test_d.py::four"],
    }

    def at(path: str, statement: int) -> Mutant:
        return Mutant(path, statement, 0, 1, "<", "<=", "comparison", statement)

    assert chosen_tests(at("services/llm/a.py", 3), covering) == [
        "tests/test_a.py::one",
        "tests/test_b.py::two",
    ]
    assert chosen_tests(at("services/llm/a.py", 1), covering) == [
        "tests/test_a.py::one",
        "tests/test_b.py::two",
        "tests/test_c.py::three",
    ]
    assert chosen_tests(at("services/llm/a.py", 5), covering) is None, "a line no test runs"
    assert chosen_tests(at("services/llm/b.py", 1), covering) is None, "a module only imported"


def test_the_suite_is_dealt_into_shards_of_about_equal_size() -> None:
    from bench.mutations import ROOT, every_test_file, shards

    files = every_test_file()
    dealt = shards(files, 2)
    assert len(dealt) == 2 and sorted(dealt[0] + dealt[1]) == files
    sizes = [sum((ROOT / name).stat().st_size for name in shard) for shard in dealt]
    largest = max((ROOT / name).stat().st_size for name in files)
    assert abs(sizes[0] - sizes[1]) <= largest
    assert shards(files[:1], 3) == [files[:1]], "no empty shard"


def test_a_kill_counts_only_when_the_failing_test_passes_alone_on_the_clean_tree(tmp_path: Path) -> None:
    """A test that fails on its own (it needed another test first) kills nothing: the verdict then
    comes from the test files naming the package; a statement no test runs gets them directly."""
    from bench.mutations import Mutant, SuiteCoverage, _verdict

    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "m.py").write_text("def f(x):\n    return x + 1\n", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_m.py").write_text(
        "from pkg.m import f\n\ndef test_f():\n    assert f(1) == 2\n", encoding="utf-8"
    )
    (tmp_path / "tests" / "test_lonely.py").write_text(
        "import os\n\ndef test_needs_company():\n    assert os.environ.get('NEVER_SET_HERE')\n",
        encoding="utf-8",
    )
    (tmp_path / "tests" / "test_blind.py").write_text(
        "def test_nothing():\n    assert True\n", encoding="utf-8"
    )
    source = (tmp_path / "pkg" / "m.py").read_bytes()
    start = source.index(b"x + 1")
    mutant = Mutant("pkg/m.py", 2, start, start + 5, "x + 1", "(x - 1)", "arithmetic", 2)

    def running(*tests: str) -> SuiteCoverage:
        return SuiteCoverage(lines={("pkg/m.py", 2): list(tests)}, seconds=dict.fromkeys(tests, 0.5))

    caught = _verdict(mutant, tmp_path, running("tests/test_m.py::test_f"), ["tests/test_blind.py"], 120.0)
    assert caught.killed and caught.note == "FAILED tests/test_m.py::test_f"
    lonely = running("tests/test_lonely.py::test_needs_company")
    unconfirmed = _verdict(mutant, tmp_path, lonely, ["tests/test_blind.py"], 120.0)
    assert not unconfirmed.killed, "the lonely test fails on the clean tree too"
    unrun = _verdict(mutant, tmp_path, SuiteCoverage(), ["tests/test_m.py"], 120.0)
    assert unrun.killed and unrun.note == "FAILED tests/test_m.py::test_f"
    first_step_only = _verdict(mutant, tmp_path, SuiteCoverage(), [], 120.0)
    assert not first_step_only.killed and first_step_only.note == "no test runs its statement in this process"
    assert (tmp_path / "pkg" / "m.py").read_bytes() == source, "the tree is left clean"


def test_the_shards_coverage_adds_up_and_gives_a_timeout_from_the_tests_clean_run() -> None:
    """A line one shard saw on import stays an import-time line; each test's seconds are kept,
    and a mutant's tests get three times theirs (a second for a test not timed) and pytest's start."""
    from bench.mutations import SuiteCoverage

    path = "services/llm/a.py"
    seen = SuiteCoverage(lines={(path, 1): ["t1"], (path, 2): []}, seconds={"t1": 2.0})
    seen.add(
        SuiteCoverage(lines={(path, 1): ["t2"], (path, 2): ["t3"], (path, 3): ["t4"]}, seconds={"t2": 1.0})
    )
    assert seen.lines == {(path, 1): ["t1", "t2"], (path, 2): [], (path, 3): ["t4"]}
    assert seen.timeout(["t1", "t2", "untimed"]) == 60.0 + 3 * (2.0 + 1.0 + 1.0)
    seen.seconds |= {"tests/test_a.py::t5": 4.0, "tests/test_a.py::t6[x::y]": 1.5, "tests/test_b.py::t7": 9.0}
    assert seen.timeout_of_files(["tests/test_a.py"]) == 60.0 + 3 * (4.0 + 1.5), "step 2: its files' tests"


def test_the_coverage_run_empties_the_package_s_memo_caches_but_not_its_loaders() -> None:
    """Each test's lines are its own: a result kept from an earlier test would hide them."""
    from bench.mutation_contexts import empty_memo_caches
    from services.llm import events, tokens

    events._anchored("Returns: within 7 days of receiving the item.")
    tokens.encoding("o200k_base")
    assert events._anchored.cache_info().currsize and tokens.encoding.cache_info().currsize
    assert empty_memo_caches("services.llm") >= 3
    assert events._anchored.cache_info().currsize == 0, "a memo of sources read is emptied"
    assert tokens.encoding.cache_info().currsize, "a tokenizer loaded from disk is kept"


def test_a_line_coverage_records_is_read_as_the_statement_it_belongs_to() -> None:
    """Coverage records `a in b` (line 4), not the `if (` above it (line 3) where the mutant of its
    condition is placed; a line of a body is its own statement's."""
    from bench.mutations import statement_starts

    source = (
        b"def f(a, b):\n"
        b"    x = 0\n"
        b"    if (\n"
        b"        a in b\n"
        b"    ):\n"
        b"        x = g(\n"
        b"            a,\n"
        b"        )\n"
        b"    return x\n"
    )
    starts = statement_starts(source)
    assert [starts[line] for line in range(1, 10)] == [1, 2, 3, 3, 3, 6, 6, 6, 9]


def test_a_protocol_s_stubs_are_no_mutation_sites() -> None:
    """A Protocol's method bodies and defaults never run: mutating them could only survive."""
    import uuid

    from bench.mutations import ROOT, mutants_of

    path = ROOT / f".mutation-sample-{uuid.uuid4().hex[:8]}.py"
    path.write_text(
        "from typing import Protocol\n\n"
        "class Model(Protocol):\n    def score(self, top: int = 5) -> int: ...\n\n"
        "class Real:\n    def score(self, top: int = 5) -> int:\n        return top + 1\n",
        encoding="utf-8",
    )
    try:
        lines = {mutant.line for mutant in mutants_of(path)}
    finally:
        path.unlink()
    assert lines and min(lines) >= 6, lines
