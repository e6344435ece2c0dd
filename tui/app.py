"""mfact-tui entry point (placeholder until the terminal-app issue lands)."""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from textual.app import App
    from textual.widgets import Footer, Header, Static

    class MfactApp(App):
        TITLE = "mfact"

        def compose(self):
            yield Header()
            yield Static("mfact: checking facts in what language models write.")
            yield Footer()

    MfactApp().run()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
