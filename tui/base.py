"""`MfactScreen`: the base of the workbench's screens, with the app typed as `MfactApp` (Textual
types `Screen.app` as any App)."""
from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar, cast

from textual.screen import Screen

if TYPE_CHECKING:  # pragma: no cover
    from .app import MfactApp

ResultT = TypeVar("ResultT")


class MfactScreen(Screen[ResultT]):
    @property
    def mfact(self) -> MfactApp:
        """The app, typed: its configuration, store, pipeline and the screens it switches to."""
        return cast("MfactApp", self.app)
