"""Every action of the app with its default key, in one table: the screens' bindings, the help
screen and the command palette are all generated from it, and the config file's `[keys]` table
(action = "key") remaps any of them."""
from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding, BindingType

from mfact.core.errors import MfactError


@dataclass(frozen=True)
class Action:
    id: str            # binding id = name in the config file's [keys] table
    keys: str          # default key(s), comma-separated
    action: str        # Textual action
    description: str   # short, for the footer
    help: str          # one line for the help screen and the palette
    scope: str         # "app", "check", "start", "report"
    show: bool = True
    priority: bool = False


ACTIONS: tuple[Action, ...] = (
    # app
    Action("help", "question_mark", "app.help", "Help", "Show every key", "app"),
    Action("quit", "q,ctrl+q", "app.quit_app", "Quit", "Quit (a running check is stopped and saved)", "app"),
    Action("palette", "ctrl+p", "app.command_palette", "Palette", "Open the command palette", "app",
           show=False),
    Action("cycle_theme", "ctrl+t", "app.cycle_theme", "Theme",
           "Next theme: dark, light, colour-blind safe", "app", show=False),
    # start screen
    Action("start_check", "ctrl+s", "start_check", "Check",
           "Check a biography of the entity in the chosen language", "start"),
    Action("check_text", "ctrl+n", "check_text", "Check a text",
           "Check a text you have: paste it or open a .txt/.md file, name the person or topic",
           "start"),
    Action("open_session", "ctrl+o", "open_session", "Open", "Open the selected recent session",
           "start"),
    Action("delete_session", "ctrl+d", "delete_session", "Delete",
           "Delete the selected recent session", "start"),
    Action("report", "ctrl+r", "app.report", "Report", "Sessions and per-language report", "start"),
    # check screen
    Action("next_fact", "j,down", "next_fact", "Next", "Select the next fact", "check", show=False),
    Action("prev_fact", "k,up", "prev_fact", "Prev", "Select the previous fact", "check", show=False),
    Action("label_supported", "s", "relabel('S')", "✓ S", "Label the selected fact supported",
           "check"),
    Action("label_not_supported", "n", "relabel('NS')", "✗ NS",
           "Label the selected fact not supported", "check"),
    Action("label_irrelevant", "i", "relabel('IR')", "○ IR", "Label the selected fact irrelevant",
           "check"),
    Action("undo", "u", "undo", "Undo", "Undo the last relabel", "check"),
    Action("next_uncertain", "w", "next_uncertain", "Uncertain",
           "Next uncertain: the unlabelled fact whose p(supported) is closest to the decision threshold,"
           " every third of the first 25 one spread over the range of p (the labels that teach mfact the most)",
           "check", show=False),
    Action("focus_evidence", "enter", "focus_evidence", "Evidence",
           "Focus the evidence of the selected fact", "check", show=False),
    Action("cycle_panes", "tab", "cycle_panes", "Pane", "Cycle the panes: text, facts, evidence",
           "check", show=False),
    Action("stop", "x", "stop", "Stop", "Stop generation (checking of the text so far goes on)",
           "check"),
    Action("regenerate", "r", "regenerate", "Regen", "Regenerate: a new sample for the same entity",
           "check"),
    Action("toggle_drift", "d", "toggle_drift", "Drift", "Show or hide the drift marker", "check"),
    Action("export", "e", "export", "Export", "Export the session to a file (JSON or FActScore)",
           "check"),
    Action("widen_pane", "greater_than_sign", "resize_pane(1)", "Wider",
           "Widen the focused pane", "check", show=False),
    Action("narrow_pane", "less_than_sign", "resize_pane(-1)", "Narrower",
           "Narrow the focused pane", "check", show=False),
    Action("new_check", "escape", "new_check", "Back", "Back to the start screen", "check"),
    Action("back", "escape", "back", "Back", "Back to the previous screen", "report"),
)

BY_ID = {a.id: a for a in ACTIONS}


def bindings(scope: str) -> list[BindingType]:
    return [Binding(a.keys, a.action, a.description, show=a.show, priority=a.priority,
                    tooltip=a.help, id=a.id) for a in ACTIONS if a.scope == scope]


def validate_keymap(keys: dict[str, str]) -> dict[str, str]:
    """The config file's [keys] table checked against the known actions."""
    out = {}
    for action, key in (keys or {}).items():
        if action not in BY_ID:
            raise MfactError(f"unknown action {action!r} in the config file's [keys] table",
                             "actions: " + ", ".join(sorted(BY_ID)))
        if not str(key).strip():
            raise MfactError(f"empty key for action {action!r} in [keys]", 'e.g. next_fact = "j"')
        out[action] = str(key).strip()
    return out


def display_key(keys: str) -> str:
    from textual.keys import format_key
    return " / ".join(format_key(k.strip()) for k in keys.split(","))
