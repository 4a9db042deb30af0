"""Mutation testing: how many small faults in a package the test suite catches.

    python -m bench.mutations services/llm --sample 40            # a fresh random sample
    python -m bench.mutations services/llm --sample 40 --seed 7   # the same sample again
    python -m bench.mutations services/llm --list                 # every site, no test run
    python -m bench.mutations services/llm --under services/llm/fact_claims.py --sample 100
    python -m bench.mutations services/llm --sample 300 --first-step  # survivors to read, fast

A mutant is one change at one place of one module: a comparison turned (`<` for `<=`, `==` for
`!=`, `in` for `not in`), `and` for `or`, `+` for `-`, `*` for `/`, a `not` dropped, a condition
negated, an integer moved by one, a fraction by a quarter of itself, `True` for `False`, a returned
value replaced by `None` (not `False`, which is as falsy), `break` for `continue`, a call made as a
statement left out. Strings, docstrings, annotations, f-strings and `Protocol` stubs are left
alone. Each mutant is written into a copy of the tree (tracked and untracked files, no `.git`, no
`.venv`) and tests are run there with this interpreter (`-x`, SQLite only); a mutant no test fails
is printed with its place, to be read: some are equivalent, the rest are faults the tests miss.
The last line is the kill rate of the sample.

The kill set is the whole suite (browser tests aside). Running all of it for each mutant would take
minutes a mutant, so the suite first runs once under coverage, each test's lines recorded apart
(`bench/mutation_contexts.py`, the suite split over the `--jobs` trees; it is also the clean
run: with any test failing there, nothing is measured), and each mutant runs:
  1. the tests that run its statement; for a statement run on import (a module's constants and
     definitions), the tests that run any line of its module;
  2. if none of those fails, or no test runs the statement in the suite's own process (code run
     only by a server's subprocess), the test files that name the package, which start those
     servers: a mutant survives only if both pass.
A mutant killed in step 1 is confirmed: the first failing test must pass alone on the clean tree,
or the verdict comes from step 2. `--plain` skips the coverage run and gives every mutant only the
test files that name the package (or `--tests`): the earlier, smaller kill set. `--first-step`
runs step 1 alone, to find survivors fast (a mutant it does not kill is printed as survived, so
its rate can only be lower).
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import functools
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_TURNED: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_ARITHMETIC: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult,
}


@dataclass(frozen=True)
class Mutant:
    path: str  # relative to the root
    line: int
    start: int  # byte offsets into the file
    end: int
    original: str
    replacement: str
    kind: str
    statement: int = 0
    """The first line of the innermost statement holding the change (what coverage records)."""

    def describe(self) -> str:
        return f"{self.path}:{self.line} [{self.kind}] {self.original!r} -> {self.replacement!r}"


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _left_alone(tree: ast.AST) -> set[int]:
    """Nodes inside annotations, f-strings, `TYPE_CHECKING` blocks and `Protocol` classes (whose
    method stubs and their defaults never run): no behaviour to mutate."""
    skipped: set[int] = set()

    def mark(node: ast.AST | None) -> None:
        if node is not None:
            skipped.update(id(inner) for inner in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            mark(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            mark(node.returns)
            for argument in (*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs):
                mark(argument.annotation)
        elif isinstance(node, ast.AnnAssign):
            mark(node.annotation)
        elif _type_checking(node) or _protocol(node):
            mark(node)
    return skipped


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _protocol(node: ast.AST) -> bool:
    return isinstance(node, ast.ClassDef) and any(
        ast.unparse(base).split("[")[0].endswith("Protocol") for base in node.bases
    )


def _variants(node: ast.AST, docstrings: set[int]) -> Iterator[tuple[str, ast.AST]]:
    """(kind, replacement node) for each mutation of `node` itself."""
    if isinstance(node, ast.Compare):
        for index, op in enumerate(node.ops):
            turned = _TURNED.get(type(op))
            if turned is not None:
                ops = list(node.ops)
                ops[index] = turned()
                yield "comparison", ast.Compare(left=node.left, ops=ops, comparators=node.comparators)
    elif isinstance(node, ast.BoolOp):
        other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield "boolean", ast.BoolOp(op=other, values=node.values)
    elif isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC and not _text(node):
        yield "arithmetic", ast.BinOp(left=node.left, op=_ARITHMETIC[type(node.op)](), right=node.right)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield "not dropped", node.operand
    elif isinstance(node, ast.Constant) and id(node) not in docstrings:
        value = node.value
        if isinstance(value, bool):
            yield "constant", ast.Constant(value=not value)
        elif isinstance(value, int):
            yield "constant", ast.Constant(value=value + 1)
        elif isinstance(value, float):
            yield "constant", ast.Constant(value=value * 1.25 if value else 0.25)


def _text(node: ast.BinOp) -> bool:
    """`+` joining strings: turned into `-` it only raises, which says nothing of the tests."""
    return any(
        isinstance(side, ast.JoinedStr) or (isinstance(side, ast.Constant) and isinstance(side.value, str))
        for side in (node.left, node.right)
    )


def _statement_variants(node: ast.stmt) -> Iterator[tuple[str, str]]:
    """(kind, replacement source) for mutations of a whole statement or its condition."""
    if isinstance(node, (ast.If, ast.While)):
        yield "condition negated", f"not ({ast.unparse(node.test)})"
    elif isinstance(node, ast.Return) and node.value is not None:
        # `return False` as None is falsy all the same (the constant's own mutant turns it True).
        returned = node.value
        if not (isinstance(returned, ast.Constant) and (returned.value is None or returned.value is False)):
            yield "return None", "return None"
    elif isinstance(node, ast.Break):
        yield "loop", "continue"
    elif isinstance(node, ast.Continue):
        yield "loop", "break"
    elif isinstance(node, ast.Expr) and isinstance(node.value, (ast.Call, ast.Await)):
        yield "call left out", "pass"


def _offsets(source: bytes) -> list[int]:
    starts = [0]
    for index, byte in enumerate(source):
        if byte == 0x0A:
            starts.append(index + 1)
    return starts


def mutants_of(path: Path) -> list[Mutant]:
    source = path.read_bytes()
    tree = ast.parse(source)
    starts = _offsets(source)
    docstrings = _docstrings(tree)
    skipped = _left_alone(tree)
    statement_of: dict[int, int] = {}
    for node in ast.walk(tree):  # outer statements first: inner ones overwrite their own parts
        if isinstance(node, ast.stmt):
            for inner in ast.walk(node):
                statement_of[id(inner)] = node.lineno
    relative = str(path.relative_to(ROOT))
    unchanged = ast.dump(tree)
    found: list[Mutant] = []

    def span(node: ast.AST) -> tuple[int, int]:
        start = starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
        end = starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]
        return start, end

    def add(node: ast.AST, start: int, end: int, replacement: str, kind: str) -> None:
        mutated = source[:start] + replacement.encode() + source[end:]
        try:
            if ast.dump(ast.parse(mutated)) == unchanged:
                return
        except SyntaxError:
            return
        original = source[start:end].decode()
        line = node.lineno  # type: ignore[attr-defined]
        found.append(
            Mutant(relative, line, start, end, original, replacement, kind, statement_of.get(id(node), line))
        )

    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.stmt):
            for kind, replacement in _statement_variants(node):
                if isinstance(node, (ast.If, ast.While)):
                    start, end = span(node.test)
                else:
                    start, end = span(node)
                add(node, start, end, replacement, kind)
        elif isinstance(node, ast.expr):
            for kind, mutated in _variants(node, docstrings):
                start, end = span(node)
                add(node, start, end, f"({ast.unparse(mutated)})", kind)
    return found


def sites(package: str, under: str = "") -> list[Mutant]:
    """Every mutant of `package`'s modules, those of the files under `under` only when given."""
    found: list[Mutant] = []
    for path in sorted((ROOT / package).rglob("*.py")):
        if str(path.relative_to(ROOT)).startswith(under):
            found.extend(mutants_of(path))
    return found


