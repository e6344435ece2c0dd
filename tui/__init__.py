"""mfact terminal app (Textual).

Frames: Textual composes a frame at most `TEXTUAL_FPS` times a second (its default 60), and a key's
effect waits for the next frame slot: up to 1/60 s when the stream drew the last frame a moment
ago. mfact asks for 120 (unless the user set `TEXTUAL_FPS`), which halves that wait; frames are
still drawn only when something changed, and the streamed text redraws at most 15 times a second
(tui/screens/check_panes.py), so the UI thread's CPU per second of streaming stays the same
(bench/tui_latency.py, docs/tui.md). Textual reads the variable when it is first imported, which
this package's import comes before (mfact-tui's entry point is mfact.tui.app).
"""
import os

FRAMES_PER_SECOND = 120
os.environ.setdefault("TEXTUAL_FPS", str(FRAMES_PER_SECOND))
