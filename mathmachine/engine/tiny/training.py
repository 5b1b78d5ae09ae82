"""Training the tiny translator: the loop, exact-match evaluation, the history, the saved files.

The recipe (Unit 18 SPEC, feasibility facts): Adam (lr 3e-3, decayed linearly to 10%), batch 32,
600 steps, gradients clipped to global norm 1. Everything random comes from
:func:`mathmachine.engine.train.stream_rng` with the run's seed ("init" for the weights,
"batches" for the order of the training pairs), so a run is reproducible bit for bit on one
machine (numpy + the same BLAS): same seed, same arrays, same files.

Batches: the training pairs are shuffled once per pass (epoch) and cut into batches of 32 that
run across pass boundaries, so every pair is seen equally often.
"""

from __future__ import annotations

import hashlib
import io
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._types import Params
from ..train import Adam, clip_by_global_norm, flatten, linear_decay, stream_rng, unflatten
from . import decoder_only
from .corpus import EOS, Batch, Pair, encode, split, vocab
from .model import (
    DECODER_ONLY,
    TinyConfig,
    config_dict,
    cross_attention,
    greedy_decode,
    init_params,
    loss_and_grads,
)

HERE = Path(__file__).resolve().parent
WEIGHTS_PATH = HERE / "weights.npz"
HISTORY_PATH = HERE / "history.json"

#: The fixed sentences whose cross-attention the history keeps ("watch it learn"): the unit's own
#: example (a training pair) and one held-out pair the model never saw.
WATCH_SENTENCES = ("I drink tea", "the girl writes stories")


@dataclass(frozen=True)
class TrainSettings:
    seed: int = 0
    steps: int = 600
    batch_size: int = 32
    lr: float = 3e-3
    final_lr_fraction: float = 0.1
    clip_norm: float = 1.0
    checkpoints: tuple[int, ...] = (0, 25, 50, 100, 200, 600)  # steps done when a map is kept


@dataclass
class TrainResult:
    params: Params
    config: TinyConfig
    settings: TrainSettings
    loss: list[float]
    grad_norm: list[float]
    checkpoints: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0  # wall time of the optimisation steps (not the checkpoints)


def exact_match(
    params: Params, cfg: TinyConfig, pairs: Sequence[Pair]
) -> tuple[float, list[list[str]]]:
    """(share of pairs translated exactly, the greedy outputs as Hindi words)."""
    b = encode(tuple(pairs))
    ids, _ = greedy(params, cfg, b.src, b.src_len)
    words = [decode_ids(row) for row in ids]
    ok = sum(list(p.hindi) == w for p, w in zip(pairs, words, strict=True))
    return ok / len(pairs), words


def greedy(
    params: Params, cfg: TinyConfig, src: NDArray[np.int64], src_len: NDArray[np.int64]
) -> tuple[NDArray[np.int64], Any]:
    """Greedy decoding by the model's own architecture (encoder–decoder or decoder-only)."""
    if cfg.arch == DECODER_ONLY:
        return decoder_only.greedy_decode(params, cfg, src, src_len)
    return greedy_decode(params, cfg, src, src_len)


def _loss_and_grads(params: Params, cfg: TinyConfig, b: Batch) -> tuple[float, Params]:
    if cfg.arch == DECODER_ONLY:
        return decoder_only.loss_and_grads(params, cfg, b)
    return loss_and_grads(params, cfg, b)


def decode_ids(row: NDArray[np.int64]) -> list[str]:
    """Hindi ids up to (not including) </s> -> words."""
    hi = vocab().hindi
    out: list[str] = []
    for i in row:
        if hi[int(i)] == EOS:
            break
        out.append(hi[int(i)])
    return out


def _watch_pairs() -> list[Pair]:
    from .corpus import all_pairs

    by_text = {p.english_text: p for p in all_pairs()}
    return [by_text[s] for s in WATCH_SENTENCES]


def _checkpoint(params: Params, cfg: TinyConfig, step: int, loss: float | None) -> dict:
    train, held = split()
    acc_train, _ = exact_match(params, cfg, train)
    acc_held, _ = exact_match(params, cfg, held)
    sentences = []
    for p in _watch_pairs():
        b = encode((p,))
        ids, _ = greedy(params, cfg, b.src, b.src_len)
        # the map for the correct Hindi sentence (teacher forcing), rows = Hindi words + </s>;
        # a decoder-only model has no cross-attention: the share of its last layer's
        # self-attention that each Hindi slot puts on each English word instead
        decoder_only_model = cfg.arch == DECODER_ONLY
        if decoder_only_model:
            weights = decoder_only.attention_on_english(params, cfg, b)[0]  # [heads, T, S]
        else:
            weights = cross_attention(params, cfg, b)[0]  # [heads, T, S]
        n_hi, n_en = len(p.hindi) + 1, len(p.english)
        w = weights[:, :n_hi, :n_en]
        name = "attention_on_english" if decoder_only_model else "cross_attention"
        sentences.append(
            {
                "english": list(p.english),
                "hindi": [*p.hindi, EOS],
                "translit": list(p.translit),
                name: np.round(w.mean(axis=0), 4).tolist(),
                f"{name}_per_head": np.round(w, 4).tolist(),
                "greedy_output": decode_ids(ids[0]),
            }
        )
    return {
        "step": step,
        "loss": loss,
        "train_accuracy": acc_train,
        "held_out_accuracy": acc_held,
        "sentences": sentences,
    }


