#!/usr/bin/env python3
"""The PyTorch Geometric peer of bench_tox21: the same batched GCN on Tox21, in the same order.

bench_tox21 writes a plan file (--plan): the hyper-parameters, the 80/10/10 split, every epoch's
order of the training graphs and ringblas's initial weights. This script reads the TU files itself
(plain Python, numpy; no scipy), builds one torch_geometric.data.Data per molecule (one-hot atom
types, the same columns as ringblas: sorted distinct labels), and trains
    GCNConv(F, H) -> ReLU -> ... (L layers) -> global_mean_pool -> Linear(H, T)
with BCEWithLogitsLoss over the present labels and Adam, batching each epoch's order in chunks of
the batch size through PyG's DataLoader (collation included in the epoch time, as PyG users pay
it). ROC-AUC per task from ranks with ties (the Mann-Whitney statistic, as roc_auc.cpp).
Prints one line per epoch and finally
    RESULT epoch_ms_median=... test_auc=... best_epoch=... val_auc=... device=...
which bench_tox21 reads.
"""
import argparse
import gzip
import os
import statistics
import sys
import time

import numpy as np
import torch
from torch_geometric.data import Data
from torch_geometric.loader import DataLoader
from torch_geometric.nn import GCNConv, global_mean_pool


def read_text(path):
    for p in (path, path + ".gz"):
        if os.path.exists(p):
            with open(p, "rb") as f:
                raw = f.read()
            if raw[:2] == b"\x1f\x8b":
                raw = gzip.decompress(raw)
            return raw.decode()
    raise FileNotFoundError(path)


def read_plan(path):
    plan = {"epochs_order": [], "weights": {}, "biases": {}}
    with open(path) as f:
        for line in f:
            tok = line.split()
            if not tok or tok[0].startswith("#"):
                continue
            key = tok[0]
            if key == "param":
                plan[tok[1]] = tok[2]
            elif key in ("train", "val", "test"):
                plan[key] = [int(x) for x in tok[2:]]
            elif key == "epoch":
                plan["epochs_order"].append([int(x) for x in tok[2:]])
            elif key == "weight":
                l, r, c = int(tok[1]), int(tok[2]), int(tok[3])
                plan["weights"][l] = np.array([float(x) for x in tok[4:]], dtype=np.float32).reshape(r, c)
            elif key == "bias":
                l = int(tok[1])
                plan["biases"][l] = np.array([float(x) for x in tok[3:]], dtype=np.float32)
    return plan


def load_tu(d, name):
    edges = np.array([[int(v) for v in ln.split(",")] for ln in read_text(f"{d}/{name}_A.txt").split("\n") if ln.strip()], dtype=np.int64) - 1
    ind = np.array([int(v) for v in read_text(f"{d}/{name}_graph_indicator.txt").split()], dtype=np.int64) - 1
    labels = np.array([int(v) for v in read_text(f"{d}/{name}_node_labels.txt").split()], dtype=np.int64)
    rows = [ln.split(",") for ln in read_text(f"{d}/{name}_graph_labels.csv").split("\n") if ln.strip()][1:]
    y = np.array([[float(v) if v.strip() else np.nan for v in r[1:]] for r in rows], dtype=np.float32)
    values = np.unique(labels)
    col = np.searchsorted(values, labels)
    x = np.zeros((len(labels), len(values)), dtype=np.float32)
    x[np.arange(len(labels)), col] = 1.0
    n_graphs = int(ind.max()) + 1
    start = np.searchsorted(ind, np.arange(n_graphs + 1))
    e_graph = ind[edges[:, 0]]
    order = np.argsort(e_graph, kind="stable")
    edges, e_graph = edges[order], e_graph[order]
    e_start = np.searchsorted(e_graph, np.arange(n_graphs + 1))
    data = []
    for g in range(n_graphs):
        lo, hi = start[g], start[g + 1]
        e = edges[e_start[g]:e_start[g + 1]] - lo
        data.append(Data(x=torch.from_numpy(x[lo:hi]), edge_index=torch.from_numpy(e.T.copy()),
                         y=torch.from_numpy(y[g:g + 1])))
    return data


class Net(torch.nn.Module):
    def __init__(self, f, h, layers, t):
        super().__init__()
        self.convs = torch.nn.ModuleList([GCNConv(f if l == 0 else h, h) for l in range(layers)])
        self.head = torch.nn.Linear(h, t)

    def forward(self, b):
        x = b.x
        for conv in self.convs:
            x = torch.relu(conv(x, b.edge_index))
        return self.head(global_mean_pool(x, b.batch))


