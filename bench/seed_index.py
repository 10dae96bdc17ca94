"""Recall and speed of the seed index (`atomrec.index.SeedIndex`, faiss IVF) against the exact search, on a real memory
with the read path's own queries (each test case's composed query vector).

    python bench/seed_index.py --run RUN_DIR --bench BENCH_DIR [--out bench/results/seed_index-DATA.md]

RUN_DIR is a finished `atomrec run atomrec` (its memory-test is read from a copy)."""
import argparse, json, shutil, tempfile, time
from pathlib import Path
import numpy as np

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--run', required=True, help='a finished `atomrec run atomrec` folder')
    ap.add_argument('--bench', required=True, help='its benchmark folder')
    ap.add_argument('--cases', type=int, default=500, help='test cases whose queries are searched')
    ap.add_argument('--k', type=int, default=15, help='seeds per query (the config k_ret)')
    ap.add_argument('--out', default=None, help='markdown report (default bench/results/seed_index-DATA.md)')
    a = ap.parse_args()
    from atomrec.memory import AtomRec
    from atomrec.eval.benchmark import Bench
    import atomrec.retrieval
    from atomrec.index import SeedIndex
    bench = Bench(a.bench); data = bench.name
    work = Path(tempfile.mkdtemp(prefix='seed_index-')); shutil.copytree(Path(a.run)/'memory-test', work/'m', ignore=shutil.ignore_patterns('.lock'))
    ar = AtomRec.open(work/'m', progress=False)
    cs = bench.cases('test').iloc[:a.cases]
    Q = [ar.query_vector(str(u), i if isinstance(i, str) and i else None) for u, i in zip(cs.user_id, cs.instruction)]
    t = time.perf_counter(); ix = SeedIndex(ar.store, centroids=None).sync(); build = time.perf_counter() - t
    exact, approx, te, ti = [], [], [], []
    for q in Q:
        t = time.perf_counter(); exact.append(ar.store.search(q, a.k)); te.append(time.perf_counter() - t)
        t = time.perf_counter(); approx.append(ix.search(q, a.k)); ti.append(time.perf_counter() - t)
    recall = np.mean([len({i for i, _ in x} & {i for i, _ in y}) / a.k for x, y in zip(exact, approx)])
    same = np.mean([[i for i, _ in x] == [i for i, _ in y] for x, y in zip(exact, approx)])
    ms = lambda xs, q: float(np.percentile(np.array(xs) * 1000, q))
    md = [f"# Seed index vs exact search: {data} ({len(ar.store)} notes)\n",
          f"Queries: the composed query vectors of the first {len(Q)} test cases of `{a.bench}` (requests: {bench.manifest['instructions']}); k = {a.k}.",
          f"Index: faiss IndexIVFFlat, {len(ix.centroids)} clusters (k-means on one thread, seed 0), nprobe {ix.nprobe}, {ix.candidates} candidates re-scored exactly; built in {build:.1f} s (k-means and adding every note).",
          f"Command: `python bench/seed_index.py --run {a.run} --bench {a.bench}`\n",
          '| measure | exact | seed index |', '|---|---:|---:|',
          f"| search p50 | {ms(te, 50):.2f} ms | {ms(ti, 50):.2f} ms |",
          f"| search p99 | {ms(te, 99):.2f} ms | {ms(ti, 99):.2f} ms |",
          f"| recall@{a.k} | 1 | {recall:.4f} |",
          f"| the same {a.k} seeds in the same order | 100% | {same:.1%} |"]
    out = Path(a.out or f'bench/results/seed_index-{data}.md'); out.parent.mkdir(parents=True, exist_ok=True); out.write_text('\n'.join(md) + '\n')
    print('\n'.join(md)); ar.close(); shutil.rmtree(work)

if __name__ == '__main__': main()
