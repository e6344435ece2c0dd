"""The adaptation learnt from the user's labels, in the app (core/adapt).

With config `adapt = auto`, every REFIT_EVERY new labels set in this app start a refit (one at a
time; a refit asked for while one runs follows it). A Textual thread worker (group `adapt`) hands
it to a worker process of its own (started at the 20th label, so its imports are done by the
25th): there it reads the store through its own connection, fits and decides as `mfact learn` does
and writes the adaptation file, and the fit never holds the UI thread's interpreter lock (in a
thread it did: key latency p95 rose from 117 to 319 ms at load 12). Without a process (it could
not start) the fit runs in the worker thread. New verdicts use it at once (the pipeline's
`Adapter` reads the changed file); the verdicts already shown stay as they are (`mfact rejudge`
changes stored ones). The check screen's metrics bar shows, for its language, "adapted: n labels,
+x pts" (the held-out gain in accuracy) or "not adapted: n labels".
"""
from __future__ import annotations

import logging
import time
from functools import partial
from pathlib import Path
from typing import Any

log = logging.getLogger("mfact.tui")
REFIT_EVERY = 25
WARM_AHEAD = 5          # the worker process starts this many labels before the first refit


class AdaptWatch:
    def __init__(self, app: Any):
        self.app = app
        self.new_labels = 0
        self.running = False
        self.again = False
        self.fits = 0                  # refits finished in this app
        self.last_seconds: float | None = None       # the last refit, reading the store to writing
        self.last_cpu: float | None = None           # and the CPU seconds it took
        self._adaptation: Any = None
        self._loaded = False
        self._proc: Any = None          # the RefitProcess; None: not started yet, False: none
        self._verifier_id: tuple[str, str] = ("", "")     # (cfg.verifier, its name/version), worker-side
        self.closed = False

    @property
    def enabled(self) -> bool:
        return getattr(self.app.cfg, "adapt", "auto") == "auto"

    def adaptation(self):
        """The adaptation in the file (read once; a refit here replaces it), or None."""
        if not self._loaded:
            self._loaded = True
            from mfact.core.adapt import load_adaptation
            try:
                self._adaptation = load_adaptation()
            except Exception:  # noqa: BLE001 - an unreadable file adapts nothing; `mfact learn` says why
                log.warning("the adaptation file is unreadable", exc_info=True)
            if self._adaptation is not None and self.enabled:
                self.app.run_worker(partial(self._resolve_verifier, self.app.cfg), name="adapt-verifier",
                                    thread=True, group="adapt", exit_on_error=False)
        return self._adaptation

    def _resolve_verifier(self, cfg) -> None:
        """In a worker thread: the configured verifier's name/version, which the file's adaptation
        must have been fitted on to apply (the indicator says so when it was not)."""
        try:
            self._verifier_of(cfg)
        except Exception:  # noqa: BLE001 - unknown: the indicator shows the file as it is
            log.warning("naming the verifier's version failed", exc_info=True)
            return
        self.app.call_from_thread(self._show)

    def _verifier_of(self, cfg) -> str:
        """Off the UI thread: the name/version of `cfg`'s verifier (building one to ask), kept."""
        if self._verifier_id[0] != cfg.verifier:
            from mfact.core.adapt import refit
            self._verifier_id = (cfg.verifier, refit.verifier_id(cfg))
        return self._verifier_id[1]

    def _show(self) -> None:
        """On the UI thread: the metrics bars show the indicator as it is now."""
        for screen in self.app.check_screens():
            screen.panes.render_header()

    def indicator(self, lang: str) -> str:
        """The metrics bar's words for `lang` ("" when nothing was learnt for it)."""
        if not self.enabled:
            return ""
        a = self.adaptation()
        e = a.languages.get(lang) if a is not None and not a.reset else None
        if e is None:
            return ""
        from mfact.core.adapt.features import verifier_matches
        if self._verifier_id[1] and not verifier_matches(self._verifier_id[1], a.verifier):
            return f"not adapted: fitted on another verifier ({a.verifier[:28]})"
        if e.adopted and e.gain_points is not None:
            return f"adapted: {e.labels} labels, {e.gain_points:+.1f} pts"
        return f"not adapted: {e.labels} labels"

    def labelled(self) -> None:
        """A new label was set (UI thread): refit after every REFIT_EVERY of them."""
        if not self.enabled:
            return
        self.new_labels += 1
        if self._proc is None and self.new_labels >= REFIT_EVERY - WARM_AHEAD:
            self._start_process()
        if self.new_labels >= REFIT_EVERY:
            self.refit()

    def _start_process(self) -> None:
        """The refit process (core/adapt/refit.py), its imports done while the labels come."""
        from mfact.core.adapt.refit import RefitProcess
        try:
            self._proc = RefitProcess()
        except Exception:  # noqa: BLE001 - the fit runs in the worker thread instead
            log.warning("no process for the adaptation's refits", exc_info=True)
            self._proc = False

    def close(self, quitting: bool = True) -> None:
        """The app is quitting: the refit process goes (a refit under way is dropped)."""
        self.closed = self.closed or quitting
        proc, self._proc = self._proc, False
        if proc:
            proc.close()

    def refit(self) -> None:
        store = self.app.store
        if store is None:
            return
        self.new_labels = 0
        if self.closed:
            return
        if self.running:
            self.again = True
            return
        if self._proc is None:
            self._start_process()
        self.running = True
        self.app.run_worker(partial(self._fit, Path(store.path), self.app.cfg), name="adapt-refit",
                            description="refit the adaptation to the labels", thread=True, group="adapt",
                            exit_on_error=False)

    def _fit(self, path: Path, cfg) -> None:
        """In the worker thread: the refit, in the worker process when there is one, on the labels
        of the verdicts this version of the configured verifier made."""
        from mfact.core.adapt import adaptation as A
        from mfact.core.adapt import refit

        result = None
        t0 = time.perf_counter()
        try:
            target = A.adaptation_path()
            args = (str(path), str(target), self._verifier_of(cfg))
            version = None
            if self._proc:
                try:
                    version, _seconds, self.last_cpu = self._proc.refit(*args)
                except Exception:  # noqa: BLE001 - a broken process: this fit runs here
                    log.warning("the refit process failed; fitting in the thread", exc_info=True)
                    self.close(quitting=False)
            if not self._proc and not self.closed:
                version, _seconds, self.last_cpu = refit.refit_in_process(*args)
            if version is not None:
                result = A.load_adaptation(target)
                self.last_seconds = time.perf_counter() - t0      # read, fit, decide and write
        except Exception:  # noqa: BLE001 - the app goes on unadapted; the log has it
            log.exception("refitting the adaptation failed")
        self.app.call_from_thread(self._done, result)

    def _done(self, result) -> None:
        """Back on the UI thread: show the new figures; a refit asked for meanwhile runs now."""
        self.running = False
        if result is not None:
            self._adaptation, self._loaded = result, True
            self.fits += 1
        self._show()
        if self.again:
            self.again = False
            self.refit()
