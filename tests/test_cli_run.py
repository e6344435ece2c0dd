"""`mfact run` as a user runs it: a real OpenAI-compatible server on loopback generates, the
offline knowledge source and the trained offline verifier check; the process is killed half-way
and the same command run again finishes the rest."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _loopback import Handler, LoopbackServer

BIO = ("{name} was a famous scientist. {name} was born in Warsaw in 1867. "
       "{name} won the Nobel Prize in Physics. {name} died in 1934.")

PEOPLE = ["Marie Curie", "Albert Einstein", "Isaac Newton", "Charles Darwin"]


class BioServer(LoopbackServer):
    """Streams a short biography of whoever the prompt names, one word every `delay` seconds."""

    def __init__(self, delay: float):
        self.delay = delay
        super().__init__()

    def get(self, h: Handler) -> None:
        h.send_json(200, {"object": "list", "data": [{"id": "bio", "object": "model"}]})

    def post(self, h: Handler) -> None:
        body = json.loads(h.rfile.read(int(h.headers["Content-Length"])))
        prompt = body.get("prompt") or " ".join(m["content"] for m in body.get("messages", []))
        name = next((p for p in PEOPLE if p in prompt), "Somebody")
        chat = h.path.endswith("/chat/completions")
        h.start_events()
        words = BIO.format(name=name).split(" ")
        try:
            for i, w in enumerate(words):
                piece = w if i == 0 else " " + w
                choice = {"index": 0, "delta": {"content": piece}} if chat else {"index": 0, "text": piece}
                h.event({"choices": [choice]})
                time.sleep(self.delay)
            end = {"index": 0, "delta": {}, "text": "", "finish_reason": "stop"}
            h.wfile.write(f"data: {json.dumps({'choices': [end]})}\n\ndata: [DONE]\n\n".encode())
        except OSError:
            pass


def _mfact() -> str:
    return str(Path(sys.executable).with_name("mfact"))


def _store_sessions(home: Path) -> dict[str, str]:
    out = subprocess.run([_mfact(), "sessions", "list", "--json"], capture_output=True, text=True,
                         env={**os.environ, "MFACT_HOME": str(home)}, timeout=60)
    assert out.returncode == 0, out.stderr
    return {s["id"]: s["created_at"] for s in json.loads(out.stdout)["sessions"]}


@pytest.mark.timeout(300)
def test_killed_run_resumes_without_redoing_or_losing_sessions(mfact_home, tmp_path):
    server = BioServer(delay=0.15)
    people = tmp_path / "people.txt"
    people.write_text("\n".join(PEOPLE) + "\n", encoding="utf-8")
    cmd = [_mfact(), "run", "--lang", "en", "--entities", str(people), "--base-url", server.url,
           "--model", "bio", "--offline", "--extractor", "rules", "--max-tokens", "60", "--no-progress"]
    env = {**os.environ, "MFACT_HOME": str(mfact_home)}
    try:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        done_lines = []
        deadline = time.monotonic() + 200
        while len(done_lines) < 2 and time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            if line.startswith("done: "):
                done_lines.append(line)
        assert len(done_lines) == 2, "the run did not finish two sessions"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        first = _store_sessions(mfact_home)
        assert len(first) >= 2

        again = subprocess.run(cmd + ["--json"], env=env, capture_output=True, text=True, timeout=240)
        assert again.returncode == 0, again.stderr
        summary = json.loads(again.stdout)
        assert summary["planned"] == 4 and not summary["failed"]
        assert summary["skipped"] == len(first)
        assert summary["done"] == 4 - len(first)
        final = _store_sessions(mfact_home)
        assert len(final) == 4
        # the sessions finished before the kill were neither redone nor lost
        assert all(final[sid] == created for sid, created in first.items())
    finally:
        server.close()
