"""The architecture rules of docs/architecture.md, enforced with no exception list: no function
over 60 lines and no class over 300 lines in core/ and tui/; no import cycle in core/; no setattr on
a class; no getattr / hasattr probe of what mfact's stages declare; nothing swallows
AttributeError; MfactError is imported from core/errors.py."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_FUNCTION, MAX_CLASS = 60, 300


def sources() -> list[tuple[str, ast.Module]]:
    out = []
    for base in ("core", "tui"):
        for path in sorted((ROOT / base).rglob("*.py")):
            out.append((path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8"))))
    return out


def oversized() -> set[str]:
    out = set()
    for rel, tree in sources():
        for node in ast.walk(tree):
            n = (node.end_lineno or node.lineno) - node.lineno + 1 if hasattr(node, "lineno") else 0
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and n > MAX_FUNCTION:
                out.add(f"{rel}:{node.name} ({n})")
            elif isinstance(node, ast.ClassDef) and n > MAX_CLASS:
                out.add(f"{rel}:{node.name} ({n})")
    return out


def test_no_long_function_or_class():
    extra = sorted(oversized())
    assert not extra, "longer than the size rule allows (60 lines a function, 300 a class): " + ", ".join(extra)


def test_the_size_rule_sees_a_long_function(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(61))
    tree = ast.parse(f"def f():\n{body}\n")
    fn = tree.body[0]
    assert fn.end_lineno - fn.lineno + 1 > MAX_FUNCTION


def _check_screen() -> ast.ClassDef:
    tree = ast.parse((ROOT / "tui" / "screens" / "check.py").read_text(encoding="utf-8"))
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "CheckScreen")


def test_check_screen_is_under_300_lines():
    cls = _check_screen()
    assert cls.end_lineno - cls.lineno + 1 < MAX_CLASS


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


# --------------------------------------------------------------------------- stages and classes


def stage_attributes() -> set[str]:
    """What mfact's stages declare (core/protocols.py: the bases and the Protocols): an object
    typed as a stage has these, so nothing probes for them."""
    tree = ast.parse((ROOT / "core" / "protocols.py").read_text(encoding="utf-8"))
    names: set[str] = set()
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        bases = {ast.unparse(b) for b in cls.bases}
        if not (bases & {"Stage", "GeneratorBase", "Protocol"} or cls.name == "Stage"):
            continue
        for node in cls.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(node.name)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
    return {n for n in names if not n.startswith("_")}


def probes(tree: ast.AST, attributes: set[str]) -> list[str]:
    out = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                and node.args[1].value in attributes):
            out.append(f"line {node.lineno}: {ast.unparse(node)}")
    return out


def test_stage_attributes_are_read_from_the_declarations():
    attrs = stage_attributes()
    assert {"name", "version", "describe", "notices", "backend", "model", "batching", "generate_batch",
            "dim", "verify_batch", "runtime_info"} <= attrs
    assert probes(ast.parse('getattr(gen, "runtime_info", None)'), attrs)
    assert not probes(ast.parse('getattr(tokenizer, "chat_template", None)'), attrs)


def test_no_getattr_probe_of_a_stage():
    attrs = stage_attributes()
    bad = [f"{rel} {p}" for rel, tree in sources() for p in probes(tree, attrs)]
    assert not bad, "probes of what a stage declares (type the object as its base instead): " + "; ".join(bad)


def _class_names(tree: ast.AST) -> set[str]:
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}


def class_mutations(tree: ast.AST) -> list[str]:
    """setattr on a class (a name bound to a class, `cls`, `type(x)`, `x.__class__`), and
    assignments to `cls.x` / `type(x).x` / `x.__class__.x`."""
    classes = _class_names(tree)

    def is_class(e: ast.AST) -> bool:
        return ((isinstance(e, ast.Name) and (e.id == "cls" or e.id in classes))
                or (isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "type")
                or (isinstance(e, ast.Attribute) and e.attr == "__class__"))

    out = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"
                and node.args and is_class(node.args[0])):
            out.append(f"line {node.lineno}: {ast.unparse(node)}")
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            if isinstance(t, ast.Attribute) and is_class(t.value):
                out.append(f"line {node.lineno}: {ast.unparse(t)} = ...")
    return out


def test_the_class_mutation_finder_finds_them():
    assert class_mutations(ast.parse("class A: pass\nsetattr(A, 'f', 1)"))
    assert class_mutations(ast.parse("def f(cls):\n    cls.cache = 1"))
    assert not class_mutations(ast.parse("def f(cfg):\n    setattr(cfg, 'k', 1)"))


def test_no_setattr_on_a_class():
    bad = [f"{rel} {m}" for rel, tree in sources() for m in class_mutations(tree)]
    assert not bad, "classes changed after their definition (define the method or keep the cache outside): " + \
        "; ".join(bad)


def _raises(handler: ast.ExceptHandler) -> bool:
    return any(isinstance(n, ast.Raise) for n in ast.walk(handler))


def test_nothing_swallows_attribute_error():
    """A missing attribute is a bug to see: no handler catches AttributeError and carries on (one
    that turns it into a one-line error for a malformed input file still reports it)."""
    bad = []
    for rel, tree in sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.ExceptHandler) and node.type is not None and \
                    "AttributeError" in ast.unparse(node.type) and not _raises(node):
                bad.append(f"{rel}:{node.lineno}")
    assert not bad, "AttributeError caught and dropped: " + ", ".join(bad)


def test_mfact_error_comes_from_errors():
    bad = []
    for rel, tree in sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("protocols") and \
                    any(a.name == "MfactError" for a in node.names):
                bad.append(f"{rel}:{node.lineno}")
    assert not bad, "MfactError imported through protocols (import it from core/errors.py): " + ", ".join(bad)


# ---------------------------------------------------------------------------- the checking packages

# Each package of core/checking/ may import its own modules and those of the packages ranked below
# it, never one above: text and lexicon know no slot, the slot checks no extractor nor verifier.
LAYERS = {"text": 0, "lexicon": 1, "neural": 2, "slots": 3, "extract": 4, "verify": 5}
CHECKING = ROOT / "core" / "checking"


def _imported_checking_packages(path: Path) -> set[str]:
    """The core/checking packages that `path` imports (relative or absolute, at any depth)."""
    rel = path.relative_to(ROOT / "core").with_suffix("").parts
    pkg = ["mfact", "core", *rel[:-1]]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = pkg[: len(pkg) - (node.level - 1)]
            target = [*base, *(node.module.split(".") if node.module else [])]
        else:
            target = (node.module or "").split(".")
        names = [a.name for a in node.names]
        if target[:3] != ["mfact", "core", "checking"]:
            continue
        if len(target) > 3:
            out.add(target[3])
        else:
            out |= {n for n in names if n in LAYERS}
    return out


def layering_violations(root: Path = CHECKING) -> list[str]:
    bad = []
    for pkg, rank in LAYERS.items():
        for path in sorted((root / pkg).rglob("*.py")):
            for other in _imported_checking_packages(path) - {pkg}:
                if other in LAYERS and LAYERS[other] > rank:
                    bad.append(f"{path.relative_to(ROOT)} imports checking.{other}")
    return bad


def test_the_checking_packages_import_only_downwards():
    assert not layering_violations(), "; ".join(layering_violations())


def test_the_layering_check_sees_an_upward_import(tmp_path, monkeypatch):
    fake = ROOT / "core" / "checking" / "text" / "_layering_probe.py"
    fake.write_text("from ..slots.check import check_slots\n", encoding="utf-8")
    try:
        assert layering_violations() == ["core/checking/text/_layering_probe.py imports checking.slots"]
    finally:
        fake.unlink()


def test_checking_has_few_entries_and_no_file_of_core_is_long():
    entries = sorted(p.name for p in CHECKING.iterdir() if p.name != "__pycache__")
    assert len(entries) <= 8, entries
    assert set(LAYERS) <= set(entries)
    long = [f"{p.relative_to(ROOT)} ({n})" for p in sorted((ROOT / "core").rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800]
    assert not long, "over 800 lines: " + ", ".join(long)


def test_changing_one_rule_table_changes_the_rules_version(tmp_path):
    """The rules' version is a digest of their code and tables: editing a word table (or any rule)
    re-judges cached verdicts without a hand-kept number."""
    import shutil

    from mfact.core.versions import EXTRACTOR_PACKAGES, RULE_PACKAGES, code_digest, rules_version
    from mfact.core.checking.extract.rules import RuleExtractor

    copy = tmp_path / "checking"
    shutil.copytree(CHECKING, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pt", "*.npz"))
    before, before_x = code_digest(RULE_PACKAGES, copy), code_digest(EXTRACTOR_PACKAGES, copy)
    assert before == rules_version()[1:] and RuleExtractor().version == "x" + before_x
    table = copy / "data" / "occupation.json"
    table.write_text(table.read_text(encoding="utf-8").replace("{", '{"_probe": 1, ', 1), encoding="utf-8")
    assert code_digest(RULE_PACKAGES, copy) != before
    assert code_digest(EXTRACTOR_PACKAGES, copy) != before_x
    rule = copy / "slots" / "values.py"
    rule.write_text(rule.read_text(encoding="utf-8") + "\n# a changed rule\n", encoding="utf-8")
    changed = code_digest(RULE_PACKAGES, copy)
    assert changed not in (before, code_digest(EXTRACTOR_PACKAGES, copy))
