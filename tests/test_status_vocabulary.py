"""One status vocabulary: arena.status spells every outcome, nothing else in arena/ does.

`test_no_status_literal_outside_arena_status` parses every Python source of arena/ (but
arena/status.py, and the historical migrations, which keep the words they were written
with) and flags a string equal to a status value where it is used as a status:

- compared: `x == "ok"`, `x != "ok"`, `match` cases;
- passed to a status parameter: by keyword (`status="ok"`) or by position, the
  parameter found from arena's own definitions (`SeatRecord(i, v, None, None, "ok")`,
  `store.set_tournament_status(t, "finished")`), or given as its default;
- assigned to a status name, attribute or key (`status = "ok"`, `reason = "crash"`,
  `row["status"] = "ok"`, `{"status": "ok"}`, a model's `status: str = "scheduled"`);
- a constant named as the member it copies (`CANCELLED = "cancelled"`);
- a tuple, list or set whose strings are all statuses (`("ok", "suspended")`, also the
  right side of `status in ("finished", CANCELLED)`);
- turned into a member (`SeatStatus("ok")`).

A branch of a conditional (`SeatStatus.OK if c else "ok"`) or of `or` counts as the value
itself. JSON keys (`{"ok": True}`, `event["forfeit"]`, `"forfeit" in event`), messages,
f-strings and docstrings are not statuses and are not flagged; nor, in `EXEMPT`, the
statuses of other programs that happen to share a word.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import pytest

from arena.status import VOID, MatchStatus, SeatStatus, TournamentStatus

ROOT = Path(__file__).resolve().parents[1]
ARENA = ROOT / "arena"
ENUMS: tuple[type[StrEnum], ...] = (SeatStatus, MatchStatus, TournamentStatus)
#: Each status word and the member that spells it (values are unique across the enums).
MEMBERS = {member.value: f"{enum.__name__}.{member.name}" for enum in ENUMS for member in enum}
#: Migrations as they were released: they compare the words of their day, and must not
#: change (a database upgraded by them must stay the same).
HISTORICAL = re.compile(r"arena/store/migrations/versions/000[1-5]")
#: A compared expression (by file) whose status is another program's: not arena's words.
EXEMPT = {
    ("arena/tournament/dask_executor.py", "self.client.status"): "a dask Client's own status",
}


def status_like(name: str) -> bool:
    """A name that holds a status: `status`, `seat_status`, `reason` (a BotError's)."""
    return name in ("status", "reason") or name.endswith("_status")


@dataclass(frozen=True)
class Stray:
    """One status word spelled outside arena.status."""

    path: str
    line: int
    word: str
    how: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.word!r} {self.how} (use {MEMBERS[self.word]})"


def words(node: ast.AST | None) -> Iterator[ast.Constant]:
    """The status words `node` stands for: itself, or a branch of `if ... else` / `or`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in MEMBERS:
        yield node
    elif isinstance(node, ast.IfExp):
        yield from words(node.body)
        yield from words(node.orelse)
    elif isinstance(node, ast.BoolOp):
        for value in node.values:
            yield from words(value)


def callee(call: ast.Call) -> str | None:
    """The simple name a call is made by (`f(...)`, `obj.f(...)`)."""
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def dataclass_like(node: ast.ClassDef) -> bool:
    """A class whose annotated fields are its constructor's parameters."""

    def named(expr: ast.expr) -> str:
        expr = expr.func if isinstance(expr, ast.Call) else expr
        return expr.attr if isinstance(expr, ast.Attribute) else getattr(expr, "id", "")

    return any(named(d) == "dataclass" for d in node.decorator_list) or any(
        named(b) == "NamedTuple" for b in node.bases
    )


def signatures(trees: dict[str, ast.Module]) -> dict[str, list[list[str]]]:
    """Each function's or class's name -> the positional parameters of its definitions."""
    found: dict[str, list[list[str]]] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                names = [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
                if names[:1] in (["self"], ["cls"]):
                    names = names[1:]
                found.setdefault(node.name, []).append(names)
            elif isinstance(node, ast.ClassDef):
                init = next(
                    (
                        n
                        for n in node.body
                        if isinstance(n, ast.FunctionDef) and n.name == "__init__"
                    ),
                    None,
                )
                if init is not None:
                    names = [a.arg for a in [*init.args.posonlyargs, *init.args.args]][1:]
                    found.setdefault(node.name, []).append(names)
                elif dataclass_like(node):
                    fields = [
                        n.target.id
                        for n in node.body
                        if isinstance(n, ast.AnnAssign)
                        and isinstance(n.target, ast.Name)
                        and "ClassVar" not in ast.unparse(n.annotation)
                    ]
                    found.setdefault(node.name, []).append(fields)
    return found


def target_name(target: ast.expr) -> str | None:
    """The name an assignment writes: `x`, `obj.x`, `row["x"]`."""
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant):
        key = target.slice.value
        return key if isinstance(key, str) else None
    return None


