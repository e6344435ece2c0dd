"""Pipeline benchmark: verdict lag, checking overhead, offline-verifier throughput.

    .venv/bin/python bench/pipeline.py                 # embedded model, 10 biographies, offline
    .venv/bin/python bench/pipeline.py --n 3 --max-tokens 120
    .venv/bin/python bench/pipeline.py --fake          # the fake stages: a smoke run of the script

Figures (issue 5, "Performance"):
- verdict lag: seconds from the last generated token to the last verdict, median over N biographies
  (goal <= 1.0 s: checking overlaps generation);
- overhead: tokens/s of the model with checking on / the same model streaming alone, same prompt
  and seed, median over alternating on/off pairs (goal >= 0.9);
- offline-verifier throughput: facts verified per second (the facts and passages of the runs above,
  verdict cache bypassed).
The last line is `name: value`.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PEOPLE = ["Marie Curie", "Albert Einstein", "Isaac Newton", "Charles Darwin", "William Shakespeare",
          "Leonardo da Vinci", "Mahatma Gandhi", "Abraham Lincoln", "Wolfgang Amadeus Mozart",
          "Galileo Galilei"]


def build(args):
    from mfact.core.config import load_config

    cfg = load_config({"offline": True, "max_tokens": args.max_tokens, "workers": args.workers,
                       "stop_on_repeat": False, "verifier": args.verifier})
    if args.fake:
        from mfact.core.fake import (DEFAULT_TEXT, FakeEmbedder, FakeExtractor, FakeGenerator,
                                     FakeRetriever, FakeVerifier)
        from mfact.core.pipeline import CheckPipeline, Stages

        gen = FakeGenerator(DEFAULT_TEXT * 4, delay=0.01)
        return cfg, CheckPipeline(Stages(gen, FakeExtractor(), FakeRetriever(), FakeVerifier(delay=0.005),
                                         embedder=FakeEmbedder()), cfg, cache=False)
    from mfact.core.pipeline import build_pipeline

    p = build_pipeline(cfg, on_progress=lambda pr: print(f"# {pr.stage}: {pr.message}", file=sys.stderr))
    p.cache = None       # measure verification, not the cache
    return cfg, p


def stream_alone(gen, prompt, params) -> tuple[int, float]:
    """Tokens and tokens/s of the model streaming with nothing else running."""
    n = 0
    first = last = None
    for chunk in gen.stream(prompt, params, threading.Event()):
        now = time.monotonic()
        if chunk.tokens:
            n += chunk.tokens
            first = first or now
            last = now
        if chunk.done:
            break
    tps = (n - 1) / (last - first) if n > 1 and last and first and last > first else 0.0
    return n, tps


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10, help="biographies for the verdict lag (default 10)")
    ap.add_argument("--max-tokens", type=int, default=200)
    ap.add_argument("--lang", default="en")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--overhead-runs", type=int, default=2, help="on/off pairs for the overhead (default 2)")
    ap.add_argument("--verifier", default="offline")
    ap.add_argument("--fake", action="store_true", help="fake stages (checks the script itself)")
    args = ap.parse_args()
    os.environ.setdefault("MFACT_HOME", tempfile.mkdtemp(prefix="mfact-bench-"))

    from mfact.core.checking import build_verifier
    from mfact.core.events import EvidenceEvent, FactEvent, StopEvent
    from mfact.core.pipeline import decoding_params
    from mfact.core.pipeline.text import fact_contexts

    cfg, p = build(args)
    print(f"# model: {getattr(p.generator, 'backend', '?')}/{getattr(p.generator, 'model', '?')},"
          f" verifier: {getattr(p.verifier, 'name', '?')}, workers {cfg.workers},"
          f" max_tokens {cfg.max_tokens}, cpus {os.cpu_count()}")

    lags: list[float] = []
    sentence_lags: list[float] = []
    pairs: list[tuple[str, str, list, object]] = []
    tps_on: list[float] = []
    for i in range(args.n):
        person = PEOPLE[i % len(PEOPLE)]
        facts: dict[str, str] = {}
        t0 = time.monotonic()
        session = None
        heard: list[tuple[str, list]] = []
        for ev in p.run(person, args.lang):
            if isinstance(ev, FactEvent):
                facts[ev.fact.id] = ev.fact.text
            elif isinstance(ev, EvidenceEvent):
                heard.append((ev.fact_id, ev.passages))
            elif isinstance(ev, StopEvent):
                session = ev.session
        # each fact with its sentence, as the run gave it to the verifier (`FactContext`)
        spans = {f.id: f.span for f in session.facts} if session is not None else {}
        ctx = dict(zip(spans, fact_contexts(session.text, args.lang, list(spans.values())))) if session else {}
        pairs += [(person, facts.get(fid, ""), ps, ctx.get(fid)) for fid, ps in heard]
        st = p.stats
        lag = st.verdict_lag
        if lag is not None:
            lags.append(lag)
        if st.sentence_lag is not None:
            sentence_lags.append(st.sentence_lag)
        if st.tokens_per_s:
            tps_on.append(st.tokens_per_s)
        print(f"# {person}: {st.tokens} tokens in {time.monotonic() - t0:.1f} s,"
              f" {st.tokens_per_s or 0:.2f} tok/s, {len(session.facts)} facts,"
              f" lag {lag if lag is None else round(lag, 3)} s (after the last checked sentence"
              f" {st.sentence_lag if st.sentence_lag is None else round(st.sentence_lag, 3)} s),"
              f" stop {session.stop_reason}", flush=True)

    # overhead: the same prompt and seed streamed alone and with checking, alternating the order
    # (this machine is shared: alternating pairs cancel slow drifts in the load), median of ratios
    prompt = p.generator.default_prompt(PEOPLE[0], args.lang)
    ratios: list[float] = []
    on_off: list[tuple[float, float]] = []
    for r in range(args.overhead_runs):
        order = ("off", "on") if r % 2 == 0 else ("on", "off")
        got: dict[str, float] = {}
        for which in order:
            if which == "off":
                got["off"] = stream_alone(p.generator, prompt, decoding_params(cfg))[1]
            else:
                for _ in p.run(PEOPLE[0], args.lang):
                    pass
                got["on"] = p.stats.tokens_per_s or 0.0
        on_off.append((got["on"], got["off"]))
        if got["off"]:
            ratios.append(got["on"] / got["off"])
        print(f"# overhead pair {r + 1}: on {got['on']:.2f} tok/s, off {got['off']:.2f} tok/s", flush=True)

    # offline verifier throughput over the collected facts, each in its sentence (fact vectors and
    # the detector's sentence scores not cached; passage vectors cached on disk, as in a run where
    # the retriever embedded them)
    work = [(e, f, ps, c) for e, f, ps, c in pairs if f]
    queries = getattr(p.embedder, "_queries", None)
    if hasattr(queries, "clear"):
        queries.clear()
    fresh = p.verifier if args.fake else build_verifier(cfg, p.embedder)
    fresh.load()
    t0 = time.monotonic()
    for entity, fact, passages, c in work:
        if fresh.uses_context:
            fresh.verify_batch([(fact, entity, args.lang, passages)], contexts=[c])
        else:
            fresh.verify(fact, entity, args.lang, passages)
    dt = time.monotonic() - t0
    fps = len(work) / dt if dt > 0 else 0.0

    lag_med = statistics.median(lags) if lags else float("nan")
    overhead = statistics.median(ratios) if ratios else float("nan")
    print(f"verdict_lag_median_s: {lag_med:.3f}")
    print(f"verdict_lag_max_s: {max(lags) if lags else float('nan'):.3f}")
    print(f"last_sentence_to_last_verdict_median_s: "
          f"{statistics.median(sentence_lags) if sentence_lags else float('nan'):.3f}")
    print(f"tokens_per_s_checking_on: {statistics.median(x[0] for x in on_off):.3f}")
    print(f"tokens_per_s_checking_off: {statistics.median(x[1] for x in on_off):.3f}")
    print(f"verifier_facts: {len(work)}")
    print(f"verifier_facts_per_s: {fps:.1f}")
    print(f"overhead_ratio: {overhead:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
