"""How many test targets each of the memory's candidate sources reaches over the whole catalogue: the ground work of a candidate
stage for `recommend` without a candidate list. Reads the test memory an `atomrec run atomrec` kept (`RUN/memory-test`, every
note before each user's test target, its order model beside it) and the benchmark's test cases; for each source, each user's
items ranked over every item they have no note about, and the share of targets within the first N (recall@N).

Sources (each `AtomRec.source_scores`): `order` (the memory's order model over every item after the user's notes), `request` (the item notes nearest the
request's vector, when the case has one), `walk` (RP3beta over the notes, one to three
steps, summed), `transition` (what other users' next notes held after the user's recent items), `itemcf` (co-readers of the
user's recent items), `pop` (readers per item), and two merges: `rrf` (reciprocal-rank fusion of the sources) and `quota` (each
source in turn, its next item not yet taken); `propose` is the library's own shortlist (`AtomRec.propose`: weighted fusion,
the order model counting twice).

    python bench/candidate_sources.py --run RUN --bench BENCH [--n 100 200 300 500] [--out bench/results/candidate_sources.md]

With `--stage` RUN is a full-ranking `atomrec run atomrec` (`atomrec prepare DATA --candidates all`) and what is measured is
the stage it fitted on validation (`RUN/stage.json`: its weights, the catalogue's order model in `RUN/order/catalogue`) over
its test memory: the stage's order with the fitted weights, with the library's default weights, and the catalogue's order
model alone. Each is the order of every item the user has no note about, so recall@N is exact at every N."""
import argparse, time
from collections import Counter
from pathlib import Path
import numpy as np, pandas as pd
from atomrec.memory import AtomRec
from atomrec.eval.benchmark import Bench

def ranked(scores:np.ndarray, seen:np.ndarray, n:int)->np.ndarray:
    "Columns of the `n` best scores (ties: lower column first), the seen ones left out."
    s = scores.astype(np.float64).copy(); s[seen] = -np.inf
    top = np.argpartition(-s, min(n, len(s) - 1))[:n]
    return top[np.lexsort((top, -s[top]))]

def merge_rrf(lists:dict, n:int, k:int=60)->list:
    "Reciprocal-rank fusion of the sources' ranked lists: the first n."
    s = Counter()
    for L in lists.values():
        for r, c in enumerate(L): s[c] += 1.0 / (k + r + 1)
    return [c for c, _ in sorted(s.items(), key=lambda x: (-x[1], x[0]))][:n]

def merge_quota(lists:dict, n:int, order:tuple)->list:
    "Each source in turn (`order`), its next item not yet taken, until n."
    out, taken, pos = [], set(), {s: 0 for s in order}
    while len(out) < n and any(pos[s] < len(lists[s]) for s in order):
        for s in order:
            L = lists[s]
            while pos[s] < len(L) and L[pos[s]] in taken: pos[s] += 1
            if pos[s] < len(L): taken.add(L[pos[s]]); out.append(L[pos[s]]); pos[s] += 1
            if len(out) >= n: break
    return out

def stage_main(a):
    "Recall@N of the fitted stage of a full-ranking AtomRec run over its test cases (`--stage`)."
    from atomrec.candidates import SOURCE_WEIGHTS, CatalogueStage
    from atomrec.eval.stage import stage_order, request_vectors, place_of
    t0 = time.perf_counter(); run = Path(a.run); stage = CatalogueStage.load(run)   # its weights and order model, as a served memory reads them
    mem = AtomRec.open(run/'memory-test', read_only=True, progress=False)
    mem.order = stage.order
    bench = Bench(a.bench); cases = bench.cases('test')
    if a.users: cases = cases.head(a.users)
    items = mem.catalogue(); col = {c: k for k, c in enumerate(items)}
    ways = {'stage (fitted weights)': stage.weights, 'stage (default weights)': SOURCE_WEIGHTS, 'order model alone': dict(order=1.0)}
    hits = {w: Counter() for w in ways}
    for u, t, rv in zip(cases.user_id.astype(str), cases.target.astype(str), request_vectors(mem, cases)):
        _, ranks = mem.source_ranks(u, None, rv); keep = mem._unseen(u, items)
        for w, wt in ways.items():
            p = place_of(stage_order(ranks, wt, keep), col.get(t, -1))
            for n in a.n: hits[w][n] += p is not None and p < n
    rows = [dict(stage=w, **{f'recall@{n}': round(h[n] / len(cases), 4) for n in a.n}) for w, h in hits.items()]
    table = pd.DataFrame(rows).to_markdown(index=False)
    head = (f"Data: {bench.name}, {len(cases)} test cases, catalogue {len(items)} items (seen ones left out), requests "
            f"{bench.manifest.get('instructions')}; fitted weights {stage.weights}; {time.perf_counter() - t0:.0f} s.\n\n")
    if a.out: Path(a.out).write_text(head + table + '\n')
    print(head + table)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--run', required=True, help='an `atomrec run atomrec` folder that kept its test memory (memory-test)')
    ap.add_argument('--bench', required=True, help='the prepared benchmark that run ranked')
    ap.add_argument('--n', type=int, nargs='+', default=[100, 200, 300, 500], help='shortlist sizes N whose recall is reported')
    ap.add_argument('--recent', type=int, default=5, help="the user's latest notes the transition and item-kNN sources start from")
    ap.add_argument('--users', type=int, default=0, help='the first this many test cases only (0: all)')
    ap.add_argument('--out', help='markdown file to write the table to (default: print it)')
    ap.add_argument('--stage', action='store_true', help="measure the stage a full-ranking run fitted (RUN/stage.json) instead of each source")
    a = ap.parse_args()
    if a.stage: return stage_main(a)
    from atomrec.eval.stage import request_vectors
    t0 = time.perf_counter()
    mem = AtomRec.open(Path(a.run)/'memory-test', read_only=True, progress=False)
    bench = Bench(a.bench); cases = bench.cases('test')
    if a.users: cases = cases.head(a.users)
    items = sorted(bench.items.item_id.astype(str)); col = {c: k for k, c in enumerate(items)}
    big, hits = max(a.n), {}
    for u, t, rv in zip(cases.user_id.astype(str), cases.target.astype(str), request_vectors(mem, cases)):
        seen = np.zeros(len(items), bool); seen[[col[i] for i in mem._user_items.get(u, ()) if i in col]] = True
        lists = {s: [items[j] for j in ranked(v, seen, big)] for s, v in mem.source_scores(u, items, rv, a.recent).items()}
        lists['rrf'] = merge_rrf({s: L for s, L in lists.items() if s != 'pop'}, big)
        lists['propose'] = mem.propose(u, n=big, rvec=rv).items   # the library's shortlist (`AtomRec.propose`, its default weights)
        lists['quota'] = merge_quota(lists, big, tuple(s for s in ('order', 'request', 'walk', 'transition', 'itemcf', 'pop') if s in lists))
        for s, L in lists.items():
            r = L.index(t) if t in L else big
            for n in a.n: hits.setdefault(s, Counter())[n] += r < n
    rows = [dict(source=s, **{f'recall@{n}': round(h[n] / len(cases), 4) for n in a.n}) for s, h in hits.items()]
    table = pd.DataFrame(rows).to_markdown(index=False)
    head = (f"Data: {bench.name}, {len(cases)} test cases, catalogue {len(items)} items (seen ones left out), requests "
            f"{bench.manifest.get('instructions')}; memory: {a.run}/memory-test; {time.perf_counter() - t0:.0f} s.\n\n")
    if a.out: Path(a.out).write_text(head + table + '\n')
    print(head + table)

if __name__ == '__main__': main()