class Finder(ast.NodeVisitor):
    """The stray status words of one module."""

    def __init__(self, path: str, calls: dict[str, list[list[str]]]):
        self.path, self.calls = path, calls
        self.found: list[Stray] = []

    def flag(self, node: ast.AST | None, how: str) -> None:
        for word in words(node):
            self.found.append(Stray(self.path, word.lineno, word.value, how))

    def visit_Compare(self, node: ast.Compare) -> None:
        operands = [node.left, *node.comparators]
        exempt = any((self.path, ast.unparse(o)) in EXEMPT for o in operands)
        for op, (left, right) in zip(node.ops, itertools.pairwise(operands), strict=True):
            if not exempt and isinstance(op, ast.Eq | ast.NotEq | ast.Is | ast.IsNot):
                self.flag(left, "compared")
                self.flag(right, "compared")
        self.generic_visit(node)

    def visit_MatchValue(self, node: ast.MatchValue) -> None:
        self.flag(node.value, "compared (a match case)")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = callee(node)
        if name in {enum.__name__ for enum in ENUMS}:
            for arg in node.args:
                self.flag(arg, f"made a member with {name}(...)")
        for params in self.calls.get(name or "", []):
            for param, arg in zip(params, node.args, strict=False):
                if isinstance(arg, ast.Starred):
                    break
                if status_like(param):
                    self.flag(arg, f"passed as {name}'s {param}")
        for keyword in node.keywords:
            if keyword.arg is not None and status_like(keyword.arg):
                self.flag(keyword.value, f"passed as {keyword.arg}=")
        self.generic_visit(node)

    def visit_arguments(self, node: ast.arguments) -> None:
        positional = [*node.posonlyargs, *node.args]
        with_default = positional[len(positional) - len(node.defaults) :]
        defaults = list(zip(with_default, node.defaults, strict=True))
        defaults += [
            (a, d) for a, d in zip(node.kwonlyargs, node.kw_defaults, strict=True) if d is not None
        ]
        for arg, default in defaults:
            if status_like(arg.arg):
                self.flag(default, f"the default of {arg.arg}")
        self.generic_visit(node)

    def assigned(self, targets: list[ast.expr], value: ast.expr | None) -> None:
        for target in targets:
            name = target_name(target)
            if name is None:
                continue
            if status_like(name):
                self.flag(value, f"assigned to {name}")
            elif isinstance(value, ast.Constant) and MEMBERS.get(value.value, "").endswith(
                f".{name}"
            ):
                self.flag(value, f"copied as {name}")

    def visit_Assign(self, node: ast.Assign) -> None:
        self.assigned(node.targets, node.value)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.assigned([node.target], node.value)
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        for key, value in zip(node.keys, node.values, strict=True):
            if (
                isinstance(key, ast.Constant)
                and isinstance(key.value, str)
                and status_like(key.value)
            ):
                self.flag(value, f"stored under {key.value!r}")
        self.generic_visit(node)

    def container(self, node: ast.Tuple | ast.List | ast.Set) -> None:
        strings = [e for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        if strings and all(e.value in MEMBERS for e in strings):
            for element in strings:
                self.flag(element, "listed among statuses")
        self.generic_visit(node)

    visit_Tuple = visit_List = visit_Set = container


def sources() -> dict[str, ast.Module]:
    """Every Python source of arena/ that must not spell a status, parsed."""
    trees = {}
    for path in sorted(ARENA.rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name != "arena/status.py" and not HISTORICAL.match(name):
            trees[name] = ast.parse(path.read_text(), name)
    return trees


def strays(trees: dict[str, ast.Module]) -> list[Stray]:
    calls = signatures(trees)
    found: list[Stray] = []
    for name, tree in trees.items():
        finder = Finder(name, calls)
        finder.visit(tree)
        found.extend(finder.found)
    return sorted(set(found), key=lambda s: (s.path, s.line, s.word))


def test_no_status_literal_outside_arena_status() -> None:
    found = strays(sources())
    if found:
        pytest.fail("status words spelled outside arena.status:\n" + "\n".join(map(str, found)))


def found_in(code: str) -> list[tuple[int, str]]:
    """The stray words of one snippet of code, as (line, word)."""
    trees = {"arena/snippet.py": ast.parse(code)}
    return [(s.line, s.word) for s in strays(trees)]


def test_the_finder_flags_statuses_used_as_statuses() -> None:
    code = """
from dataclasses import dataclass
@dataclass
class SeatRecord:
    seat: int
    status: str = "ok"
def set_status(tournament, status): ...
if seat.status != "ok": ...
left_out = ("ok", "suspended")
found.status in ("finished", CANCELLED)
SeatRecord(1, SeatStatus.SUSPENDED if x else "crash")
store.set_status(3, status="running")
set_status(3, "interrupted")
row["status"] = "forfeit"
CANCELLED = "cancelled"
reply = {"reason": "timeout"}
MatchStatus("platform-error")
"""
    assert found_in(code) == [
        (6, "ok"),
        (8, "ok"),
        (9, "ok"),
        (9, "suspended"),
        (10, "finished"),
        (11, "crash"),
        (12, "running"),
        (13, "interrupted"),
        (14, "forfeit"),
        (15, "cancelled"),
        (16, "timeout"),
        (17, "platform-error"),
    ]


def test_the_finder_leaves_keys_messages_and_other_programs_words_alone() -> None:
    code = '''
"""A docstring may say ok, timeout and platform-error."""
rows = [{"check": "python", "ok": True}]
if all(row["ok"] for row in rows): ...
if "forfeit" in event: seat = event["forfeit"]
frame.update(kind="forfeit")
raise fail("interrupted", code=130)
done = "deleted" if gone else "cancelled"
state.state in ("cancelled", "released", "forgotten")
text(("suspended", "yellow"), " too many forfeits")
print(f"status ok: {n}")
'''
    assert found_in(code) == []


def test_the_exempt_expressions_still_exist() -> None:
    """An exemption that no longer matches code hides nothing: drop it."""
    trees = sources()
    for (path, expression), why in EXEMPT.items():
        assert path in trees, f"{path} (exempt: {why}) is gone"
        spelled = {ast.unparse(n) for n in ast.walk(trees[path]) if isinstance(n, ast.expr)}
        assert expression in spelled, f"{path} no longer has {expression} (exempt: {why})"


# ----- the vocabulary itself ---------------------------------------------------------
def member_docstrings() -> dict[str, dict[str, str]]:
    """Each enum of arena/status.py -> each member's name -> its docstring (the string
    right after its assignment, which Python does not keep at run time)."""
    tree = ast.parse((ARENA / "status.py").read_text())
    documented: dict[str, dict[str, str]] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        members = documented.setdefault(node.name, {})
        for statement, following in zip(node.body, [*node.body[1:], None], strict=True):
            if isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name):
                text = ""
                if isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant):
                    text = str(following.value.value).strip()
                members[statement.targets[0].id] = text
    return documented


