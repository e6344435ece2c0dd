"""A text checked as the answer to its question, in any language the encoder and Babel cover:
`run --texts` lines with "question" and no "entity", `mfact check --question`, the question kept in
the store (schema 6, an older store upgraded), in session JSON and on the HTML page; the wrong
person in an answer is the hallucination (NS, the name marked), not IR; a language without word
tables (Swedish, Danish) checked end to end on the generic path, said once."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from mfact.core.languages import LANGUAGES, GENERIC, UnknownLanguage, generic_notice, get_language, language_codes
from mfact.core.pipeline.question import SOMEONE_ELSE, AnsweringVerifier, Question, topic_of
from mfact.core.session import Entity, Evidence, Fact, Session, Verdict
from mfact.core.store import Store
from mfact.core.texts import parse_text_line

MFACT = Path(sys.executable).with_name("mfact")

QUESTION = "Who is Nigeria's richest woman?"
ANSWER = "Mary Barra, CEO of General Motors."
PAGE = {"title": "Folorunsho Alakija",
        "text": "Folorunsho Alakija (born 15 July 1951) is a Nigerian businesswoman. She is the vice-chair "
                "of Famfa Oil and is regarded as the richest woman in Nigeria."}
SV_QUESTION = "Var föddes Greta Garbo och när dog hon?"
SV_TEXT = "Greta Garbo föddes i Stockholm 1905. Hon dog i Paris 1990."
SV_PAGE = ("Greta Garbo, född Greta Lovisa Gustafsson den 18 september 1905 i Stockholm, död 15 april 1990 i "
           "New York, var en svensk skådespelerska.")


def mfact(home: Path, *args: str) -> subprocess.CompletedProcess:
    exe = [str(MFACT)] if MFACT.exists() else [sys.executable, "-m", "mfact.core.cli"]
    env = dict(os.environ, MFACT_HOME=str(home), COLUMNS="160", NO_COLOR="1")
    return subprocess.run(exe + list(args), capture_output=True, text=True, env=env, timeout=280)


def run_texts(tmp_path: Path, lines: list[dict], *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    home, t, out = tmp_path / "home", tmp_path / "t.jsonl", tmp_path / "out"
    t.write_text("\n".join(json.dumps(d, ensure_ascii=False) for d in lines) + "\n", encoding="utf-8")
    p = mfact(home, "run", "--texts", str(t), "--offline", "--no-progress", "--out", str(out), *extra)
    assert p.returncode == 0, p.stderr
    sessions = {d["name"]: d for d in (json.loads(f.read_text(encoding="utf-8")) for f in out.glob("txt-*.json"))}
    return p, sessions


# --------------------------------------------------------------------------- languages


def test_every_language_the_encoder_and_babel_cover_is_accepted():
    from babel import localedata

    codes = language_codes()
    assert len(codes) == len(set(codes)) == len(LANGUAGES) + len(GENERIC) >= 90
    for code in ("sv", "da", "no", "nl", "uk", "is", "af", "ka", "ta"):
        assert code in codes and not get_language(code).tables
    assert get_language("nb").code == "no" and get_language("sv-SE").name == "Swedish"
    assert get_language("yi").direction == "rtl" and get_language("hy").script == "Armenian"
    for lang in GENERIC:                                       # each a CLDR locale, with a Wikipedia
        assert localedata.exists(lang.code) and lang.wiki == lang.code and lang.native
    assert all(lang.tables for lang in LANGUAGES) and generic_notice("en") == ""
    assert "Swedish (sv)" in generic_notice("sv") and "generic" in generic_notice("sv")
    with pytest.raises(UnknownLanguage):
        get_language("tlh")


# --------------------------------------------------------------------------- reading the lines


def test_text_lines_take_a_question_and_read_the_topic_when_no_entity_is_given():
    line = {"id": "a", "lang": "en", "question": QUESTION, "text": ANSWER, "evidence": [PAGE]}
    spec = parse_text_line(json.dumps(line), 1)
    assert spec.question == QUESTION and spec.entity == "Folorunsho Alakija"       # the page's title
    untitled = parse_text_line(json.dumps({**line, "evidence": [PAGE["text"]]}), 1)
    assert untitled.entity == "Folorunsho Alakija"                     # the first name in the evidence
    bare = parse_text_line(json.dumps({"id": "b", "lang": "sv", "question": "Var föddes Greta Garbo?",
                                       "text": SV_TEXT}), 1)
    assert bare.entity == "Greta Garbo" and bare.evidence is None      # the question's name
    given = parse_text_line(json.dumps({**line, "entity": "Alakija"}), 1)
    assert given.entity == "Alakija"
    # the question is part of what is checked: another question, another session
    assert given.digest() != parse_text_line(json.dumps({**line, "entity": "Alakija", "question": "Who?"}), 1).digest()
    plain = parse_text_line(json.dumps({"id": "c", "lang": "en", "entity": "X", "text": "X is."}), 1)
    assert plain.question == "" and plain.digest() == parse_text_line(
        json.dumps({"id": "c", "lang": "en", "entity": "X", "text": "X is.", "question": None}), 1).digest()
    for bad, reason in [({"id": "d", "lang": "en", "text": "t"}, '"entity" must be a non-empty string'),
                        ({"id": "d", "lang": "en", "text": "t", "question": 3}, '"question" must be'),
                        ({"id": "d", "lang": "en", "text": "t", "question": "  "}, '"question" must be'),
                        ({"id": "d", "lang": "xx", "text": "t", "question": "q?"}, "unknown language")]:
        with pytest.raises(ValueError, match=reason):
            parse_text_line(json.dumps(bad), 1)


def test_the_topic_is_read_from_the_question_or_the_evidence():
    assert topic_of(QUESTION, []) == "Nigeria"
    assert topic_of("When did Marie Curie win the Nobel Prize?", []) == "Marie Curie"
    assert topic_of("谁是尼日利亚最富有的女人？", []) == "谁是尼日利亚最富有的女人？"
    assert topic_of(QUESTION, [{"title": "passage 1", "text": "Folorunsho Alakija is rich."}]) == "Folorunsho Alakija"
    assert topic_of("", []) == ""


# --------------------------------------------------------------------------- the IR rule


class _RuleVerifier:
    """The verifiers' own rule (core/checking rule_verdicts: IR for a fact about someone else), and
    S for the rest: what the question changes is the rule, not the model."""
    name, version, uses_context, notices = "rules", "1", False, ()

    def verify(self, fact, entity, lang, passages):
        return self.verify_batch([(fact, entity, lang, passages)])[0]

    def verify_batch(self, items):
        from mfact.core.checking.verify.features import rule_verdicts

        out, _todo = rule_verdicts(items, "rules/1")
        return [v or Verdict("S", 0.9, "rules/1") for v in out]


def test_an_answer_naming_the_wrong_person_is_ns_with_the_name_marked():
    ev = [Evidence(id="e1", source="given", lang="en", title=PAGE["title"], text=PAGE["text"])]
    items = [(ANSWER, "Folorunsho Alakija", "en", ev),
             ("Bill Gates founded Microsoft", "Folorunsho Alakija", "en", ev)]
    plain = AnsweringVerifier(_RuleVerifier(), None, None, Question(""))
    before = [v for v, _ in plain.verify_many(items)]
    assert [v.label for v in before] == ["IR", "IR"] and before[0].reason == SOMEONE_ELSE
    asked = AnsweringVerifier(_RuleVerifier(), None, None, Question(QUESTION, ANSWER))
    from mfact.core.protocols import FactContext
    ctx = [FactContext(ANSWER, 0, len(ANSWER) - 1), FactContext("Bill Gates founded Microsoft.", 0, 28)]
    after = [v for v, _ in asked.verify_many(items, ctx)]
    assert after[0].label == "NS" and ANSWER[slice(*after[0].marks[0])] == "Mary Barra"
    assert "wrong person" in after[0].reason
    assert after[1].label == "IR"          # not in the answer's first sentence, nothing in common with it


def test_the_questions_own_name_misspelt_is_not_someone_else():
    """An answer that misspells the name it was asked about ("Elysiphale" for "Erysiphales") is not
    about someone else: the name is not marked, the value the evidence does not say is."""
    page = Evidence(id="e1", source="given", lang="en", title="Erysiphales",
                    text="The Erysiphales order contains 16 genera of powdery mildew fungi.")
    question = "How many genera does the Erysiphales order contain?"
    answer = "The Elysiphale order contains 5 genera."
    items = [(answer[:-1], "Erysiphales", "en", [page])]
    from mfact.core.protocols import FactContext
    assert _RuleVerifier().verify_batch(items)[0].reason == SOMEONE_ELSE
    asked = AnsweringVerifier(_RuleVerifier(), None, None, Question(question, answer))
    got = asked.verify_many(items, [FactContext(answer, 0, len(answer) - 1)])[0][0]
    assert got.label == "NS" and "wrong person" not in got.reason
    assert [answer[a:b] for a, b in got.marks] == ["5"]


def test_run_texts_marks_the_wrong_person_not_ir(tmp_path):
    line = {"id": "ng", "lang": "en", "question": QUESTION, "text": ANSWER, "evidence": [PAGE]}
    _p, sessions = run_texts(tmp_path, [line, {**line, "id": "no-question", "entity": PAGE["title"],
                                               "question": None}])
    asked, plain = sessions["ng"], sessions["no-question"]
    assert asked["question"] == QUESTION and asked["entity"]["name"] == "Folorunsho Alakija"
    assert plain["question"] == "" and [f["auto"]["label"] for f in plain["facts"]] == ["IR"]   # as before
    (fact,) = asked["facts"]
    assert fact["auto"]["label"] == "NS" and "wrong person" in fact["auto"]["reason"]
    # the hallucination span is the name
    spans = mfact(tmp_path / "home", "export", asked["id"], "--format", "spans", "-o", "-")
    assert spans.returncode == 0, spans.stderr
    doc = json.loads(spans.stdout)
    assert [ANSWER[s[0]:s[1]] for s in doc["spans"]] == ["Mary Barra"]
    # rejudged, the stored question still applies: nothing flips
    again = mfact(tmp_path / "home", "rejudge", "--all", "--offline", "--json")
    assert again.returncode == 0, again.stderr
    labels = {d["id"]: [f["auto"]["label"] for f in d["facts"]] for d in map(json.loads, [
        mfact(tmp_path / "home", "export", sid, "-o", "-").stdout for sid in (asked["id"], plain["id"])])}
    assert labels == {asked["id"]: ["NS"], plain["id"]: ["IR"]}



LIU_PAGE = {
    "title": "Liu Wenhui",
    "text": "Liu Wenhui (1895–1976) war einer der chinesischen Warlords in der Zeit der Republik "
    "China. Er beherrschte die Provinz Xikang.",
}
LIU_TEXT = "Liu Wenhui war ein chinesischer Unternehmer und Philanthrop."


def test_an_answer_is_ns_at_the_value_its_evidence_does_not_say_though_the_verifier_finds_it_supported(tmp_path):
    line = {"id": "liu", "lang": "de", "question": "Wer war Liu Wenhui?", "text": LIU_TEXT, "evidence": [LIU_PAGE]}
    _p, sessions = run_texts(tmp_path, [line, {**line, "id": "plain", "question": None, "entity": "Liu Wenhui"}])
    # without a question the verifier's verdict stands: shaped like the evidence, it reads as supported
    assert [f["auto"]["label"] for f in sessions["plain"]["facts"]] == ["S", "S"]
    asked = {f["text"]: f["auto"] for f in sessions["liu"]["facts"]}
    marked = {t: [t[a:b] for a, b in v.get("marks") or []] for t, v in asked.items()}
    assert all(v["label"] == "NS" and v["reason"].startswith("the evidence and the question do not say")
               and 0.5 <= v["confidence"] < 1.0 for v in asked.values()), asked
    assert sorted(marked.values()) == [["Philanthrop"], ["Unternehmer"]], marked
    spans = mfact(tmp_path / "home", "export", sessions["liu"]["id"], "--format", "spans", "-o", "-")
    assert spans.returncode == 0, spans.stderr
    assert [LIU_TEXT[s[0]:s[1]] for s in json.loads(spans.stdout)["spans"]] == ["Unternehmer", "Philanthrop"]


def test_exported_marks_refer_to_the_answer_as_it_was_given_markup_and_all(tmp_path):
    """A model's answer as the task gives it: a leading space, markdown, an end-of-turn token. The
    checked text is the cleaned one, but `spans` and `mushroom` exports index the given text."""
    given = " **Liu Wenhui** war ein chinesischer Unternehmer und Philanthrop.\n<|im_end|>  \n"
    line = {"id": "liu", "lang": "de", "question": "Wer war Liu Wenhui?", "text": given, "evidence": [LIU_PAGE]}
    _p, sessions = run_texts(tmp_path, [line])
    assert sessions["liu"]["text"] != given and sessions["liu"]["raw_text"] == given
    sid = sessions["liu"]["id"]
    spans = mfact(tmp_path / "home", "export", sid, "--format", "spans", "-o", "-")
    assert spans.returncode == 0, spans.stderr
    doc = json.loads(spans.stdout)
    assert doc["text"] == given
    assert [given[s[0]:s[1]] for s in doc["spans"]] == ["Unternehmer", "Philanthrop"]
    task = mfact(tmp_path / "home", "export", sid, "--format", "mushroom", "-o", "-")
    assert task.returncode == 0, task.stderr
    row = json.loads(task.stdout)
    assert row["model_output_text"] == given
    assert [given[a:b] for a, b in row["hard_labels"]] == ["Unternehmer", "Philanthrop"]
    assert [given[d["start"]:d["end"]] for d in row["soft_labels"]] == ["Unternehmer", "Philanthrop"]


# --------------------------------------------------------------------------- a language without tables


def test_run_texts_checks_a_swedish_answer_with_a_question_and_no_entity(tmp_path):
    line = {"id": "garbo", "lang": "sv", "question": SV_QUESTION, "text": SV_TEXT,
            "evidence": [{"title": "Greta Garbo", "text": SV_PAGE}]}
    da = {"id": "blixen", "lang": "da", "question": "Hvor blev Karen Blixen født?",
          "text": "Karen Blixen blev født i Rungsted i 1885.",
          "evidence": ["Karen Blixen (født 17. april 1885 i Rungsted, død 7. september 1962) var en dansk forfatter."]}
    p, sessions = run_texts(tmp_path, [line, {**line, "id": "garbo-2"}, da])
    # the generic path is said once per language, however many lines are in it
    assert p.stderr.count("Swedish (sv) has no word tables") == 1 and p.stderr.count("Danish (da)") == 1
    s = sessions["garbo"]
    assert s["language"] == "sv" and s["question"] == SV_QUESTION and s["entity"]["name"] == "Greta Garbo"
    assert s["checks"]["detected_language"] == "sv" and s["checks"]["language_ok"]
    labels = {f["text"]: f["auto"]["label"] for f in s["facts"]}
    assert len(labels) == 2 and all(f["auto"]["evidence"] for f in s["facts"])
    born, died = (labels[k] for k in sorted(labels))            # "Greta Garbo föddes ...", "Hon dog ..."
    assert born == "S" and died == "NS"                         # Paris is not New York
    # CLDR's Danish months: the date in the evidence is read ("17. april 1885")
    (dk,) = sessions["blixen"]["facts"]
    assert sessions["blixen"]["entity"]["name"] == "Karen Blixen" and dk["auto"]["label"] == "S"


def test_check_takes_a_question_and_a_swedish_text(tmp_path):
    home = tmp_path / "home"
    text = tmp_path / "answer.txt"
    text.write_text(SV_TEXT, encoding="utf-8")
    ev = tmp_path / "ev.jsonl"
    ev.write_text(json.dumps({"title": "Greta Garbo", "text": SV_PAGE}, ensure_ascii=False), encoding="utf-8")
    p = mfact(home, "check", "--lang", "sv", "--question", SV_QUESTION, "--text-file", str(text),
              "--evidence", str(ev), "--offline", "--json")
    assert p.returncode == 0, p.stderr
    assert p.stderr.count("has no word tables") == 1
    s = json.loads(p.stdout)
    assert s["question"] == SV_QUESTION and s["entity"]["name"] == "Greta Garbo" and len(s["facts"]) == 2
    stored = mfact(home, "export", s["id"], "-o", "-")                              # kept in the store
    assert stored.returncode == 0 and json.loads(stored.stdout)["question"] == SV_QUESTION
    # bad input: one line each
    p = mfact(home, "check", "--lang", "sv", "--text-file", str(text), "--offline")
    assert p.returncode != 0 and "--entity is required" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    p = mfact(home, "check", "--lang", "sv", "--question", " ", "--text-file", str(text), "--offline")
    assert p.returncode != 0 and "--question is empty" in p.stderr


# --------------------------------------------------------------------------- kept


def _session(question: str = QUESTION) -> Session:
    facts = [Fact(id="f1", text="Mary Barra, CEO of General Motors", sentence=0, span=(0, 33),
                  auto=Verdict("NS", 0.7, "offline", [], "wrong person", marks=[(0, 10)]))]
    return Session(language="en", entity=Entity("Folorunsho Alakija"), id="q1", text=ANSWER, facts=facts,
                   question=question, created_at="2026-01-01T00:00:00+00:00")


def test_the_question_round_trips_through_json_and_the_store(tmp_path):
    s = _session("Who is <b>Nigeria's</b> richest woman?\u202e")
    back = Session.from_dict(json.loads(json.dumps(s.to_dict())))
    assert back.question == s.question
    assert Session.from_dict({k: v for k, v in s.to_dict().items() if k != "question"}).question == ""
    with Store(tmp_path / "s.db") as st:
        st.save_session(s)
        assert st.get_session("q1").question == s.question
    # export and import keep it
    home = tmp_path / "home"
    f = tmp_path / "s.json"
    f.write_text(json.dumps(s.to_dict()), encoding="utf-8")
    assert mfact(home, "import", str(f)).returncode == 0
    p = mfact(home, "export", "q1", "-o", "-")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["question"] == s.question


def test_a_schema_5_store_is_upgraded_and_its_sessions_answer_no_question(tmp_path):
    from mfact.core.store_schema import SCHEMA_VERSION

    path = tmp_path / "s.db"
    with Store(path) as st:
        st.save_session(_session(""))
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("ALTER TABLE sessions DROP COLUMN question")
    db.execute("UPDATE meta SET value='5' WHERE key='schema_version'")
    db.close()
    with Store(path) as st:
        assert st.upgraded_from == 5 and st.schema_version == SCHEMA_VERSION == 6
        assert st.get_session("q1").question == "" and st.get_session("q1").facts[0].auto.label == "NS"
        st.save_session(_session())
        assert st.get_session("q1").question == QUESTION


def test_the_session_page_shows_the_question_literally():
    from mfact.core.html_session import session_page

    page = session_page(_session("Who is <script>alert(1)</script> & Nigeria's richest?"))
    assert '<p class="question" id="question"><b>Question</b>' in page
    assert "Who is &lt;script&gt;alert(1)&lt;/script&gt; &amp; Nigeria&#x27;s richest?" in page
    assert 'id="question"' not in session_page(_session(""))
