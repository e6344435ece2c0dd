"""`mfact generate`: stream a biography from a model to the terminal (no checking).

    mfact generate --lang es --entity "Marie Curie" [--model ID|PATH|--base-url URL] [--max-tokens N] [--json]

The text is printed as it arrives (control characters removed: model text never drives the
terminal). With --json the output ends with the session JSON (schema mfact.session/1) on one line.
"""
from __future__ import annotations

import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable, TextIO

from ..errors import MfactError
from ..languages import UnknownLanguage, get_language
from ..options import add_model_options, config_from_args
from ..protocols import DecodingParams, GeneratorBase, Progress
from ..session import Entity, Session, status_for, stop_words
from ..textsafe import clean_terminal as terminal_safe   # model text never drives the terminal
from ..textsafe import json_dumps_safe


def register(subparsers) -> None:
    p = subparsers.add_parser("generate", help="stream a biography from a model (no checking)",
                              description="Stream a biography of an entity in a language from a model.")
    p.add_argument("--lang", required=True, help="language code, e.g. es")
    p.add_argument("--entity", required=True, help="the person, e.g. \"Marie Curie\"")
    p.add_argument("--prompt", help="use this prompt instead of the built-in one")
    p.add_argument("--json", action="store_true", help="end the output with the session JSON")
    add_model_options(p)
    p.set_defaults(func=run)


@dataclass
class _Streamed:
    """What a streamed generation gave: the raw text, its tokens, why it stopped, and its timing."""
    text: str
    tokens: int
    reason: str | None
    elapsed: float
    first: float | None


def _progress_printer(err: TextIO) -> Callable[[Progress], None]:
    tty = err.isatty()

    def on_progress(p: Progress) -> None:
        if not tty and p.done != int(p.done):
            return                     # in a log, one line per stage is enough
        frac = f" {p.done:.0f}/{p.total:.0f}" if p.total else ""
        err.write(("\r\x1b[K" if tty else "") + f"mfact: {p.message}{frac}" + ("" if tty else "\n"))
        err.flush()
    return on_progress


def _stream(gen: GeneratorBase, prompt: str, params: DecodingParams, out: TextIO) -> _Streamed:
    """Stream the text to `out`; the first Ctrl-C stops the generation, keeping the text."""
    stop = threading.Event()
    previous = signal.getsignal(signal.SIGINT) if threading.current_thread() is threading.main_thread() \
        else None

    def on_sigint(signum, frame):  # first Ctrl-C stops the generation, keeping the text
        stop.set()

    if previous is not None:
        signal.signal(signal.SIGINT, on_sigint)
    raw: list[str] = []
    tokens = 0
    reason = None
    t0 = time.perf_counter()
    first = None
    try:
        for chunk in gen.stream(prompt, params, stop=stop):
            if chunk.text:
                if first is None:
                    first = time.perf_counter() - t0
                raw.append(chunk.text)
                out.write(terminal_safe(chunk.text))
                out.flush()
            tokens += chunk.tokens
            if chunk.done:
                reason = chunk.stop_reason
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    return _Streamed("".join(raw), tokens, reason, time.perf_counter() - t0, first)


def run(args) -> int:
    from ..models import close_generator, decoding_params, load_generator

    try:
        lang = get_language(args.lang).code
    except UnknownLanguage as exc:
        raise MfactError(str(exc)) from None
    entity = " ".join((args.entity or "").split())
    if not entity:
        raise MfactError("--entity is empty", "name a person, e.g. --entity \"Marie Curie\"")
    cfg = config_from_args(args)
    params = decoding_params(cfg)
    err = sys.stderr
    gen = load_generator(cfg, on_progress=_progress_printer(err))
    if err.isatty():
        err.write("\r\x1b[K")
    try:
        prompt = args.prompt if args.prompt else gen.default_prompt(entity, lang)
        out = sys.stdout
        got = _stream(gen, prompt, params, out)
        out.write("\n")
        out.flush()
        if args.json:
            out.write(json_dumps_safe(_session(gen, prompt, params, lang, entity, got).to_dict()) + "\n")
            out.flush()
        else:
            err.write(f"mfact: {got.tokens} tokens in {got.elapsed:.1f} s, stopped: {stop_words(got.reason)}\n")
        if got.reason == "connection_lost":
            err.write("mfact: warning: the model server's connection was lost before the end of the text:"
                      " the text is incomplete (check the server's log and run it again)\n")
            return 1
        return 0
    finally:
        close_generator(gen)


def _session(gen: GeneratorBase, prompt: str, params: DecodingParams, lang: str, entity: str,
             got: _Streamed) -> Session:
    """The generation as a session (`--json`): the text, cleaned and raw, and the timing."""
    from ..models import generator_info

    session = Session(language=lang, entity=Entity(name=entity), generator=generator_info(gen, prompt, params))
    session.raw_text = got.text
    session.text = _clean(got.text, lang)
    if session.text == got.text:
        session.raw_text = None
    session.tokens = got.tokens
    session.stop_reason = got.reason or "eos"
    session.status = status_for(session.stop_reason)
    elapsed, first, tokens = got.elapsed, got.first, got.tokens
    session.config = {"generation": {"seconds": round(elapsed, 3),
                                     "first_token_s": round(first, 3) if first else None,
                                     "tokens_per_s": round(tokens / elapsed, 2) if elapsed else None}}
    return session


def _clean(text: str, lang: str) -> str:
    """The text without model markup (clean_text); the raw text if cleaning fails."""
    from ..checking import clean_text

    try:
        return clean_text(text)
    except Exception:  # noqa: BLE001 - cleaning is best effort here; the raw text is kept
        return text