def test_every_status_has_a_docstring() -> None:
    documented = member_docstrings()
    for enum in ENUMS:
        assert enum.__doc__, f"{enum.__name__} has no docstring"
        names = documented[enum.__name__]
        assert sorted(names) == sorted(m.name for m in enum), enum.__name__
        missing = [name for name, text in names.items() if not text]
        assert not missing, f"{enum.__name__} members without a docstring: {missing}"


def test_a_status_word_means_one_thing() -> None:
    """Values are unique across the enums: a word in the database, a replay or --json
    (and in this test's messages) names one member, whichever column it came from."""
    values = [member.value for enum in ENUMS for member in enum]
    assert len(values) == len(set(values)), sorted(v for v in values if values.count(v) > 1)
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", value) for value in values), values


def test_void_matches_are_arenas_fault() -> None:
    assert set(VOID) == {MatchStatus.PLATFORM_ERROR, MatchStatus.DECISION_LIMIT}
    assert [m for m in MatchStatus if m.void] == list(VOID)


def test_bot_authors_read_every_status() -> None:
    """The schemas list the seat statuses, PROTOCOL.md and the README name every seat and
    match status."""
    seat_words = [s.value for s in SeatStatus]
    replay = json.loads((ROOT / "protocol/schemas/replay.schema.json").read_text())
    assert replay["properties"]["outcome"]["properties"]["status"]["items"]["enum"] == seat_words
    end = (ROOT / "protocol/schemas/end.schema.json").read_text()
    assert all(f'"{word}"' in end for word in seat_words)
    protocol = (ROOT / "protocol/PROTOCOL.md").read_text()
    readme = (ROOT / "README.md").read_text()
    for word in [*seat_words, *(m.value for m in MatchStatus)]:
        assert f"`{word}`" in protocol, f"protocol/PROTOCOL.md does not name `{word}`"
        assert f"`{word}`" in readme, f"README.md does not name `{word}`"
