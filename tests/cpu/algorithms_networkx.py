#!/usr/bin/env python3
"""The graph commands of the ringblas CLI (bfs, sssp, pagerank, tc, cc, kcore, bc) against
networkx/scipy on karate and the SNAP facebook_combined graph, jazz's weights for sssp, and the
directed, weighted cage8 (bfs, sssp, pagerank and bc on a DiGraph; tc, cc and kcore on its
symmetrisation).

usage: algorithms_networkx.py RINGBLAS_CLI DATA_DIR
Exit 0 when every comparison agrees, 1 on a difference, 77 (reported SKIPPED by ctest) when
networkx or scipy is missing.
"""
import gzip
import os
import subprocess
import sys
import tempfile

try:
    import networkx as nx
    import scipy.io
except ImportError as e:  # the comparison cannot run here: say so, never pass
    print(f"SKIP: {e} (python3 -m pip install networkx scipy)")
    sys.exit(77)

CLI, DATA = sys.argv[1], sys.argv[2]
failures = []


def run(*args):
    out = subprocess.run([CLI, *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"ringblas {' '.join(args)} failed ({out.returncode}): {out.stderr}")
    return out.stdout


def vertex_values(cmd, path, *extra):
    """Runs a command with -o and returns {vertex: value} from the n x 1 Matrix Market vector."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.mtx")
        run(cmd, path, *extra, "-o", out)
        m = scipy.io.mmread(out).tocoo()
        return {int(r): float(v) for r, v in zip(m.row, m.data)}


def check(name, got, want, tol=0.0):
    if set(got) != set(want):
        failures.append(f"{name}: vertices differ: {sorted(set(got) ^ set(want))[:10]}")
        return
    bad = [v for v in want if abs(got[v] - want[v]) > tol * max(1.0, abs(want[v]))]
    if bad:
        v = bad[0]
        failures.append(f"{name}: {len(bad)} values differ, e.g. vertex {v}: {got[v]} vs {want[v]}")
    else:
        print(f"ok  {name} ({len(want)} vertices)")


def check_count(name, got, want):
    if got != want:
        failures.append(f"{name}: {got} vs networkx {want}")
    else:
        print(f"ok  {name} ({got})")


def load_mtx(path, weighted=False):
    m = scipy.io.mmread(path).tocoo()
    g = nx.Graph()
    g.add_nodes_from(range(m.shape[0]))
    for i, j, w in zip(m.row, m.col, m.data):
        g.add_edge(int(i), int(j), weight=float(w) if weighted else 1.0)
    return g


def load_directed_mtx(path):
    m = scipy.io.mmread(path).tocoo()
    g = nx.DiGraph()
    g.add_nodes_from(range(m.shape[0]))
    for i, j, w in zip(m.row, m.col, m.data):
        g.add_edge(int(i), int(j), weight=float(w))
    return g


def load_snap(path):
    g = nx.Graph()
    with gzip.open(path, "rt") as f:
        for line in f:
            t = line.split()
            if len(t) >= 2 and t[0].isdigit() and t[1].isdigit():
                g.add_edge(int(t[0]), int(t[1]), weight=1.0)
    # The CLI reads edge lists as given (ids are vertex numbers); facebook_combined's are 0..4038
    assert sorted(g.nodes) == list(range(g.number_of_nodes())), "ids not contiguous"
    return g


def compare(name, path, g, bc_sources, *read):
    """`read`: input options for the CLI, e.g. --symmetric for an undirected edge list."""
    n = g.number_of_nodes()
    check(f"{name} bfs", vertex_values("bfs", path, *read, "--source", "0"),
          {v: float(d) for v, d in nx.single_source_shortest_path_length(g, 0).items()})
    check(f"{name} sssp", vertex_values("sssp", path, *read, "--source", "0"),
          nx.single_source_dijkstra_path_length(g, 0), 1e-12)
    check(f"{name} pagerank", vertex_values("pagerank", path, *read, "--tol", "1e-12"),
          nx.pagerank(g, alpha=0.85, tol=1e-12, max_iter=1000), 1e-8)
    check_count(f"{name} tc", int(run("tc", path, *read).split()[1]), sum(nx.triangles(g).values()) // 3)
    labels = {}
    for comp in nx.connected_components(g):
        low = min(comp)
        labels.update({v: float(low) for v in comp})
    check(f"{name} cc", vertex_values("cc", path, *read), labels)
    h = g.copy()
    h.remove_edges_from(nx.selfloop_edges(h))
    check(f"{name} kcore", vertex_values("kcore", path, *read),
          {v: float(c) for v, c in nx.core_number(h).items()})
    # Σ_s δ_s(v) over the sources is twice networkx's unnormalised undirected subset value.
    src = list(range(min(bc_sources, n)))
    want_bc = nx.betweenness_centrality_subset(g, src, list(g.nodes), normalized=False)
    check(f"{name} bc", vertex_values("bc", path, *read, "--sources", str(len(src))),
          {v: 2.0 * c for v, c in want_bc.items()}, 1e-9)


karate = os.path.join(DATA, "suitesparse", "karate.mtx")
facebook = os.path.join(DATA, "snap", "facebook_combined.txt.gz")
jazz = os.path.join(DATA, "suitesparse", "jazz.mtx")
cage8 = os.path.join(DATA, "suitesparse", "cage8.mtx.gz")
for p in (karate, facebook, jazz, cage8):
    if not os.path.exists(p):
        print(f"SKIP: test data absent: {p}")
        sys.exit(77)

compare("karate", karate, load_mtx(karate), 34)
compare("facebook_combined", facebook, load_snap(facebook), 40, "--symmetric")  # undirected
jazz_want = nx.single_source_dijkstra_path_length(load_mtx(jazz, weighted=True), 3)
for method in ("delta-stepping", "bellman-ford"):
    check(f"jazz weighted sssp {method}",
          vertex_values("sssp", jazz, "--source", "3", "--method", method), jazz_want, 1e-12)

# Directed and weighted: cage8 (positive weights, a self-loop on every vertex).
dg = load_directed_mtx(cage8)
check("cage8 bfs (directed)", vertex_values("bfs", cage8, "--source", "5"),
      {v: float(d) for v, d in nx.single_source_shortest_path_length(dg, 5).items()})
check("cage8 sssp (directed, weighted)", vertex_values("sssp", cage8, "--source", "5"),
      nx.single_source_dijkstra_path_length(dg, 5), 1e-12)
check("cage8 pagerank (directed, weighted)", vertex_values("pagerank", cage8, "--tol", "1e-12"),
      nx.pagerank(dg, alpha=0.85, tol=1e-12, max_iter=1000), 1e-8)
unweighted = nx.DiGraph(dg.edges())
check("cage8 bc (directed)", vertex_values("bc", cage8, "--sources", "30"),
      nx.betweenness_centrality_subset(unweighted, list(range(30)), list(dg.nodes),
                                       normalized=False), 1e-9)
ug = dg.to_undirected()
ug.remove_edges_from(nx.selfloop_edges(ug))
check_count("cage8 tc (symmetrised)", int(run("tc", cage8).split()[1]),
            sum(nx.triangles(ug).values()) // 3)
check("cage8 kcore (symmetrised)", vertex_values("kcore", cage8),
      {v: float(c) for v, c in nx.core_number(ug).items()})

for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
