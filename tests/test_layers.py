"""Queries live in db/repositories: no module under services/ builds or runs SQL itself."""

from __future__ import annotations

import ast
from pathlib import Path

SERVICES = Path(__file__).resolve().parent.parent / "services"
QUERY_LIBRARIES = ("sqlmodel", "sqlalchemy")
QUERY_BUILDERS = frozenset(
    {"select", "update", "delete", "insert", "func", "col", "and_", "or_", "not_", "text", "exists", "case"}
)
RUNNERS = frozenset({"exec", "execute"})


def _from_query_library(module: str | None) -> bool:
    root = (module or "").split(".")[0]
    return root in QUERY_LIBRARIES


def query_building(source: str) -> list[tuple[int, str]]:
    """(line, what) for each query builder imported from SQLModel or SQLAlchemy and each
    `.exec(` / `.execute(` call in `source`."""
    tree = ast.parse(source)
    libraries: set[str] = set()
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and _from_query_library(node.module):
            for alias in node.names:
                if alias.name in QUERY_BUILDERS or alias.name == "*":
                    found.append((node.lineno, f"imports {alias.name} from {node.module}"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _from_query_library(alias.name):
                    libraries.add(alias.asname or alias.name.split(".")[0])
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in RUNNERS
        ):
            found.append((node.lineno, f"calls .{node.func.attr}()"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in QUERY_BUILDERS:
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in libraries:
                found.append((node.lineno, f"uses {ast.unparse(node)}"))
    return sorted(found)


def test_services_build_no_sql() -> None:
    problems = [
        f"{path.relative_to(SERVICES.parent)}:{line}: {what}"
        for path in sorted(SERVICES.rglob("*.py"))
        for line, what in query_building(path.read_text(encoding="utf-8"))
    ]
    assert not problems, "queries belong in db/repositories:\n" + "\n".join(problems)


def test_the_check_sees_builders_and_statements() -> None:
    source = (
        "from sqlmodel import col, select\n"
        "from sqlalchemy.sql.expression import func\n"
        "from sqlalchemy.exc import IntegrityError\n"
        "from sqlmodel.ext.asyncio.session import AsyncSession\n"
        "import sqlalchemy as sa\n"
        "import sqlmodel.sql.expression\n"
        "async def f(session, connection):\n"
        "    await session.exec(sqlmodel.sql.expression.select(Model))\n"
        "    await connection.execute(sa.text('select 1'))\n"
    )
    assert query_building(source) == [
        (1, "imports col from sqlmodel"),
        (1, "imports select from sqlmodel"),
        (2, "imports func from sqlalchemy.sql.expression"),
        (8, "calls .exec()"),
        (8, "uses sqlmodel.sql.expression.select"),
        (9, "calls .execute()"),
        (9, "uses sa.text"),
    ]
