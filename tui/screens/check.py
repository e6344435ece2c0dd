"""The check screen: the text streaming with its facts coloured, the fact list, the evidence.

All checking happens in `CheckPipeline.run(...)`, iterated in a daemon thread. The thread only
appends events to a queue and posts one `PipelineWake` when the queue was empty; the UI thread
drains the whole queue at once and re-renders once, so streamed tokens are batched per frame.
"""
from __future__ import annotations

import collections
import copy
import logging
import threading
from dataclasses import replace

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, ProgressBar

from mfact.core.events import (EvidenceEvent, FactEvent, MetricsEvent, NoticeEvent, ProgressEvent,
                               SentenceEvent, StopEvent, TokenEvent, VerdictEvent)
from mfact.core.protocols import MfactError, Progress
from mfact.core.session import Entity, GeneratorInfo, HumanLabel, Session
from mfact.core.store import LabelConflict

from ..keys import bindings
from ..messages import FactClicked, MetricsReady, PipelineWake
from ..render import Palette, fact_text
from ..widgets.evidence_view import EvidenceView, evidence_text
from ..widgets.fact_list import HEADER, FactList
from ..widgets.metrics_bar import MetricsBar, metrics_text
from ..widgets.text_view import FactText

log = logging.getLogger("mfact.tui")
STORE_POLL_S = 1.0     # how often a window looks for changes made elsewhere (and on focus)
# The text pane draws at most this many characters of a long text at once: a window around the
# selected fact (the end while streaming), with a notice of what is shown. Re-wrapping a whole
# 1 MB text took over a second per key press; a window of 4,000 characters (more than a pane
# holds) keeps every key well under 50 ms.
TEXT_WINDOW = 4_000
# The drift p-value (1000 permutations) is recomputed after each relabel up to this many facts;
# above it the window shows the other figures at once and `mfact score` gives the p-value.
P_VALUE_MAX_FACTS = 2_000


class _Finished:
    """Sentinel the worker queues when `run()` is over (normally or not)."""

    def __init__(self, error: bool = False):
        self.error = error


PANES = ("#text-pane", "#facts", "#evidence")
STREAM_FPS = 15


