"""NLI verifier with a tiny randomly initialised model built in the test (no download)."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from mfact.core.checking import build_verifier  # noqa: E402
from mfact.core.checking.verify.nli import NLIVerifier  # noqa: E402
from mfact.core.config import Config  # noqa: E402
from mfact.core.errors import MfactError
from mfact.core.session import Evidence  # noqa: E402

WORDS = "marie curie was born in warsaw 1867 she died paris won the nobel prize pierre".split()


def make_model(path, id2label=None, entail_bias=None):
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

    vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]"] + WORDS)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]",
                                   cls_token="[CLS]", sep_token="[SEP]")
    fast.save_pretrained(path)
    id2label = id2label or {0: "entailment", 1: "neutral", 2: "contradiction"}
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64, num_labels=len(id2label),
                     id2label=id2label, label2id={v: k for k, v in id2label.items()})
    torch.manual_seed(0)
    model = BertForSequenceClassification(cfg)
    if entail_bias is not None:
        with torch.no_grad():
            model.classifier.bias.zero_()
            model.classifier.bias[0] = entail_bias
    model.save_pretrained(path)
    return str(path)


EV = [Evidence(id="a", source="t", lang="en", title="", text="marie curie was born in warsaw in 1867"),
      Evidence(id="b", source="t", lang="en", title="", text="she died in paris"),
      Evidence(id="c", source="t", lang="en", title="", text="   ")]


def test_entailment_max_over_passages(tmp_path):
    v = NLIVerifier(make_model(tmp_path / "m"), device="cpu")
    probs = v.entailment_probs("she was born in warsaw", [e.text for e in EV[:2]])
    assert len(probs) == 2 and all(0 < p < 1 for p in probs)
    verdict = v.verify("she was born in warsaw", "Marie Curie", "en", EV)
    best = max(range(2), key=lambda i: probs[i])
    p = probs[best]
    assert verdict.evidence == [EV[best].id]
    assert verdict.label == ("S" if p >= 0.5 else "NS")
    assert verdict.confidence == pytest.approx(max(p, 1 - p), abs=1e-4)
    assert verdict.verifier == f"nli/1:{tmp_path / 'm'}"


@pytest.mark.parametrize("bias,label", [(12.0, "S"), (-12.0, "NS")])
def test_label_follows_entailment_probability(tmp_path, bias, label):
    v = build_verifier(Config(verifier=f"nli:{make_model(tmp_path / 'm', entail_bias=bias)}", device="cpu"))
    out = v.verify("she won the nobel prize", "Marie Curie", "en", EV)
    assert out.label == label and out.confidence > 0.99


def test_no_evidence_and_bad_models(tmp_path):
    v = NLIVerifier(make_model(tmp_path / "m"), device="cpu")
    assert v.verify("she died", "Marie Curie", "en", []).label == "NS"
    with pytest.raises(MfactError, match="no 'entailment' label"):
        NLIVerifier(make_model(tmp_path / "n", id2label={0: "positive", 1: "negative"}), device="cpu")
    with pytest.raises(MfactError, match="cannot load NLI model"):
        (tmp_path / "empty").mkdir()
        NLIVerifier(str(tmp_path / "empty"), device="cpu")