def tests_naming(package: str) -> list[str]:
    dotted = package.strip("/").replace("/", ".")
    return sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "tests").glob("test_*.py")
        if dotted in path.read_text(encoding="utf-8")
    )


def _tracked_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    return [name for name in listed.decode().split("\0") if name and (ROOT / name).is_file()]


def _copy_tree(into: Path) -> None:
    for name in _tracked_files():
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)


@dataclass(frozen=True)
class Outcome:
    mutant: Mutant | None
    killed: bool
    seconds: float
    note: str


def _first_failure(output: str) -> str:
    """The test that caught the mutant, as pytest's summary names it."""
    for line in output.splitlines():
        if line.startswith(("FAILED tests/", "ERROR tests/")):
            return line.split(" - ")[0]
    return ""


def _module(path: str) -> str:
    return path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


@functools.cache
def _source(tree: Path, test_file: str) -> str:
    return (tree / test_file).read_text(encoding="utf-8")


def _first_those_naming(tree: Path, module: str, tests: list[str]) -> list[str]:
    """The tests that name the mutated module run first: with `-x`, a mutant is caught sooner."""
    naming = [test for test in tests if module in _source(tree, test.split("::")[0])]
    return naming + [test for test in tests if test not in naming]


def _pytest(tests: list[str]) -> list[str]:
    """pytest's arguments: stop at the first failure, in file order, SQLite only, one process."""
    return ["-x", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-m", "not browser", "-n", "0", *tests]


def _environment(tree: Path) -> dict[str, str]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("CSBOT_")}
    environment["PYTHONPATH"] = str(tree)
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    return environment