def roc_auc(scores, labels):
    m = ~np.isnan(labels)
    s, l = scores[m], labels[m]
    pos = float((l == 1).sum())
    neg = float(len(l) - pos)
    if pos == 0 or neg == 0:
        return float("nan")
    order = np.argsort(s, kind="mergesort")
    s_sorted = s[order]
    ranks = np.empty(len(s), dtype=np.float64)
    i = 0
    while i < len(s):
        j = i
        while j < len(s) and s_sorted[j] == s_sorted[i]:
            j += 1
        ranks[order[i:j]] = (i + 1 + j) / 2.0
        i = j
    return (ranks[l == 1].sum() - pos * (pos + 1) / 2.0) / (pos * neg)


@torch.no_grad()
def evaluate(model, data, ids, batch, dev):
    model.eval()
    outs, ys = [], []
    for b in DataLoader([data[i] for i in ids], batch_size=batch, shuffle=False):
        b = b.to(dev)
        outs.append(model(b).float().cpu().numpy())
        ys.append(b.y.cpu().numpy())
    o, y = np.concatenate(outs), np.concatenate(ys)
    aucs = [roc_auc(o[:, t], y[:, t]) for t in range(y.shape[1])]
    good = [a for a in aucs if not np.isnan(a)]
    return (sum(good) / len(good) if good else float("nan")), aucs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--plan", required=True)
    ap.add_argument("--data", required=True, help="folder of tox21_A.txt(.gz) ...")
    ap.add_argument("--device", default="cuda")
    args = ap.parse_args()
    plan = read_plan(args.plan)
    H, L, B = int(plan["hidden"]), int(plan["layers"]), int(plan["batch"])
    lr = float(plan["lr"])
    dev = torch.device(args.device if torch.cuda.is_available() or args.device == "cpu" else "cpu")
    data = load_tu(args.data, plan.get("name", "tox21"))
    F, T = data[0].x.shape[1], data[0].y.shape[1]
    torch.manual_seed(int(plan.get("seed", "0")))
    model = Net(F, H, L, T).to(dev)
    with torch.no_grad():  # ringblas's initial weights (W is in x out; torch stores out x in)
        for l, conv in enumerate(model.convs):
            conv.lin.weight.copy_(torch.from_numpy(plan["weights"][l].T.copy()))
            conv.bias.copy_(torch.from_numpy(plan["biases"][l]))
        model.head.weight.copy_(torch.from_numpy(plan["weights"][L].T.copy()))
        model.head.bias.copy_(torch.from_numpy(plan["biases"][L]))
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    crit = torch.nn.BCEWithLogitsLoss()
    times, best, best_val, best_test = [], -1, -1.0, float("nan")
    for e, order in enumerate(plan["epochs_order"]):
        model.train()
        if dev.type == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        chunks = [order[k:k + B] for k in range(0, len(order), B)]
        loader = DataLoader(data, batch_sampler=chunks)
        total = 0.0
        for b in loader:
            b = b.to(dev)
            opt.zero_grad()
            out = model(b)
            m = ~torch.isnan(b.y)
            loss = crit(out[m], b.y[m])
            loss.backward()
            opt.step()
            total += loss.detach()
        if dev.type == "cuda":
            torch.cuda.synchronize()
        ms = (time.perf_counter() - t0) * 1e3
        times.append(ms)
        val, _ = evaluate(model, data, plan["val"], B, dev)
        test, _ = evaluate(model, data, plan["test"], B, dev)
        if val > best_val:
            best, best_val, best_test = e, val, test
        print(f"pyg epoch {e:3d}  loss {float(total) / len(chunks):.4f}  val ROC-AUC {val:.4f}  "
              f"test ROC-AUC {test:.4f}  {ms:.1f} ms", flush=True)
    med = statistics.median(times[1:] if len(times) > 1 else times)
    name = torch.cuda.get_device_name(0) if dev.type == "cuda" else "cpu"
    print(f"RESULT epoch_ms_median={med:.3f} test_auc={best_test:.4f} best_epoch={best} "
          f"val_auc={best_val:.4f} final_test_auc={test:.4f} device={name.replace(' ', '_')}",
          flush=True)


if __name__ == "__main__":
    sys.exit(main())
