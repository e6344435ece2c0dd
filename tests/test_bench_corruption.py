"""bench/corruption_verdicts.py: what counts as caught, and a small run of the real bench on articles
made from the bundled Wikipedia leads (read as a never-trained language, so every one is a
development article)."""
from __future__ import annotations

import importlib.util
import pickle
import sys
from pathlib import Path

from mfact.core.session import Verdict
from mfact.core.training import detector_data as dd

_PATH = Path(__file__).resolve().parents[1] / "bench" / "corruption_verdicts.py"
_spec = importlib.util.spec_from_file_location("corruption_verdicts", _PATH)
M = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("corruption_verdicts", M)
_spec.loader.exec_module(M)


def _ex(kind: str, spans, lang="en", ev_lang="en") -> dd.Example:
    return dd.Example(
        "Marie Curie was born in Warsaw.", spans, ["Marie Curie was born in Warsaw."], kind, lang, ev_lang
    )


def test_an_error_is_caught_unless_judged_s_and_a_supported_sentence_only_when_s():
    exs = [
        _ex("entity", [(24, 30)]),
        _ex("invented", [(0, 31)]),
        _ex("relation", [(17, 21)]),
        _ex("kept", []),
        _ex("kept", []),
        _ex("xnli-p", [], "en", "fr"),
        _ex("xnli-p-entity", [(24, 30)], "en", "fr"),
    ]
    vs = [Verdict("NS", 0.9, "t", [], "", marks=[(24, 30)]), Verdict("IR", 0.9, "t", [], ""),
          Verdict("S", 0.6, "t", [], ""), Verdict("S", 0.9, "t", [], ""), Verdict("NS", 0.7, "t", [], ""),
          Verdict("S", 0.8, "t", [], ""), Verdict("S", 0.8, "t", [], "")]
    t = M.tally(exs, vs)
    k = t["kinds"]
    assert (k["entity"]["right"], k["entity"]["marked"]) == (1, 1)
    assert (k["invented"]["right"], k["invented"]["ir"]) == (1, 1)          # IR: about someone else
    assert k["relation"]["right"] == 0
    assert (k["kept"]["n"], k["kept"]["right"]) == (2, 1)
    assert k["xnli-p: supported"]["right"] == 1 and k["xnli-p-entity"]["right"] == 0
    assert t["langs"]["cross-lingual"]["good_n"] == 1 and t["langs"]["xnli"]["err_n"] == 1


def test_the_bench_runs_the_verifier_over_the_dev_set(tmp_path, capsys):
    from mfact.core.training.train_cross import bundled_leads
    from mfact.core.checking.text.segment import split_sentences
    arts = [dd.Article("eu", title, [s.text for s in split_sentences(text, "en") if len(s.text.split()) >= 5])
            for title, text in list(bundled_leads()["en"].items())[:20]]
    path = tmp_path / "articles.pkl"
    path.write_bytes(pickle.dumps((arts, {})))
    assert (
        M.main(["--articles", str(path), "--per-lang", "14", "--extra", "0", "--xnli", "0", "--verifiers", "lite"]) == 0
    )
    out = capsys.readouterr().out
    assert "| kept (judged S) |" in out and "| invented (caught) |" in out
    last = out.strip().splitlines()[-1]
    assert last.startswith("corruption_verdict_min_recall: ") and 0.0 <= float(last.split(": ")[1]) <= 100.0


def test_the_articles_are_built_from_the_wiki_references_files_and_kept(tmp_path, capsys, monkeypatch):
    import csv
    monkeypatch.setenv("MFACT_HOME", str(tmp_path / "home"))
    wiki = tmp_path / "wiki"
    wiki.mkdir()
    people = [("Miren Etxeberria", "Donostia", "1901", "margolaria"), ("Jon Agirre", "Bilbo", "1877", "idazlea"),
              ("Ane Lasa", "Tolosa", "1920", "musikaria")]
    with (wiki / "wiki_references_and_queries_filtered_eu.csv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["Category", "Article Title", "URL", "reference_1"])
        for name, town, year, job in people:
            text = (f"{name} {town} hirian jaio zen {year} urtean eta bizitza osoa han eman zuen. "
                    f"{name} euskal {job} ezaguna izan zen bere garaian eta gaur egun ere bai. "
                    f"Bere lanak {town} hiriko museoan daude ikusgai urte osoan zehar. "
                    f"Gazte zela Parisera joan zen ikastera eta hiru urte egon zen han. "
                    f"Itzuli zenean {town} hirian eskola bat sortu zuen lagun batzuekin batera.")
            w.writerow(["Pertsonak", name, "https://eu.wikipedia.org/wiki/x", text])
    argv = ["--wiki", str(wiki), "--per-lang", "7", "--extra", "0", "--xnli", "0", "--verifiers", "lite",
            "--langs", "eu"]
    assert M.main(argv) == 0
    captured = capsys.readouterr()
    assert "articles: " in captured.err and "from 1 files and the bundled leads" in captured.err
    kept = list((tmp_path / "home" / "cache" / "detector").glob("articles-wiki-*.pkl"))
    assert len(kept) == 1
    arts, _rep = pickle.loads(kept[0].read_bytes())
    assert {a.title for a in arts if a.lang == "eu"} == {p[0] for p in people}
    assert "| kept (judged S) |" in captured.out
    # a second run reads the kept pickle back: the same table, nothing built
    assert M.main(argv) == 0
    again = capsys.readouterr()
    assert "articles: " not in again.err and again.out == captured.out
    # a folder without the files, and no pickle anywhere: say what to pass
    assert M.main(["--wiki", str(tmp_path / "empty")]) == 2
    assert "no wiki_references*.csv in" in capsys.readouterr().err
    kept[0].unlink()
    assert M.main([]) == 2
    assert "--wiki DIR --silver DIR" in capsys.readouterr().err