Covering = dict[tuple[str, int], list[str]]
"""(path relative to the root, statement line) -> the node ids of the tests that run it; an empty
list for a line run on import, before any test."""


def every_test_file() -> list[str]:
    return sorted(str(path.relative_to(ROOT)) for path in (ROOT / "tests").glob("test_*.py"))


def shards(files: list[str], count: int) -> list[list[str]]:
    """Test files dealt out largest first to the lightest shard, so that the shards take about as
    long (a file's size stands for its run time)."""
    dealt: list[list[str]] = [[] for _ in range(max(1, count))]
    weights = [0] * len(dealt)
    for name in sorted(files, key=lambda name: -(ROOT / name).stat().st_size):
        lightest = weights.index(min(weights))
        dealt[lightest].append(name)
        weights[lightest] += (ROOT / name).stat().st_size
    return [shard for shard in dealt if shard]


@dataclass
class SuiteCoverage:
    """What the clean suite's run under coverage saw."""

    lines: Covering = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    """Each test's run time on the clean tree, by node id."""

    def timeout(self, tests: list[str]) -> float:
        """Seconds for `tests` on a mutant: three times their clean run, plus pytest's start."""
        return 60.0 + 3 * sum(self.seconds.get(test, 1.0) for test in tests)

    def timeout_of_files(self, files: list[str]) -> float:
        """Seconds for every test of `files` on a mutant (step 2), from their clean run."""
        return self.timeout([test for test in self.seconds if test.split("::")[0] in files])

    def add(self, other: SuiteCoverage) -> None:
        for key, contexts in other.lines.items():
            known = self.lines.get(key)
            if known == [] or contexts == []:
                self.lines[key] = []
            else:
                self.lines[key] = sorted({*(known or []), *contexts})
        self.seconds.update(other.seconds)


