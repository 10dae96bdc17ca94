"""A recommendation from the whole catalogue (no candidates: the memory proposes a shortlist, the rank agent ranks it,
the first k come back with their evidence) through the service's own path (`Service.recommend`: the read turn, the
ranking, what a user key may be shown), beside the same users' handed 10-candidate recommendations measured in the
same run, case by case in turn, on a finished run's memory with its LightGBM rank agent.

    python bench/catalogue_latency.py --run RUN --bench BENCH --cases 300 --out bench/results/catalogue_latency-DATA.md

RUN is a finished `atomrec run atomrec` (its memory-test/ and ranker.txt, served from a copy); each case's user asks with
a key scoped to them (the shortlist then keeps to what k other users back), and once more with an admin key. With
`--depths 50,100,300` it first measures, for each number of items ranked, the test target's N@10 and H@10 over the whole
catalogue (admin key: the memory's own shortlist), and the time per recommendation."""
import argparse, json, shutil, tempfile, time
from pathlib import Path
import numpy as np

def pct(ms, q): return float(np.percentile(ms, q))

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--run', required=True, help='a finished `atomrec run atomrec` folder (memory-test/ and ranker.txt)')
    ap.add_argument('--bench', required=True, help='its benchmark folder')
    ap.add_argument('--cases', type=int, default=300, help='test cases asked (the first ones); each is asked in every mode')
    ap.add_argument('--k', type=int, default=10, help='items a catalogue recommendation returns')
    ap.add_argument('--shortlist', type=int, default=None, help="items the memory proposes and ranks (default: the library's RANKED)")
    ap.add_argument('--depths', default='', help='comma-separated numbers of items ranked to compare by N@10 of the test target first (e.g. 50,100,300; default: none)')
    ap.add_argument('--stage', action='store_true', help="serve with the run's fitted catalogue stage (its stage.json, ranker-catalogue.txt, order/catalogue), as `atomrec serve --stage RUN` does")
    ap.add_argument('--others', type=int, default=0, help='other jobs sharing the cores while this runs (written in the report)')
    ap.add_argument('--out', default=None, help='markdown report to write (default: print only)')
    a = ap.parse_args()
    from atomrec.eval.benchmark import Bench
    from atomrec.serve.app import Service, open_memory, RecommendIn, ADMIN
    from atomrec.serve.keys import Key
    from atomrec import candidates, retrieval
    if a.shortlist: retrieval.RANKED = a.shortlist   # what `recommend` ranks without candidates
    b, run = Bench(a.bench), Path(a.run)
    tmp = Path(tempfile.mkdtemp())/'memory'; shutil.copytree(run/'memory-test', tmp, ignore=shutil.ignore_patterns('.lock'))
    cases = b.cases('test').head(a.cases)
    svc = Service(open_memory(tmp, ranker=run/'ranker.txt', stage=run if a.stage else None), None, writer='thread')
    key = lambda u: Key(str(u), frozenset({str(u)}))
    req = lambda c: getattr(c, 'instruction', None) or None
    modes = {'10 candidates, user key': lambda c: svc.recommend(key(c.user_id), RecommendIn(user=str(c.user_id), candidates=[str(x) for x in c.candidates], request=req(c))),
             f'catalogue, k={a.k}, user key': lambda c: svc.recommend(key(c.user_id), RecommendIn(user=str(c.user_id), k=a.k, request=req(c))),
             f'catalogue, k={a.k}, admin key': lambda c: svc.recommend(ADMIN, RecommendIn(user=str(c.user_id), k=a.k, request=req(c)))}
    quality = []
    for n, who in [(int(x), w) for x in a.depths.split(',') if x for w in ('admin', 'user')]:
        nd, hit, t = [], [], time.perf_counter()
        for c in cases.itertuples():
            r = svc.memory.recommend(str(c.user_id), instruction=req(c), k=10, shortlist=n, shown_to=None if who == 'admin' else {str(c.user_id)})
            at = r.ranking.index(str(c.target)) if str(c.target) in r.ranking else None
            hit.append(at is not None); nd.append(0.0 if at is None else 1 / np.log2(at + 2))
        quality.append((n, who, float(np.mean(nd)), float(np.mean(hit)), (time.perf_counter() - t) / len(cases) * 1000))
        print(quality[-1], flush=True)
    first = next(cases.itertuples())
    for f in modes.values(): f(first)   # warm: the read path's tables, the ranker, the catalogue
    lat = {m: [] for m in modes}
    for c in cases.itertuples():
        for m, f in modes.items():
            t = time.perf_counter(); r = f(c); lat[m].append((time.perf_counter() - t) * 1000)
            assert len(r['ranking']) == (len(c.candidates) if 'candidates' in m else a.k)
    mem = svc.memory; n_items, n_notes = len(mem.catalogue()), len(mem.store)
    svc.close(); shutil.rmtree(tmp.parent)
    ref = np.median(lat[next(iter(lat))])
    rows = [(m, len(v), pct(v, 50), pct(v, 99), pct(v, 50) / ref) for m, v in lat.items()]
    ranker = "the run's fitted catalogue stage (`--stage`: its weights, order model and rank agent)" if a.stage else "the run's LightGBM ranker (fitted on ten candidates) and the library's fusion"
    md = [f"# A recommendation from the whole catalogue: {b.name} ({n_items} items, {n_notes} notes; requests: {b.manifest['instructions']}), rule agents, {ranker}\n",
          f"Each of the first {len(cases)} test cases asked in every mode in turn, through `Service.recommend` in one process (no HTTP); "
          f"{retrieval.RANKED} items proposed and ranked; the reference is the handed 10-candidate recommendation of the same cases in the same run.",
          f"Machine: 2 cores, shared with {a.others} other jobs while this ran.",
          f"Command: `python bench/catalogue_latency.py --run RUN --bench BENCH --cases {a.cases}" + (f" --k {a.k}" if a.k != 10 else '') + (f" --shortlist {a.shortlist}" if a.shortlist else '') + (f" --depths {a.depths}" if a.depths else '') + (" --stage" if a.stage else '') + "`\n",
          '| mode | calls | p50 ms | p99 ms | p50 vs 10 candidates |', '|---|---|---|---|---|'] + [f'| {m} | {n} | {p50:.1f} | {p99:.1f} | {r:.2f}x |' for m, n, p50, p99, r in rows]
    if quality:
        md += ['', f"Items ranked against quality: N@10 and H@10 of each case's held-out target over the whole catalogue ({ranker}), the first {len(cases)} test cases, and the time per recommendation (library call, no service); for an admin key (the memory's own shortlist) and for the user's own key (the shortlist keeps to what {mem.crossing.k} other users back).\n",
               '| items ranked | key | N@10 | H@10 | ms per recommendation |', '|---|---|---|---|---|'] + [f'| {n} | {who} | {nd:.4f} | {h:.4f} | {ms:.0f} |' for n, who, nd, h, ms in quality]
    if a.out: Path(a.out).write_text('\n'.join(md) + '\n')
    print('\n'.join(md)); print(json.dumps({m: dict(p50=round(p50, 2), p99=round(p99, 2)) for m, _, p50, p99, _ in rows}))

if __name__ == '__main__': main()
