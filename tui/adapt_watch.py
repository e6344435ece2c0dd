"""The adaptation learnt from the user's labels, in the app (core/adapt).

With config `adapt = auto`, every REFIT_EVERY new labels set in this app start a refit in a Textual
thread worker (group `adapt`; one at a time, a refit asked for while one runs follows it): it reads
the store through its own connection (the UI thread's store is never held), fits and decides as
`mfact learn` does, and writes the adaptation file. New verdicts use it at once (the pipeline's
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


class AdaptWatch:
    def __init__(self, app: Any):
        self.app = app
        self.new_labels = 0
        self.running = False
        self.again = False
        self.fits = 0                  # refits finished in this app
        self.last_seconds: float | None = None       # the last refit, reading the store to writing
        self._adaptation: Any = None
        self._loaded = False

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
        return self._adaptation

    def indicator(self, lang: str) -> str:
        """The metrics bar's words for `lang` ("" when nothing was learnt for it)."""
        if not self.enabled:
            return ""
        a = self.adaptation()
        e = a.languages.get(lang) if a is not None and not a.reset else None
        if e is None:
            return ""
        if e.adopted and e.gain_points is not None:
            return f"adapted: {e.labels} labels, {e.gain_points:+.1f} pts"
        return f"not adapted: {e.labels} labels"

    def labelled(self) -> None:
        """A new label was set (UI thread): refit after every REFIT_EVERY of them."""
        if not self.enabled:
            return
        self.new_labels += 1
        if self.new_labels >= REFIT_EVERY:
            self.refit()

    def refit(self) -> None:
        store = self.app.store
        if store is None:
            return
        self.new_labels = 0
        if self.running:
            self.again = True
            return
        self.running = True
        self.app.run_worker(partial(self._fit, Path(store.path), self.app.cfg.verifier), name="adapt-refit",
                            description="refit the adaptation to the labels", thread=True, group="adapt",
                            exit_on_error=False)

    def _fit(self, path: Path, verifier: str) -> None:
        """In the worker thread: fit, decide and write, as `mfact learn` does."""
        from mfact.core.adapt import adaptation as A
        from mfact.core.adapt.features import verifier_name
        from mfact.core.adapt.learn import learn_from_store
        from mfact.core.store import Store

        result = None
        t0 = time.perf_counter()
        try:
            with Store(path) as store:
                res = learn_from_store(store, verifier_name(verifier))
            if res.labels:
                try:
                    keep = A.load_adaptation()
                except Exception:  # noqa: BLE001 - replaced by this fit
                    keep = None
                result = A.from_result(res, A.next_number(), keep)
                A.save_adaptation(result)
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
        for screen in self.app.check_screens():
            screen.panes.render_header()
        if self.again:
            self.again = False
            self.refit()