def _covering_run(package: str, tree: Path, tests: list[str]) -> SuiteCoverage:
    """One shard of the suite under coverage, one context per test (`bench.mutation_contexts`)."""
    import coverage

    from bench.mutation_contexts import DURATIONS, PACKAGE

    data_file = tree / ".mutation-coverage"
    durations = tree / ".mutation-durations.json"
    command = [sys.executable, "-m", "coverage", "run", f"--data-file={data_file}", f"--source={package}"]
    command += ["-m", "pytest", *_pytest(["-p", "bench.mutation_contexts", *tests])]
    dotted = package.strip("/").replace("/", ".")
    environment = _environment(tree) | {DURATIONS: str(durations), PACKAGE: dotted}
    done = subprocess.run(command, cwd=tree, env=environment, capture_output=True)
    if done.returncode != 0:
        raise RuntimeError(f"the clean run under coverage failed: {done.stdout.decode()[-2000:]}")
    data = coverage.CoverageData(basename=str(data_file))
    data.read()
    seen = SuiteCoverage(seconds=json.loads(durations.read_text(encoding="utf-8")))
    for filename in data.measured_files():
        relative = str(Path(filename).resolve().relative_to(tree.resolve()))
        starts = statement_starts(Path(filename).read_bytes())
        by_statement: dict[int, set[str]] = {}
        for line, contexts in data.contexts_by_lineno(filename).items():
            by_statement.setdefault(starts.get(line, line), set()).update(contexts)
        for line, ran in by_statement.items():
            # A line run on import (the empty context) may be seen by any test.
            seen.lines[(relative, line)] = [] if "" in ran else sorted(ran)
    return seen


def statement_starts(source: bytes) -> dict[int, int]:
    """Each line of a module -> the first line of the innermost statement holding it. Coverage
    records the lines that ran, and a statement written over several lines (`if (` then its
    condition) runs from its later lines; mutants are placed by their statement's first line."""
    starts: dict[int, int] = {}
    for node in ast.walk(ast.parse(source)):  # outer statements first: inner ones overwrite theirs
        if isinstance(node, ast.stmt):
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                starts[line] = node.lineno
    return starts


def _covering(package: str, trees: list[Path], tests: list[str]) -> SuiteCoverage:
    """The whole suite under coverage, its shards run side by side, one per tree."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(trees)) as pool:
        runs = pool.map(
            lambda tree, shard: _covering_run(package, tree, shard), trees, shards(tests, len(trees))
        )
        seen = SuiteCoverage()
        for part in runs:
            seen.add(part)
    return seen


def chosen_tests(mutant: Mutant, covering: Covering) -> list[str] | None:
    """Step 1's tests for a mutant: those that run its statement; for a statement run on import,
    those that run any line of its module. None when no test runs it in the suite's process."""
    contexts = covering.get((mutant.path, mutant.statement))
    if contexts is None:
        return None
    if contexts:
        return contexts
    of_module = {test for (path, _), tests in covering.items() if path == mutant.path for test in tests}
    return sorted(of_module) or None


def _run(mutant: Mutant | None, tree: Path, tests: list[str], timeout: float) -> Outcome:
    """`mutant` None: the clean run, which every mutant's is measured against."""
    target = tree / (mutant.path if mutant else "pyproject.toml")
    original = target.read_bytes()
    if mutant is not None:
        target.write_bytes(original[: mutant.start] + mutant.replacement.encode() + original[mutant.end :])
        tests = _first_those_naming(tree, _module(mutant.path), tests)
    began = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", *_pytest(tests)],
            cwd=tree,
            env=_environment(tree),
            capture_output=True,
            timeout=timeout,
        )
        killed, note = done.returncode != 0, _first_failure(done.stdout.decode(errors="replace"))
        if done.returncode not in (0, 1):
            note = f"pytest exit {done.returncode}"
    except subprocess.TimeoutExpired:
        killed, note = True, "timed out"
    finally:
        target.write_bytes(original)
    return Outcome(mutant, killed, time.monotonic() - began, note)


