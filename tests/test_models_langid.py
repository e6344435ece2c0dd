"""Language ID: restricted to mfact's languages, per-language detector choice, XNLI premises."""
from __future__ import annotations

import csv

import pytest

from mfact.core import langid
from mfact.core.languages import language_codes

SAMPLES = {
    "en": ["Marie Curie was a Polish and naturalised-French physicist and chemist.",
           "She was the first woman to win a Nobel Prize."],
    "es": ["Marie Curie fue una física y química polaca nacionalizada francesa.",
           "Fue la primera mujer en ganar un Premio Nobel."],
    "ar": ["ماري كوري عالمة فيزياء وكيمياء بولندية المولد.",
           "كانت أول امرأة تفوز بجائزة نوبل."],
    "bn": ["মারি কুরি ছিলেন একজন পোলীয় ও ফরাসি পদার্থবিদ ও রসায়নবিদ।",
           "তিনি প্রথম নারী যিনি নোবেল পুরস্কার লাভ করেন।"],
    "vi": ["Marie Curie là một nhà vật lý và hóa học người Ba Lan.",
           "Bà là người phụ nữ đầu tiên đoạt giải Nobel."],
    "zh": ["玛丽·居里是一位波兰裔法国籍物理学家、化学家。", "她是第一位获得诺贝尔奖的女性。"],
    "sw": ["Marie Curie alikuwa mwanafizikia na mwanakemia wa Poland.",
           "Alikuwa mwanamke wa kwanza kushinda Tuzo ya Nobel."],
}


def test_mixed_languages_all_right():
    results = [(lang, langid.detect(text)) for lang, texts in SAMPLES.items() for text in texts]
    assert len(results) == 14
    wrong = [(lang, got) for lang, got in results if got[0] != lang]
    assert not wrong
    assert all(0.0 < p <= 1.0 for _, (_, p) in results)


def test_answers_only_in_offered_languages():
    dutch = "Marie Curie was een Pools-Franse natuurkundige en scheikundige die onderzoek deed naar radioactiviteit."
    code, _ = langid.detect(dutch)
    assert code in language_codes()
    assert langid.langid_detect(dutch, restricted=False)[0] == "nl"


def test_empty_text():
    assert langid.detect("") == ("", 0.0)
    assert langid.detect("   \n") == ("", 0.0)
    assert langid.polyglot_detect("") == ("", 0.0)


def test_check_language_and_detectors():
    ok, code, prob = langid.check_language(SAMPLES["es"][0], "es")
    assert ok and code == "es" and prob > 0.5
    ok, code, _ = langid.check_language(SAMPLES["en"][0], "es")
    assert not ok and code == "en"
    assert langid.Detector("langid").detect(SAMPLES["vi"][0])[0] == "vi"
    with pytest.raises(ValueError):
        langid.Detector("nope")
    assert set(langid.PREFERRED.values()) <= set(langid.DETECTORS)
    assert set(langid.PREFERRED) <= set(language_codes())


def test_polyglot_detector_when_installed():
    if not langid.polyglot_available():
        pytest.skip("pycld2 is not installed (extra mfact[polyglot])")
    assert langid.polyglot_detect(SAMPLES["ar"][0])[0] == "ar"
    assert langid.Detector("polyglot").detect(SAMPLES["zh"][0])[0] == "zh"
    code, _ = langid.polyglot_detect("\x00\ud800 broken text")      # surrogates: no exception
    assert isinstance(code, str)


def test_xnli_premises(shared_dir):
    folder = shared_dir / "data" / "xnli-dev"
    files = sorted(folder.glob("dev-*.tsv"))
    if not files:
        pytest.skip("no XNLI dev data")
    for path in files:
        lang = path.stem.split("-", 1)[1]
        seen: dict[str, None] = {}
        with path.open(encoding="utf-8", newline="") as f:
            for row in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
                if row and len(seen) < 60:
                    seen.setdefault(row[0], None)
        right = sum(langid.detect(t)[0] == lang for t in seen)
        # romanised Hindi and Urdu premises are in XNLI too; langid cannot tell those
        assert right / len(seen) >= (0.85 if lang in ("hi", "ur") else 0.95), lang


def test_preferred_polyglot_has_the_last_word(monkeypatch):
    if not langid.polyglot_available():
        pytest.skip("pycld2 is not installed (extra mfact[polyglot])")
    text = "has leído The firm"                       # langid: pt, CLD2: en
    assert langid.langid_detect(text)[0] == "pt" and langid.polyglot_detect(text)[0] == "en"
    assert langid.detect(text)[0] == "pt"
    monkeypatch.setitem(langid.PREFERRED, "en", "polyglot")
    assert langid.detect(text)[0] == "en"
    assert langid.check_language(text, "en")[0]


def test_sindhi_is_told_from_urdu_by_its_letters():
    # langid.py has no Sindhi class; Sindhi's own letters (ڪ ٻ ڻ ...) decide
    assert langid.detect("ماري ڪيوري پولينڊ جي هڪ سائنسدان هئي.")[0] == "sd"
    assert langid.detect("هوءَ نوبل انعام کٽڻ واري پهرين عورت هئي.")[0] == "sd"
    assert langid.detect("میری کیوری ایک ماہر طبیعیات اور کیمیا دان تھیں۔")[0] == "ur"
    assert langid.check_language("ماري ڪيوري پولينڊ جي هڪ سائنسدان هئي.", "sd")[0]


def test_get_language_knows_wikipedias_code_for_cantonese():
    from mfact.core.languages import get_language
    assert get_language("zh-yue").code == "yue" and get_language("yue-HK").code == "yue"
    assert get_language("zh-TW").code == "zh" and get_language("sr").direction == "ltr"
