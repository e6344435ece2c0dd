"""How long each network fault takes to end, under mfact's default deadlines.

For the model server, Wikipedia (MediaWiki API) and SearXNG, and each fault mode of
tests/_faults.py (500, 429 with Retry-After 3600, stall before headers, stall after headers,
keep-alive only, trickle, endless, malformed), one request is made against a misbehaving server on
a loopback address with the default deadlines (connect 3 s, idle 30 s, 600 s per model request, 30 s per
lookup); all run at once in threads, so the whole table takes about 35 s.

    .venv/bin/python bench/network_faults.py

Prints a table (seconds to the end, and how it ended) and `network_fault_max_s: <slowest>`.
"""
from __future__ import annotations

import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _faults import MODES, FaultServer, timed  # noqa: E402


def clients_default(server):
    from mfact.core.knowledge.web import WebSearch
    from mfact.core.knowledge.wikipedia import WikipediaClient
    from mfact.core.models.openai import OpenAIGenerator
    from mfact.core.protocols import DecodingParams

    def model():
        gen = OpenAIGenerator(server.model_url, model="m")
        try:
            return list(gen.stream("prompt", DecodingParams(max_tokens=500)))
        finally:
            gen.close()

    def wiki():
        return WikipediaClient(base_url=server.wiki_url).page_info("X", "en")

    def searx():
        return WebSearch(server.searxng_url).search("Marie Curie", "en")

    return [("model server", model), ("Wikipedia", wiki), ("SearXNG", searx)]


def main() -> int:
    # one loopback address per mode: mfact sends one request at a time per Wikipedia host, so
    # faults on one host would queue behind each other
    servers = {mode: FaultServer(mode, tick=1.0 if mode in ("keepalive", "trickle") else 0.05,
                                 host=f"127.0.0.{i + 2}") for i, mode in enumerate(MODES)}
    results: dict[tuple[str, str], tuple[float, str]] = {}
    threads = []
    for mode, server in servers.items():
        for name, call in clients_default(server):
            def run(mode=mode, name=name, call=call):
                took, res = timed(call)
                if isinstance(res, Exception):
                    how = f"{type(res).__name__}: {getattr(res, 'message', res)}"
                else:
                    toks = sum(c.tokens for c in res) if name == "model server" else None
                    how = f"ok ({toks} tokens, {res[-1].stop_reason})" if toks is not None else "ok"
                results[(mode, name)] = (took, how)
            t = threading.Thread(target=run, daemon=True)
            t.start()
            threads.append(t)
    for t in threads:
        t.join(700)
    for s in servers.values():
        s.close()
    print(f"{'fault':15s} {'service':13s} {'ended after':>11s}  how")
    worst = 0.0
    for mode in MODES:
        for name in ("model server", "Wikipedia", "SearXNG"):
            took, how = results.get((mode, name), (float("nan"), "did not end"))
            worst = max(worst, took)
            print(f"{mode:15s} {name:13s} {took:10.2f}s  {how[:110]}")
    print(f"network_fault_max_s: {worst:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