class CheckScreen(Screen):
    """Check one text: either run the pipeline (`entity`, `lang`) or reopen a saved `session`."""

    BINDINGS = bindings("check")
    SCOPE = "check"

    def __init__(self, *, entity: Entity | str | None = None, lang: str | None = None,
                 text: str | None = None, session: Session | None = None):
        super().__init__()
        if session is None and (entity is None or lang is None):
            raise ValueError("CheckScreen needs a session or an entity and a language")
        self._run_args = (entity, lang, text)
        if session is not None:
            self.session = session
        else:
            ent = entity if isinstance(entity, Entity) else Entity(name=str(entity))
            self.session = self._new_session(ent, lang)
        self.metrics: dict = dict(self.session.metrics or {})
        self.checks: dict = dict(self.session.checks or {})
        self.passages: dict[str, list] = {}
        # (fact id, previous label, the store's history seq of this window's change or None)
        self.undo_stack: list[tuple[str, HumanLabel | None, int | None]] = []
        self._store_seen: tuple | None = None     # (data_version, session revision) last seen
        self.selected: str | None = None
        self.show_drift = True
        self.running = False
        self.tokens_per_s = 0.0
        self.saved = session is not None
        self._queue: collections.deque = collections.deque()
        self._wake_pending = False
        self._stop = threading.Event()
        self._pending_regen = False
        self._metrics_gen = 0
        self._deferred: set[str] = set()
        self._text_shape: tuple = ()
        self._evidence_shape: tuple = ()
        self._flush_timer = None
        self._status = ""
        self.widths = {p: 1.0 for p in PANES}
        if session is not None:
            self._passages_from_session()

    def _passages_from_session(self) -> None:
        """A saved session keeps the passages each verdict used: show those, best first."""
        by_id = self.session.evidence_by_id()
        for f in self.session.facts:
            if f.auto is not None and f.auto.evidence:
                evs = [by_id[e] for e in f.auto.evidence if e in by_id]
                self.passages[f.id] = sorted(evs, key=lambda e: -e.score)

    def _new_session(self, ent: Entity, lang: str) -> Session:
        cfg = self.app_cfg()
        return Session(language=lang, entity=ent, status="running",
                       generator=GeneratorInfo(backend="", model=cfg.model if cfg else "",
                                               seed=cfg.seed if cfg else None))

    def app_cfg(self):
        try:
            return self.app.cfg
        except Exception:  # noqa: BLE001 - not mounted yet
            return None

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield MetricsBar(id="metrics")
        yield ProgressBar(id="prep", show_eta=False)
        with Horizontal(id="panes"):
            yield FactText(id="text-pane")
            yield FactList(id="facts")
            yield EvidenceView(id="evidence")
        yield Footer()

    @property
    def palette(self) -> Palette:
        return Palette.from_theme(self.app.current_theme)

    def on_mount(self) -> None:
        self.query_one("#prep").display = False
        self.query_one("#text-pane").border_title = "text"
        self.query_one("#facts").border_title = "facts"
        self.query_one("#facts").border_subtitle = HEADER.strip()
        self.query_one("#evidence").border_title = "evidence"
        self.query_one(FactList).focus()
        if self.saved:
            self._rebuild_table()
            if self.session.facts:
                self._select(self.session.facts[0].id)
            self._render_all()
        else:
            self._start()
        self.watch(self.app, "theme", lambda _: self._on_theme(), init=False)
        self.check_store()          # the baseline
        self.set_interval(STORE_POLL_S, self.check_store)

    # ------------------------------------------------------------------ other windows

    def check_store(self) -> bool:
        """Take in changes another window or process made to this session in the store (labels,
        or a re-import). Cheap when nothing changed: one PRAGMA. True when something was taken in."""
        store = self.app.store if self.is_mounted else None
        if store is None or not self.saved or self.running:
            return False
        try:
            version = store.data_version()
            if self._store_seen is not None and self._store_seen[0] == version:
                return False
            rev = store.session_revision(self.session.id)
            first = self._store_seen is None
            changed = not first and rev != self._store_seen[1]
            self._store_seen = (version, rev)
            if not changed:
                return False
            labels = store.human_labels(self.session.id)
            if set(labels) != {f.id for f in self.session.facts}:   # re-imported with other facts
                self.session = store.get_session(self.session.id)
                self.undo_stack.clear()
                self._passages_from_session()
                self._rebuild_table()
                self._render_all()
                self._recompute_metrics()
                self.notify("This session was replaced elsewhere; showing the new version.", timeout=4)
                return True
        except Exception:  # noqa: BLE001 - a busy or vanished store: try again at the next tick
            log.debug("store check failed", exc_info=True)
            return False
        moved = []
        for f in self.session.facts:
            new = labels.get(f.id)
            if (new.label if new else None) != (f.human.label if f.human else None):
                f.human = new
                moved.append(f)
        for f in moved:
            self._upsert_row(f.id)
        if moved:
            self._render_text()
            self._render_evidence()
            self._recompute_metrics()
            self.notify(f"{len(moved)} label{'s' if len(moved) != 1 else ''} changed in another window.",
                        timeout=3)
        return bool(moved)

    def _on_theme(self) -> None:
        self._rebuild_table()
        self._render_all()

    # ------------------------------------------------------------------ the worker

    def _start(self) -> None:
        entity, lang, text = self._run_args
        self.running = True
        self._status = "starting"
        self._stop = threading.Event()
        self._render_all()
        # A daemon thread, not a Textual thread worker: those run in asyncio's default executor,
        # which the interpreter waits for at exit; a model still loading would hold `q` for
        # seconds. Everything the thread produces is saved by `shutdown()` before the app exits.
        threading.Thread(target=self._run_pipeline, name="mfact-tui-pipeline", daemon=True,
                         args=(self.session.entity, self.session.language, text,
                               self._stop)).start()

    def _run_pipeline(self, entity: Entity, lang: str, text: str | None,
                      stop: threading.Event) -> None:
        error = False
        try:
            pipe = self.app.get_pipeline(on_progress=lambda p: self._push(ProgressEvent(p)))
            events = pipe.run(entity, lang, stop=stop, text=text)
            try:
                for ev in events:
                    self._push(ev)
                    if isinstance(ev, StopEvent):
                        break
                    if stop.is_set() and getattr(self, "_shutting_down", False):
                        break
            finally:
                close = getattr(events, "close", None)
                if close is not None:
                    close()
        except MfactError as exc:
            error = True
            self._push(NoticeEvent("error", exc.message, exc.hint))
        except Exception as exc:  # noqa: BLE001 - shown as a toast, details in the log
            error = True
            log.exception("pipeline failed")
            self._push(NoticeEvent("error", f"{type(exc).__name__}: {exc}",
                                   "details in the log (mfact.log)"))
        finally:
            self._push(_Finished(error))

    def _push(self, ev) -> None:
        """Called from the worker thread: queue the event, wake the UI once per drain."""
        self._queue.append(ev)
        if not self._wake_pending:
            self._wake_pending = True
            self.post_message(PipelineWake())

    def on_pipeline_wake(self, message: PipelineWake) -> None:
        self._wake_pending = False
        dirty: set[str] = set()
        q = self._queue
        while q:
            self._apply(q.popleft(), dirty)
        self._render_dirty(dirty)

    def drain_now(self) -> None:
        """Apply every queued event now (tests and the quit path)."""
        self.on_pipeline_wake(PipelineWake())

    # ------------------------------------------------------------------ applying events

    def _apply(self, ev, dirty: set[str]) -> None:
        s = self.session
        if isinstance(ev, TokenEvent):
            s.text += ev.text
            s.tokens = ev.total_tokens or (s.tokens + ev.tokens)
            self.tokens_per_s = ev.tokens_per_s or self.tokens_per_s
            self._status = "generating"
            dirty.update(("text", "header"))
        elif isinstance(ev, SentenceEvent):
            self._status = "checking" if not self._status else self._status
        elif isinstance(ev, FactEvent):
            f = copy.copy(ev.fact)
            try:
                old = s.fact(f.id)
                old.text, old.span, old.sentence = f.text, f.span, f.sentence
            except KeyError:
                s.facts.append(f)
            dirty.update(("text", "header", "table:" + f.id))
            if self.selected is None:
                self.selected = f.id
                dirty.add("select")
        elif isinstance(ev, EvidenceEvent):
            self.passages[ev.fact_id] = list(ev.passages)
            have = {e.id for e in s.evidence}
            s.evidence.extend(e for e in ev.passages if e.id not in have)
            if ev.fact_id == self.selected:
                dirty.add("evidence")
        elif isinstance(ev, VerdictEvent):
            try:
                f = s.fact(ev.fact_id)
            except KeyError:
                return
            f.auto = ev.verdict
            dirty.update(("text", "header", "table:" + f.id))
            if ev.fact_id == self.selected:
                dirty.add("evidence")
        elif isinstance(ev, MetricsEvent):
            self.checks = dict(ev.checks or {})
            if any(f.human is not None for f in s.facts):
                self._recompute_metrics()    # the pipeline does not know the human labels
            else:
                self.metrics = dict(ev.metrics or {})
            dirty.update(("header", "text"))
        elif isinstance(ev, ProgressEvent):
            self._show_progress(ev.progress)
        elif isinstance(ev, NoticeEvent):
            sev = {"error": "error", "warning": "warning"}.get(ev.level, "information")
            msg = ev.message + (f"\n{ev.hint}" if ev.hint else "")
            self.app.notify(msg, severity=sev, timeout=8 if sev == "error" else 4, markup=False)
        elif isinstance(ev, StopEvent):
            self._finish(ev.session, ev.reason)
            dirty.add("all")
        elif isinstance(ev, _Finished):
            if self.running:      # no StopEvent: an error ended the run
                s.status = "done"
                s.stop_reason = "error" if ev.error else (s.stop_reason or "user")
                self.running = False
                self._save()
                dirty.add("all")
            self.query_one("#prep").display = False
            if self._pending_regen:
                self._pending_regen = False
                self.call_later(self._restart)

    def _finish(self, final: Session, reason: str) -> None:
        """Adopt the pipeline's complete session, keeping the labels the user set meanwhile."""
        mine = self.session
        humans = {f.id: f.human for f in mine.facts if f.human is not None}
        final.id = mine.id
        final.created_at = mine.created_at
        final.name = mine.name or final.name
        for f in final.facts:
            if f.id in humans and f.human is None:
                f.human = humans[f.id]
        final.status = "done"
        final.stop_reason = final.stop_reason or reason
        self.session = final
        if final.metrics:
            self.metrics = dict(final.metrics)
        if final.checks:
            self.checks = dict(final.checks)
        self.running = False
        self._status = reason
        self._save()
        if humans:
            self._recompute_metrics()
        self._rebuild_table()

    def _show_progress(self, p: Progress) -> None:
        bar = self.query_one("#prep", ProgressBar)
        finished = p.total is not None and p.done >= p.total
        bar.display = not finished
        bar.update(total=p.total, progress=p.done)
        self._status = p.message or p.stage

    # ------------------------------------------------------------------ rendering

    def _render_dirty(self, dirty: set[str]) -> None:
        if not dirty:
            return
        if "all" in dirty:
            self._render_all()
            return
        for d in dirty:
            if d.startswith("table:"):
                self._upsert_row(d[6:])
        if "select" in dirty:
            self._select(self.selected)
        # the streamed text and the header are redrawn at most STREAM_FPS times a second: the
        # stream never competes with keys for the frame
        deferred = dirty & {"text", "header"}
        if deferred:
            self._deferred |= deferred
            if self._flush_timer is None:
                self._flush_timer = self.set_timer(1 / STREAM_FPS, self._flush_deferred)
        if "evidence" in dirty:
            self._render_evidence()

    def _flush_deferred(self) -> None:
        self._flush_timer = None
        d, self._deferred = self._deferred, set()
        if "text" in d:
            self._render_text()
        if "header" in d:
            self._render_header()

    def _render_all(self) -> None:
        self._render_text()
        self._render_header()
        self._render_evidence()

    def _render_text(self) -> None:
        dp = self.metrics.get("drift_point")
        text, facts = self.session.text, self.session.facts
        if len(text) <= TEXT_WINDOW:
            self.query_one(FactText).set_text(fact_text(
                text, facts, self.palette, self.selected, dp, self.show_drift), follow=self.running)
            return
        start, end = self._text_window()
        shown = [replace(f, span=(max(f.span[0], start) - start, min(f.span[1], end) - start))
                 for f in facts if f.span[1] > start and f.span[0] < end]
        drift = None
        if dp is not None and 0 < dp < len(facts) and start <= facts[dp].span[0] < end:
            drift = next((i for i, f in enumerate(shown) if f.id == facts[dp].id), None)
        body = fact_text(text[start:end], shown, self.palette, self.selected, drift, self.show_drift)
        notice = Text(f"[long text: characters {start + 1:,}-{end:,} of {len(text):,} shown;"
                      f" the view follows the selected fact]", style="dim italic")
        out = Text()
        if start > 0:
            out.append_text(notice)
            out.append("\n")
        out.append_text(body)
        if end < len(text):
            out.append("\n")
            out.append_text(notice)
        self.query_one(FactText).set_text(out, follow=self.running)

    def _text_window(self) -> tuple[int, int]:
        """[start, end) of the text the pane shows: around the selected fact (the end while
        streaming), cut at a space when there is one nearby."""
        text = self.session.text
        n = len(text)
        f = self._fact(self.selected)
        center = n if (self.running or f is None and n and self.session.status == "running") else (
            f.span[0] if f is not None else 0)
        start = max(0, min(n - TEXT_WINDOW, center - TEXT_WINDOW // 3))
        if start > 0:
            sp = text.find(" ", start, start + 200)
            start = sp + 1 if sp != -1 else start
        end = min(n, start + TEXT_WINDOW)
        if end < n:
            sp = text.rfind(" ", end - 200, end)
            end = sp if sp > start else end
        return start, end

    def _render_header(self) -> None:
        cfg = self.app_cfg()
        self.query_one(MetricsBar).update(metrics_text(
            self.session, self.metrics, self.checks, self.palette, running=self.running,
            tokens_per_s=self.tokens_per_s, max_tokens=cfg.max_tokens if cfg else None,
            status=self._status or (self.session.stop_reason or "")), layout=False)

    def _render_evidence(self) -> None:
        view = self.query_one(EvidenceView)
        fact = self._fact(self.selected)
        passages = self.passages.get(self.selected, []) if fact else []
        pending = bool(fact) and self.running and self.selected not in self.passages
        loading = pending and fact is not None and fact.auto is None
        if view.loading != loading:
            view.loading = loading
        used = set(fact.auto.evidence) if fact is not None and fact.auto else set()
        shape = (self.selected, len(passages), bool(fact and fact.auto and fact.auto.reason),
                 pending, self.size.width)
        layout = shape != self._evidence_shape
        self._evidence_shape = shape
        view.show(evidence_text(fact, passages, self.palette, used, pending), layout=layout)

    def _rebuild_table(self) -> None:
        table = self.query_one(FactList)
        cursor = self.selected
        table.clear()
        pal = self.palette
        for n, f in enumerate(self.session.facts, 1):
            table.upsert(n, f, pal)
        if cursor is not None and cursor in table:
            table.move_to(cursor)

    def _upsert_row(self, fact_id: str) -> None:
        table = self.query_one(FactList)
        i = table.index_of(fact_id)
        facts = self.session.facts
        if i is not None and i < len(facts) and facts[i].id == fact_id:   # the usual case: O(1)
            table.upsert(i + 1, facts[i], self.palette)
            return
        for n, f in enumerate(self.session.facts, 1):
            if f.id == fact_id:
                table.upsert(n, f, self.palette)
                return

    # ------------------------------------------------------------------ selection

    def _fact(self, fact_id: str | None):
        if fact_id is None:
            return None
        try:
            return self.session.fact(fact_id)
        except KeyError:
            return None

    def _select(self, fact_id: str | None) -> None:
        table = self.query_one(FactList)
        if fact_id is not None and fact_id in table:
            table.move_to(fact_id)
        if fact_id != self.selected:
            self.selected = fact_id
        self._render_text()
        self._render_evidence()

    @on(FactList.Highlighted)
    def _row_highlighted(self, event: FactList.Highlighted) -> None:
        if event.fact_id != self.selected:
            self.selected = event.fact_id
            self._render_text()
            self._render_evidence()

    @on(FactList.Chosen)
    def _row_chosen(self, event: FactList.Chosen) -> None:
        self.action_focus_evidence()

    def on_fact_clicked(self, message: FactClicked) -> None:
        if self._fact(message.fact_id) is not None:
            self._select(message.fact_id)

    def action_next_fact(self) -> None:
        self._move(1)

    def action_prev_fact(self) -> None:
        self._move(-1)

    def _move(self, step: int) -> None:
        facts = self.session.facts
        if not facts:
            return
        i = self.query_one(FactList).index_of(self.selected) if self.selected is not None else None
        if i is None or i >= len(facts) or facts[i].id != self.selected:
            ids = [f.id for f in facts]
            i = ids.index(self.selected) if self.selected in ids else None
        if i is None:
            target = facts[0].id if step > 0 else facts[-1].id
        else:
            target = facts[max(0, min(len(facts) - 1, i + step))].id
        self._select(target)

    # ------------------------------------------------------------------ labels

    def action_relabel(self, label: str) -> None:
        f = self._fact(self.selected)
        if f is None:
            self.app.bell()
            return
        prev = f.human
        f.human = HumanLabel(label)
        seq = self._persist_label(f)
        self.undo_stack.append((f.id, prev, seq))
        self._after_label_change(f)

    def action_undo(self) -> None:
        if not self.undo_stack:
            self.notify("Nothing to undo.", timeout=2)
            return
        fact_id, prev, seq = self.undo_stack.pop()
        f = self._fact(fact_id)
        if f is None:
            return
        if self.selected != fact_id:
            self._select(fact_id)
        store = self.app.store
        done = False
        if seq is not None and store is not None and self.saved and not self.running:
            try:
                change = store.undo_label(self.session.id, seq=seq)   # this window's own change only
                done = change is not None
            except LabelConflict as exc:
                f.human = HumanLabel(exc.label) if exc.label else None
                self.notify(exc.message, timeout=4, markup=False)
                self._after_label_change(f)
                return
            except Exception:  # noqa: BLE001 - fall back to writing the previous label
                log.exception("undo in the store failed")
        f.human = prev
        if not done:
            self._persist_label(f)
        self._after_label_change(f)

    def _after_label_change(self, f) -> None:
        if self.running:      # the run in progress carries the label into its final session
            pipe = getattr(self.app, "_pipeline", None)
            setter = getattr(pipe, "set_human_label", None)
            if setter is not None:
                setter(f.id, f.human.label if f.human else None)
        self._upsert_row(f.id)
        self._render_text()
        self._render_evidence()
        self._recompute_metrics()

    def _persist_label(self, f) -> int | None:
        """Write the fact's human label to the store at once. The store's history seq of the change
        when it went through `relabel` (so that undo can take back exactly this change)."""
        store = self.app.store
        if store is None:
            return None
        try:
            if self.saved and not self.running:
                return store.relabel(self.session.id, f.id, f.human.label if f.human else None).seq
            self._save()
        except MfactError as exc:
            self.app.notify(f"{exc.message}\n{exc.hint}", severity="error", markup=False)
            self._save()
        return None

    def _save(self) -> None:
        store = self.app.store
        if store is None:
            return
        try:
            store.save_session(self.session)
            self.saved = True
        except Exception as exc:  # noqa: BLE001 - keep the app alive; say what happened
            log.exception("saving the session failed")
            self.app.notify(f"Could not save the session: {exc}", severity="error", markup=False)

    def _recompute_metrics(self) -> None:
        if len(self.session.facts) > P_VALUE_MAX_FACTS or len(self.session.text) > 10 * TEXT_WINDOW:
            # a big session: one recompute after the keys stop (each takes a while and holds the
            # interpreter; several at once made every key wait)
            timer = getattr(self, "_metrics_timer", None)
            if timer is not None:
                timer.stop()
            self._metrics_timer = self.set_timer(0.4, self._recompute_metrics_now)
            return
        self._recompute_metrics_now()

    def _recompute_metrics_now(self) -> None:
        self._metrics_timer = None
        self._metrics_gen += 1
        snap = copy.copy(self.session)
        snap.facts = list(self.session.facts)     # the facts are copied in the worker, off the UI thread
        self._metrics_worker(snap, self._metrics_gen)

    @work(thread=True, exclusive=True, group="metrics", exit_on_error=False)
    def _metrics_worker(self, snap: Session, gen: int) -> None:
        # a label set meanwhile replaces a fact's `human` reference: the copy sees the old or the new
        # one, and the newer generation's metrics win anyway
        snap.facts = [copy.copy(f) for f in snap.facts]
        try:
            from mfact.core import metrics
            from mfact.core.checks import calm_checks

            # the CaLMScore checks depend on the text only: computed once per text, not per relabel
            key = (snap.id, len(snap.text), hash(snap.text))
            if getattr(self, "_calm_key", None) != key:
                self._calm = snap.checks if metrics._has_calm(snap.checks) else calm_checks(
                    snap.text, snap.language)
                self._calm_key = key
            result = metrics.session_metrics(snap, checks=self._calm,
                                             p_value=len(snap.facts) <= P_VALUE_MAX_FACTS)
        except Exception:  # noqa: BLE001 - metrics module missing or failed: keep the old ones
            log.exception("metrics failed")
            return
        self.post_message(MetricsReady(snap.id, gen, result))

    def on_metrics_ready(self, message: MetricsReady) -> None:
        if message.generation != self._metrics_gen or message.session_id != self.session.id:
            return
        self.metrics = dict(message.metrics)
        self.session.metrics = dict(message.metrics)
        calm = message.metrics.get("calm")
        if calm and not self.checks:
            self.checks = dict(calm)
        self._render_header()
        self._render_text()

    # ------------------------------------------------------------------ other actions

    def action_focus_evidence(self) -> None:
        self.query_one(EvidenceView).focus()

    def action_cycle_panes(self) -> None:
        order = [self.query_one(p) for p in PANES]
        focused = self.focused
        i = next((n for n, w in enumerate(order) if w is focused or
                  (focused is not None and w in focused.ancestors_with_self)), -1)
        order[(i + 1) % len(order)].focus()

    def action_resize_pane(self, step: int) -> None:
        focused = self.focused
        for p in PANES:
            w = self.query_one(p)
            if focused is not None and w in focused.ancestors_with_self:
                self.widths[p] = max(0.4, min(4.0, self.widths[p] + 0.25 * step))
                w.styles.width = f"{self.widths[p]}fr"
                return
        self.app.bell()

    def action_toggle_drift(self) -> None:
        self.show_drift = not self.show_drift
        self._render_text()

    def action_stop(self) -> None:
        if not self.running:
            self.notify("Nothing is generating.", timeout=2)
            return
        self._stop.set()
        self._status = "stopping"
        self._render_header()

    def action_regenerate(self) -> None:
        if self._run_args[0] is None and not self.session.entity.name:
            self.app.bell()
            return
        if self.running:
            self._pending_regen = True
            self._stop.set()
            return
        self._restart()

    def _restart(self) -> None:
        cfg = self.app_cfg()
        if cfg is not None:
            cfg.seed += 1
        self.session = self._new_session(self.session.entity, self.session.language)
        self._run_args = (self.session.entity, self.session.language, None)
        self.metrics, self.checks, self.passages = {}, {}, {}
        self.undo_stack.clear()
        self.selected = None
        self.saved = False
        self.tokens_per_s = 0.0
        self.query_one(FactList).clear()
        self._start()

    def action_export(self) -> None:
        from .export import ExportScreen
        self.app.push_screen(ExportScreen(self.session, getattr(self.app, "export_dir", None)))

    def action_new_check(self) -> None:
        self.shutdown()
        self.app.pop_to_start()

    def shutdown(self) -> None:
        """Stop the worker and save what there is (called on quit and when leaving)."""
        self._shutting_down = True
        if self.running:
            self._stop.set()
            self.drain_now()
            if self.running:
                self.session.status = "done"
                self.session.stop_reason = self.session.stop_reason or "user"
                self.running = False
                self._save()
        elif self.session.facts or self.session.text:
            if not self.saved:
                self._save()
