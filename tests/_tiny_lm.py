"""A tiny, randomly initialised causal LM with a byte-level BPE tokenizer, built offline in tests."""
from __future__ import annotations

from pathlib import Path

CORPUS = [
    "This is a Wikipedia article about Marie Curie. Marie Curie was a physicist and chemist.",
    "Este es un artículo de Wikipedia sobre Marie Curie. Marie Curie fue una física y química.",
    "Ceci est un article de Wikipédia sur Marie Curie. Elle est née à Varsovie en 1867.",
    "এটি মারি কুরি সম্পর্কে একটি উইকিপিডিয়া নিবন্ধ। তিনি একজন পদার্থবিজ্ঞানী ছিলেন।",
    "这是一篇关于居里夫人的维基百科文章。她出生于华沙。",
]


def build_tokenizer(vocab_size: int = 300):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<pad>", "<eos>", "<bos>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(CORPUS, trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<bos>", eos_token="<eos>",
                                   pad_token="<pad>")
    return fast


def build_model(tokenizer, seed: int = 0, arch: str = "gpt2"):
    import torch
    from transformers import AutoModelForCausalLM, GPT2Config

    torch.manual_seed(seed)
    if arch == "gemma3":
        from transformers import Gemma3TextConfig

        cfg = Gemma3TextConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
                               num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                               head_dim=16, sliding_window=8, max_position_embeddings=512,
                               bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                               pad_token_id=tokenizer.pad_token_id)
    else:
        cfg = GPT2Config(vocab_size=len(tokenizer), n_positions=512, n_embd=32, n_layer=2, n_head=2,
                         bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id)
    model = AutoModelForCausalLM.from_config(cfg)
    model.eval()
    return model


def save_tiny(folder: Path, arch: str = "gpt2") -> Path:
    tok = build_tokenizer()
    model = build_model(tok, arch=arch)
    model.save_pretrained(str(folder))
    tok.save_pretrained(str(folder))
    return folder
