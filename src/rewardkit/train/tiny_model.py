"""A tiny Llama-style model and character-level tokenizer built locally, for tests and smoke runs.

No download: the tokenizer is built with ``tokenizers`` from a fixed alphabet and the weights are random
(seeded). The result is a directory that ``AutoModelForCausalLM.from_pretrained`` and
``AutoTokenizer.from_pretrained`` load like any hub checkpoint, so TRL's GRPOTrainer takes its path.
"""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any

ALPHABET = string.ascii_letters + string.digits + string.punctuation + " \n"
SPECIAL_TOKENS = {"pad": "<pad>", "bos": "<s>", "eos": "</s>", "unk": "<unk>"}
CHAT_TEMPLATE = (
    "{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}</s>{% endfor %}"
    "{% if add_generation_prompt %}<assistant>{% endif %}"
)


def build_char_tokenizer() -> Any:  # transformers.PreTrainedTokenizerFast
    """A tokenizer with one token per character of ``ALPHABET`` plus pad/bos/eos/unk."""
    from tokenizers import Tokenizer, decoders, models
    from transformers import PreTrainedTokenizerFast

    vocab = {tok: i for i, tok in enumerate(SPECIAL_TOKENS.values())}
    for ch in ALPHABET:
        vocab.setdefault(ch, len(vocab))
    core = Tokenizer(models.BPE(vocab=vocab, merges=[], unk_token=SPECIAL_TOKENS["unk"]))
    core.decoder = decoders.Fuse()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        pad_token=SPECIAL_TOKENS["pad"],
        bos_token=SPECIAL_TOKENS["bos"],
        eos_token=SPECIAL_TOKENS["eos"],
        unk_token=SPECIAL_TOKENS["unk"],
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def build_tiny_model(
    path: str | Path,
    *,
    hidden_size: int = 32,
    num_layers: int = 2,
    num_heads: int = 4,
    intermediate_size: int = 64,
    max_positions: int = 512,
    seed: int = 0,
) -> Path:
    """Write a randomly initialised tiny Llama model and its tokenizer to ``path``; return the path."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    path = Path(path)
    tokenizer = build_char_tokenizer()
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=intermediate_size,
        num_hidden_layers=num_layers,
        num_attention_heads=num_heads,
        num_key_value_heads=max(1, num_heads // 2),
        max_position_embeddings=max_positions,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        tie_word_embeddings=False,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def main(argv: list[str] | None = None) -> None:
    """``python -m rewardkit.train.tiny_model DIR [--hidden-size N ...]``: build a tiny model into DIR."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m rewardkit.train.tiny_model", description=main.__doc__)
    parser.add_argument("path", help="directory to write the model and tokenizer to")
    for flag, default in (("hidden-size", 32), ("num-layers", 2), ("num-heads", 4), ("intermediate-size", 64)):
        parser.add_argument(f"--{flag}", type=int, default=default)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    path = build_tiny_model(
        args.path,
        hidden_size=args.hidden_size,
        num_layers=args.num_layers,
        num_heads=args.num_heads,
        intermediate_size=args.intermediate_size,
        seed=args.seed,
    )
    print(f"wrote a tiny Llama ({args.hidden_size} hidden, {args.num_layers} layers) and its tokenizer to {path}")


if __name__ == "__main__":
    main()