def batch_order(seed: int, n: int, batch_size: int, steps: int) -> list[NDArray[np.int64]]:
    """Row indices of each step's batch: the n pairs shuffled once per pass (stream "batches"),
    cut into batches that run across pass boundaries. [steps] arrays of [batch_size]."""
    rng = stream_rng(seed, "batches")
    queue = np.empty(0, dtype=np.int64)
    out = []
    for _ in range(steps):
        while len(queue) < batch_size:
            queue = np.concatenate([queue, rng.permutation(n)])
        out.append(queue[:batch_size])
        queue = queue[batch_size:]
    return out


def train(
    settings: TrainSettings | None = None,
    cfg: TinyConfig | None = None,
    *,
    pairs: Sequence[Pair] | None = None,
    on_step: Callable[[int, float], None] | None = None,
    keep_checkpoints: bool = True,
    stop_after: int | None = None,
) -> TrainResult:
    """Train from scratch. ``pairs`` defaults to the training split. ``stop_after`` ends the
    run after that many steps of the settings' schedule (the learning rate still decays over
    ``settings.steps``): the start of a full run, step for step."""
    s = settings or TrainSettings()
    v = vocab()
    cfg = cfg or TinyConfig(src_vocab=len(v.english), tgt_vocab=len(v.hindi))
    data: Batch = encode(tuple(pairs) if pairs is not None else split()[0])
    params = init_params(cfg, stream_rng(s.seed, "init"))
    order = batch_order(s.seed, data.src.shape[0], s.batch_size, s.steps)
    opt = Adam()
    result = TrainResult(params, cfg, s, loss=[], grad_norm=[])
    if keep_checkpoints and 0 in s.checkpoints:
        result.checkpoints.append(_checkpoint(params, cfg, 0, None))
    flat_params = flatten(params)  # views: Adam's in-place updates reach ``params``
    spent = 0.0
    n_steps = s.steps if stop_after is None else min(s.steps, stop_after)
    for step in range(n_steps):
        t0 = time.perf_counter()
        loss, grads = _loss_and_grads(params, cfg, data.take(order[step]))
        flat_grads = flatten(grads)
        norm = clip_by_global_norm(flat_grads, s.clip_norm)
        opt.step(flat_params, flat_grads, linear_decay(step, s.steps, s.lr, s.final_lr_fraction))
        spent += time.perf_counter() - t0
        result.loss.append(loss)
        result.grad_norm.append(norm)
        if on_step is not None:
            on_step(step, loss)
        if keep_checkpoints and step + 1 in s.checkpoints:
            result.checkpoints.append(_checkpoint(params, cfg, step + 1, loss))
    result.seconds = spent
    return result


# ------------------------------------------------------------------------------------------
# Files. Both are written so that the same run gives the same bytes.


def weights_bytes(params: Params, cfg: TinyConfig) -> bytes:
    """The .npz bytes: every parameter as float32 ("a.b.c" names), plus the config and the
    vocabularies as JSON (so stale weights are detected when the corpus changes)."""
    v = vocab()
    meta = {"config": config_dict(cfg), "english": list(v.english), "hindi": list(v.hindi)}
    arrays = {k: a.astype(np.float32) for k, a in flatten(params).items()}
    arrays["__meta__"] = np.array(json.dumps(meta, ensure_ascii=False, sort_keys=True))
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)  # type: ignore[arg-type]  # zip entries carry a fixed 1980-01-01 date: stable bytes
    return buf.getvalue()


def read_weights(path: Path = WEIGHTS_PATH) -> tuple[Params, TinyConfig]:
    """(params as float64 nested dicts, config) from a weights file; checks the vocabularies."""
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run `make train-tiny`")
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["__meta__"]))
        flat = {k: z[k].astype(np.float64) for k in z.files if k != "__meta__"}
    v = vocab()
    if meta["english"] != list(v.english) or meta["hindi"] != list(v.hindi):
        raise ValueError(f"{path} was trained on another vocabulary: run `make train-tiny`")
    return unflatten(flat), TinyConfig(**meta["config"])


def history_dict(result: TrainResult) -> dict[str, Any]:
    """The training history for the "watch it learn" widget (no timings: those vary)."""
    train_pairs, held = split()
    return {
        "settings": {
            k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(result.settings).items()
        },
        "config": config_dict(result.config),
        "n_train": len(train_pairs),
        "n_held_out": len(held),
        "watch_sentences": list(WATCH_SENTENCES),
        "loss": [round(x, 6) for x in result.loss],
        "grad_norm": [round(x, 6) for x in result.grad_norm],
        "checkpoints": result.checkpoints,
    }


def history_bytes(result: TrainResult) -> bytes:
    return (json.dumps(history_dict(result), ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
