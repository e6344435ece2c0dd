"""The one error hierarchy: an error meant for the user says what went wrong and what to do,
formatted everywhere as one line, `message (hint)`."""
from __future__ import annotations


def format_error(message: str, hint: str = "") -> str:
    """The one-line form of an error: `message (hint)`, or just the message without a hint."""
    return message + (f" ({hint})" if hint else "")


class MfactError(Exception):
    """An error meant for the user: one line naming the cause, and what to do."""

    def __init__(self, message: str, hint: str = ""):
        self.message = message
        self.hint = hint
        super().__init__(format_error(message, hint))

    def line(self) -> str:
        return format_error(self.message, self.hint)


def error_line(exc: BaseException) -> str:
    """`message (hint)` for any exception: an MfactError's own parts, else its text."""
    message = getattr(exc, "message", None)
    if not isinstance(message, str):
        return str(exc)
    hint = getattr(exc, "hint", "")
    return format_error(message, hint if isinstance(hint, str) else "")
