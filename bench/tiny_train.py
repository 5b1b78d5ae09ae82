"""Training the tiny translator: the engine (numpy, hand-written backprop) against a PyTorch
autograd version of the same model, same process, same initial weights, same batches.

    python bench/tiny_train.py                       # numpy only (the reference is skipped)
    /path/to/venv-with-torch/bin/python bench/tiny_train.py

Prints the wall time of a full training run (600 steps, with the history checkpoints, as
``make train-tiny`` does it), the time per training step (forward, backward, clipping, Adam) for
numpy, and when PyTorch is importable the same for PyTorch in float64 (the engine's precision)
and float32, with the ratio numpy / PyTorch (goal <= 1.0). It also prints how far PyTorch's loss
curve, from the same start, is from ours: autograd against our hand-written backward, end to end.
Each figure is the best of a few repeats; the machine may be shared and noisy. Nothing is
asserted.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mathmachine.engine.tiny.corpus import encode, split, vocab
from mathmachine.engine.tiny.model import TinyConfig, init_params
from mathmachine.engine.tiny.training import TrainSettings, batch_order, train
from mathmachine.engine.train import flatten, linear_decay, stream_rng

REPEATS = 3


def numpy_run(settings: TrainSettings, checkpoints: bool) -> tuple[float, float, list[float]]:
    """(wall seconds, seconds in training steps, losses)."""
    t0 = time.perf_counter()
    r = train(settings, keep_checkpoints=checkpoints)
    return time.perf_counter() - t0, r.seconds, r.loss


def torch_run(settings: TrainSettings, dtype: Any) -> tuple[float, list[float]]:
    """The same model, written with PyTorch ops and trained with autograd + torch.optim.Adam.

    Returns (seconds in training steps, losses). Starts from the engine's initial weights.
    """
    import torch
    import torch.nn.functional as F

    v = vocab()
    cfg = TinyConfig(src_vocab=len(v.english), tgt_vocab=len(v.hindi))
    H, d = cfg.n_heads, cfg.d_model
    init = flatten(init_params(cfg, stream_rng(settings.seed, "init")))
    p = {k: torch.tensor(a, dtype=dtype, requires_grad=True) for k, a in init.items()}
    data = encode(split()[0])
    order = batch_order(settings.seed, data.src.shape[0], settings.batch_size, settings.steps)

    def pe(n: int) -> Any:
        pos = torch.arange(n, dtype=dtype)[:, None]
        ang = pos / 10000 ** (torch.arange(0, d, 2, dtype=dtype) / d)
        out = torch.empty(n, d, dtype=dtype)
        out[:, 0::2], out[:, 1::2] = torch.sin(ang), torch.cos(ang)
        return out

    def mha(xq: Any, xkv: Any, pre: str, mask: Any) -> Any:
        B, nq, nk = xq.shape[0], xq.shape[1], xkv.shape[1]

        def heads(x: Any, W: str, n: int) -> Any:
            return (x @ p[pre + "W_" + W] + p[pre + "b_" + W]).view(B, n, H, d // H).transpose(1, 2)

        q, k, val = heads(xq, "q", nq), heads(xkv, "k", nk), heads(xkv, "v", nk)
        s = (q @ k.transpose(-1, -2)) / math.sqrt(d // H)
        w = torch.softmax(s.masked_fill(~mask[:, None], float("-inf")), dim=-1)
        o = (w @ val).transpose(1, 2).reshape(B, nq, d)
        return o @ p[pre + "W_o"] + p[pre + "b_o"]

    def ln(x: Any, pre: str) -> Any:
        return F.layer_norm(x, (d,), p[pre + "_g"], p[pre + "_b"], 1e-5)

    def ffn(x: Any, pre: str) -> Any:
        return torch.relu(x @ p[pre + "W1"] + p[pre + "b1"]) @ p[pre + "W2"] + p[pre + "b2"]

    def loss_fn(src: Any, src_len: Any, tgt_in: Any, tgt_out: Any) -> Any:
        S, T = src.shape[1], tgt_in.shape[1]
        keys = (torch.arange(S)[None, :] < src_len[:, None])[:, None, :]  # [B, 1, S]
        x = p["src_emb"][src] + pe(S)
        x = ln(x + mha(x, x, "enc.0.", keys), "enc.0.ln1")  # post-LN encoder block
        m = ln(x + ffn(x, "enc.0."), "enc.0.ln2")
        y = p["tgt_emb"][tgt_in] + pe(T)
        causal = torch.tril(torch.ones(T, T, dtype=torch.bool))[None]
        y = ln(y + mha(y, y, "dec.0.", causal), "dec.0.ln1")
        y = ln(y + mha(y, m, "dec.0.cross_", keys), "dec.0.ln2")
        y = ln(y + ffn(y, "dec.0."), "dec.0.ln3")
        logits = y @ p["out.W"] + p["out.b"]
        return F.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1), ignore_index=0
        )

    opt = torch.optim.Adam(list(p.values()), lr=settings.lr, betas=(0.9, 0.999), eps=1e-8)
    tensors = [torch.from_numpy(a) for a in (data.src, data.src_len, data.tgt_in, data.tgt_out)]
    losses: list[float] = []
    spent = 0.0
    for step in range(settings.steps):
        t0 = time.perf_counter()
        idx = torch.from_numpy(order[step])
        loss = loss_fn(*(t[idx] for t in tensors))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        with torch.no_grad():  # clip exactly as the engine does: scale by c / ||g|| if larger
            norm = torch.sqrt(sum((q.grad * q.grad).sum() for q in p.values()))
            if norm > settings.clip_norm:
                for q in p.values():
                    q.grad.mul_(settings.clip_norm / norm)
        for group in opt.param_groups:
            group["lr"] = linear_decay(
                step, settings.steps, settings.lr, settings.final_lr_fraction
            )
        opt.step()
        spent += time.perf_counter() - t0
        losses.append(float(loss.detach()))
    return spent, losses


def main() -> None:
    s = TrainSettings()
    walls, steps_np = [], []
    for _ in range(REPEATS):
        wall, spent, losses_np = numpy_run(s, checkpoints=True)
        walls.append(wall)
        steps_np.append(spent)
    ms_np = 1e3 * min(steps_np) / s.steps
    print(f"tiny translator, seed {s.seed}, {s.steps} steps, batch {s.batch_size}")
    print(
        f"numpy: full training run (with history checkpoints) {min(walls):.2f} s wall "
        f"(best of {REPEATS}); {ms_np:.2f} ms a training step"
    )
    try:
        import torch
    except ImportError:
        print("PyTorch is not importable: the PyTorch reference was skipped")
        return
    print(f"PyTorch {torch.__version__}, {torch.get_num_threads()} threads")
    for dtype, name in ((torch.float64, "float64"), (torch.float32, "float32")):
        times: list[float] = []
        losses_t: list[float] = []
        for _ in range(REPEATS):
            spent, losses_t = torch_run(s, dtype)
            times.append(spent)
        ms_t = 1e3 * min(times) / s.steps
        diff = np.abs(np.array(losses_t) - np.array(losses_np))
        print(
            f"PyTorch autograd {name}: {ms_t:.2f} ms a step -> numpy / PyTorch = "
            f"{ms_np / ms_t:.2f} (goal <= 1.0); |loss difference| from numpy's curve: "
            f"step 1 {diff[0]:.1e}, first 50 steps max {diff[:50].max():.1e}, "
            f"all {s.steps} max {diff.max():.1e}"
        )


if __name__ == "__main__":
    main()