def _verdict(mutant: Mutant, tree: Path, seen: SuiteCoverage, fallback: list[str], timeout: float) -> Outcome:
    """Step 1 then, unless a confirmed kill, step 2 (see the module's docstring). `timeout` is
    step 2's; step 1's comes from its tests' clean run."""
    chosen = chosen_tests(mutant, seen.lines)
    spent = 0.0
    if chosen:
        first = _run(mutant, tree, chosen, seen.timeout(chosen))
        spent += first.seconds
        if first.killed:
            failing = first.note.removeprefix("FAILED ").removeprefix("ERROR ")
            if (
                failing.startswith("tests/")
                and not _run(None, tree, [failing], seen.timeout([failing])).killed
            ):
                return Outcome(mutant, True, spent, first.note)
            if first.note == "timed out":
                return Outcome(mutant, True, spent, first.note)
    unrun = "" if chosen else "no test runs its statement in this process"
    if not fallback:  # step 1 only (`--first-step`)
        return Outcome(mutant, False, spent, unrun)
    second = _run(mutant, tree, fallback, timeout)
    return Outcome(mutant, second.killed, spent + second.seconds, second.note if second.killed else unrun)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("package", help="a folder under the project root, e.g. services/llm")
    parser.add_argument("--sample", type=int, default=40)
    parser.add_argument("--seed", type=int, default=None, help="default: a fresh one, printed")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--timeout", type=float, default=None, help="seconds per mutant's tests (default: 3 x the clean run)"
    )
    parser.add_argument("--tests", nargs="*", default=None, help="default: the test files naming the package")
    parser.add_argument("--list", action="store_true", help="print every site and stop")
    parser.add_argument("--under", default="", help="only the sites in files under this path, e.g. a module")
    parser.add_argument(
        "--plain",
        action="store_true",
        help="no coverage run: every mutant gets only the tests naming the package",
    )
    parser.add_argument(
        "--first-step",
        action="store_true",
        help="step 1 only, to find survivors fast: its rate can only be lower than the full run's",
    )
    args = parser.parse_args(argv)

    every = sites(args.package, args.under)
    if args.list:
        for mutant in every:
            print(mutant.describe())
        print(f"{len(every)} mutation sites in {args.package}")
        return 0
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    sample = random.Random(seed).sample(every, min(args.sample, len(every)))
    tests = args.tests or tests_naming(args.package)
    suite = "naming the package" if args.plain else "the whole suite by coverage"
    print(
        f"seed={seed} sites={len(every)} sample={len(sample)} tests={suite}; {len(tests)} files name it",
        flush=True,
    )

    with tempfile.TemporaryDirectory(prefix="csbot-mutants-") as scratch:
        trees = [Path(scratch) / f"tree{index}" for index in range(max(1, args.jobs))]
        for tree in trees:
            _copy_tree(tree)
        seen = SuiteCoverage()
        if args.plain:
            clean = _run(None, trees[0], tests, args.timeout or 3600.0)
            if clean.killed:
                print(f"the tests fail with no mutant ({clean.note}): nothing to measure", file=sys.stderr)
                return 1
            timeout = args.timeout or max(120.0, 3 * clean.seconds)
            print(f"clean run {clean.seconds:.0f}s; each mutant's tests get {timeout:.0f}s", flush=True)
        else:
            # The suite under coverage is the clean run: it fails if any test does, and it times
            # the files of step 2 too.
            began = time.monotonic()
            try:
                seen = _covering(args.package, trees, every_test_file())
            except RuntimeError as failed:
                print(f"the tests fail with no mutant ({failed}): nothing to measure", file=sys.stderr)
                return 1
            timeout = args.timeout or max(120.0, seen.timeout_of_files(tests))
            print(
                f"the suite under coverage: {time.monotonic() - began:.0f}s; step 2 gets {timeout:.0f}s",
                flush=True,
            )
        free = list(trees)
        outcomes: list[Outcome] = []

        def work(mutant: Mutant) -> Outcome:
            tree = free.pop()
            try:
                if args.plain:
                    return _run(mutant, tree, tests, timeout)
                return _verdict(mutant, tree, seen, [] if args.first_step else tests, timeout)
            finally:
                free.append(tree)

        with concurrent.futures.ThreadPoolExecutor(max_workers=len(trees)) as pool:
            for future in concurrent.futures.as_completed([pool.submit(work, mutant) for mutant in sample]):
                outcome = future.result()
                outcomes.append(outcome)
                verdict = "killed" if outcome.killed else "SURVIVED"
                extra = f" ({outcome.note})" if outcome.note else ""
                assert outcome.mutant is not None
                print(f"{verdict:8} {outcome.seconds:6.1f}s {outcome.mutant.describe()}{extra}", flush=True)

    killed = sum(outcome.killed for outcome in outcomes)
    print(
        f"killed={killed} survived={len(outcomes) - killed} kill_rate={killed / len(outcomes):.3f} seed={seed}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
