"""The size rule of docs/architecture.md: no function over 60 lines, no class over 300 lines in
core/ and tui/, except those docs/architecture.md lists (with why)."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_FUNCTION, MAX_CLASS = 60, 300


def oversized() -> set[str]:
    out = set()
    for base in ("core", "tui"):
        for path in sorted((ROOT / base).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                n = (node.end_lineno or node.lineno) - node.lineno + 1 if hasattr(node, "lineno") else 0
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and n > MAX_FUNCTION:
                    out.add(f"{rel}:{node.name}")
                elif isinstance(node, ast.ClassDef) and n > MAX_CLASS:
                    out.add(f"{rel}:{node.name}")
    return out


def listed() -> set[str]:
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("## Size rule", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"`([\w/.]+\.py:[A-Za-z_]\w*)`", section))


def test_no_unlisted_long_function_or_class():
    extra = sorted(oversized() - listed())
    assert not extra, ("longer than the size rule allows (split it, or list it with the reason under "
                       "'Size rule and its exceptions' in docs/architecture.md): " + ", ".join(extra))


def test_the_list_names_only_what_is_long():
    stale = sorted(listed() - oversized())
    assert not stale, "listed as exceptions in docs/architecture.md but no longer long: " + ", ".join(stale)


def _check_screen() -> ast.ClassDef:
    tree = ast.parse((ROOT / "tui" / "screens" / "check.py").read_text(encoding="utf-8"))
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "CheckScreen")


def test_check_screen_is_under_300_lines_with_no_exception():
    cls = _check_screen()
    assert cls.end_lineno - cls.lineno + 1 < MAX_CLASS
    assert not {x for x in listed() if x.startswith("tui/screens/check")}, "the check screen has no exception"


SESSION_PARTS = {"session", "facts", "evidence", "passages", "human", "auto", "text", "tokens",
                 "status", "stop_reason", "metrics", "checks"}
MUTATORS = {"append", "extend", "insert", "update", "setdefault", "pop", "popitem", "remove", "clear"}


def _parts(node: ast.AST) -> list[str]:
    out = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute):
            out.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        out.append(node.id)
    return out[::-1]


def test_check_screen_folds_no_event_into_the_session():
    """The screen routes events to the core's SessionBuilder (and labels to the keeper): it writes
    no part of a session, a fact or the builder's figures itself."""
    bad = []
    for node in ast.walk(_check_screen()):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            targets = [node.func.value]
        for t in targets:
            parts = _parts(t)
            inner = parts[2:] if parts[:1] == ["self"] else parts[1:]   # self.x = ... is the screen's own
            if isinstance(node, ast.Call):
                inner = parts[1:]
            if SESSION_PARTS & set(inner):
                bad.append(f"line {node.lineno}: {ast.unparse(t)}")
    assert not bad, "the check screen changes the session itself: " + ", ".join(bad)


def test_the_tui_runs_checks_through_the_core_pump_only():
    """One thread → queue event pump (core/pipeline/pump.py): the TUI starts no thread of its own
    for a run; the start screen's one-shot entity look-ups are its only threads."""
    threads = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tui").rglob("*.py")
                     if "threading.Thread(" in p.read_text(encoding="utf-8"))
    assert threads == ["tui/screens/start.py"]
    assert "pump(" in (ROOT / "tui" / "run_feed.py").read_text(encoding="utf-8")


# --------------------------------------------------------------------------- imports in core/


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT / "core").with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["core", *parts])


def _imported(module: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: set[str]) -> set[str]:
    """The core modules one import statement names (`from .x import y` names `core.x.y` when that
    is a module, else `core.x`)."""
    if isinstance(node, ast.Import):
        targets = ["core" + a.name[len("mfact.core"):] for a in node.names if a.name.startswith("mfact.core")]
        return {t for t in targets if t in known}
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[:len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    elif node.module and node.module.startswith("mfact.core"):
        target = "core" + node.module[len("mfact.core"):]
    else:
        return set()
    out = {f"{target}.{a.name}" if f"{target}.{a.name}" in known else target for a in node.names}
    return {t for t in out if t in known}


def import_graph() -> dict[str, set[str]]:
    """Every import between modules of core/, at module level, inside functions and under
    TYPE_CHECKING alike."""
    paths = {_module_name(p): p for p in sorted((ROOT / "core").rglob("*.py"))}
    known = set(paths)
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                deps |= _imported(name, path.name == "__init__.py", node, known)
        graph[name] = deps - {name}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    cycles.append(sorted(comp))
    return cycles


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_cycles(graph) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_the_import_graph_sees_imports_inside_functions_and_type_checking():
    graph = import_graph()
    assert "core.session" in graph["core.figures"] or "core.schema" in graph["core.figures"]
    assert "core.pipeline.run" in graph["core.pipeline.check_pipeline"]
    # session.py imports languages inside Session.from_dict
    assert "core.languages" in graph["core.session"]


def test_no_import_cycle_in_core():
    cycles = import_cycles(import_graph())
    assert not cycles, "import cycles in core/ (module-level, in functions or under TYPE_CHECKING): " + "; ".join(
        " ⇄ ".join(c) for c in cycles)
