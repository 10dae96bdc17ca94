"""Candidate order signals for long histories, judged without a memory first: each computed from the interactions held at
each fitting cut (the validation cut and `Bench.layer_cases` 2 to L, as the rank agents' eight-layer fit) and at the test cut,
added to `learned-blend`'s raw interaction signals (without the encoder's profile), LightGBM refitted on the fitting cases only,
then the test N@5 overall and on the long-history slice (and against a finished SASRec run's predictions, paired bootstrap,
if given). The memory reads the same facts (its user notes' owners, items and timestamps), so a signal that helps here is a
candidate for the rank agent's `FEATURES`, and its raw twin for `BLEND_FEATURES`.

    python bench/order_signals.py --bench BENCH [--sasrec RUN] [--min-history 150] [--out FILE.md]
                                  [--sets trans50_20 nhist trans50_20,relpos,nhist all] [--seeds 5] [--matrices FILE.npz]

With `--seeds N` every set is fitted N times (LightGBM's seed and the holdout share drawn from 0..N-1) and the table gives the
mean and range over the fits: one fit's N@5 moves by 0.005-0.009 between seeds on ml-100k.

BENCH: `atomrec prepare ml-100k --out BENCH --users 1000 --seed 0 --instructions none`."""
import argparse, time
from pathlib import Path
import numpy as np, pandas as pd, scipy.sparse as sp
from atomrec.eval.benchmark import Bench
from atomrec.eval.runner import tuning_cases
from atomrec.baselines.references import InteractionSignals, BLEND_FEATURES
from atomrec.ranking import fit_ranker, LearnedRecAgent
from atomrec.eval.metrics import evaluate, paired_bootstrap

DAY = 86400.0
RAW = BLEND_FEATURES[1:-1]   # learned-blend's raw interaction signals as `InteractionSignals.case` returns them (no request, no profile)

class OrderSignals:
    "Order signals over one frame of interactions: long-window transitions from the last m items (position-weighted), their conditional form, each item's mean place in its readers' traces, time gaps."
    def __init__(self, D:pd.DataFrame, items, windows=(10, 50)):
        self.ix = {x: k for k, x in enumerate(sorted(map(str, items)))}; n = len(self.ix)
        t = D.sort_values(['user_id', 'pos'], kind='stable')
        u = pd.factorize(t.user_id.astype(str))[0]; i = t.item_id.astype(str).map(self.ix).to_numpy(); ts = t.timestamp.to_numpy(float)
        ln = np.bincount(u); rel = t.groupby('user_id', sort=False).cumcount().to_numpy() / np.maximum(ln[u] - 1, 1)
        self.readers = np.bincount(i, minlength=n).astype(float)
        self.relpos = np.bincount(i, rel, minlength=n) / np.maximum(self.readers, 1)    # 0: where its readers start, 1: where they end
        self.tmean = np.bincount(i, ts, minlength=n) / np.maximum(self.readers, 1)
        self.T, self.out = {}, {}
        for W in windows:   # pairs (a at p, b at p + s) of one user, s <= W, weight 1/s
            r, c, v = [], [], []
            for s in range(1, W + 1):
                same = u[:-s] == u[s:]; r.append(i[:-s][same]); c.append(i[s:][same]); v.append(np.full(int(same.sum()), 1.0 / s))
            self.T[W] = sp.csr_matrix((np.concatenate(v), (np.concatenate(r), np.concatenate(c))), shape=(n, n)); self.out[W] = np.asarray(self.T[W].sum(1)).ravel()
        self.last_t = dict(zip(t.user_id.astype(str), ts))
        o = np.lexsort((ts, i)); self.bounds, self.times = np.searchsorted(i[o], np.arange(n + 1)), ts[o]
    def case(self, user, history, cands)->dict:
        h = [self.ix[str(x)] for x in history if str(x) in self.ix][::-1]; c = np.array([self.ix[str(x)] for x in cands]); cols = {}
        for W, T in self.T.items():
            for m, r in ((20, 0.9), (50, 0.95)):
                hh = h[:m]; w = r ** np.arange(len(hh))
                cols[f'trans{W}_{m}'] = np.log1p(T[hh][:, c].T @ w) if hh else np.zeros(len(c))
                if W == 10 and m == 20:
                    cond = np.asarray((T[hh][:, c].multiply(1 / np.maximum(self.out[W][hh], 1)[:, None])).T @ w).ravel() if hh else np.zeros(len(c))
                    cols['trans_cond'], cols['trans_lift'] = cond, cond / np.maximum(self.readers[c], 1) * 1000
        lt = self.last_t.get(str(user), 0.0); b, st = self.bounds, self.times
        cols['relpos'], cols['tgap'] = self.relpos[c], (lt - self.tmean[c]) / DAY
        cols['pop30'] = np.log1p([np.searchsorted(st[b[j]:b[j + 1]], lt) - np.searchsorted(st[b[j]:b[j + 1]], lt - 30 * DAY) for j in c])
        cols['nhist'] = np.full(len(c), np.log1p(len(history)))
        return cols

def matrices(bench:Bench):
    "Raw signals, order signals and target index of the fitting cases (cut by cut), and of the test cases."
    vc = tuning_cases(bench, 1000); vusers = sorted(vc.user_id); L = bench.layers_within(8, 0.9)
    R, X, T = [], [], []
    def add(cs, D):
        raw, order = InteractionSignals(D, bench.items.item_id), OrderSignals(D, bench.items.item_id)
        R.extend(raw.case([str(x) for x in h], [str(x) for x in c]) for h, c in zip(cs.history, cs.candidates))
        X.extend(order.case(u, h, c) for u, h, c in zip(cs.user_id, cs.history, cs.candidates))
        T.extend(list(c).index(t) for c, t in zip(cs.candidates, cs.target))
    for k in [1] + list(range(L, 1, -1)): add(vc if k == 1 else bench.layer_cases(k, vusers), bench.before_layer(k))
    n = len(R); add(bench.cases('test'), bench.train('test'))
    names = list(X[0]); Xa = np.stack([np.column_stack([x[s] for s in names]) for x in X])
    return np.stack(R[:n]), Xa[:n], np.array(T[:n]), np.stack(R[n:]), Xa[n:], names

def fit_and_score(F:np.ndarray, tidx:np.ndarray, G:np.ndarray, names:tuple, seed:int, tc:pd.DataFrame, long:set, sas:pd.DataFrame|None=None)->dict:
    "LightGBM fitted on the fitting cases' signals `F` (rounds from a holdout), then the test cases' (`G`) N@5 overall, on the `long` users, and against SASRec's per-user results if given."
    b, info = fit_ranker(F, tidx, features=names, seed=seed, rounds_from='holdout')
    ag = LearnedRecAgent(b)
    pu = evaluate(pd.DataFrame(dict(user_id=tc.user_id.astype(str), ranking=[list(map(str, c)) for c in tc.candidates], scores=[ag.score(g).tolist() for g in G])), tc)[1]
    lu = pu.user_id.astype(str).isin(long)
    out = dict(holdout=info['holdout_ndcg5'], test=pu['ndcg@5'].mean(), long=pu[lu]['ndcg@5'].mean())
    if sas is not None: bt = paired_bootstrap(pu, sas); out.update(vs_sasrec=bt['diff'], p=bt['p'])
    return out

def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--bench', required=True, help='benchmark folder (prepared without requests)')
    p.add_argument('--sasrec', help="a finished SASRec run on the same benchmark (its predictions), for the paired comparison")
    p.add_argument('--min-history', type=int, default=150, help='the long-history slice: users with at least this many interactions before the target')
    p.add_argument('--out', help='markdown file to write the table to')
    p.add_argument('--sets', nargs='+', help="signal sets to add to the raw ones, each comma-separated, or 'all' (default: each signal alone, then all)")
    p.add_argument('--seeds', type=int, default=1, help='fits per set, seeds 0..N-1 (the spread between them is the fit noise)')
    p.add_argument('--matrices', help='npz file keeping the signal matrices (computed once, read on later runs)')
    a = p.parse_args(); t0 = time.time()
    bench = Bench(a.bench); tc = bench.cases('test')
    if a.matrices and Path(a.matrices).exists():
        z = np.load(a.matrices); R, X, tidx, Rt, Xt, names = z['R'], z['X'], z['tidx'], z['Rt'], z['Xt'], list(z['names'])
    else:
        R, X, tidx, Rt, Xt, names = matrices(bench)
        if a.matrices: np.savez(a.matrices, R=R, X=X, tidx=tidx, Rt=Rt, Xt=Xt, names=np.array(names))
    long = set(tc.user_id[tc.history.apply(len).to_numpy() >= a.min_history].astype(str))
    sas = evaluate(pd.read_parquet(next(Path(a.sasrec).glob('predictions*.parquet'))), tc)[1] if a.sasrec else None
    sets = [('raw signals', [])] + ([(f'+ {x}', names if x == 'all' else x.split(',')) for x in a.sets] if a.sets else
                                    [(f'+ {n}', [n]) for n in names] + [('+ all', names)])
    rows = []
    for tag, sel in sets:
        cols = [names.index(s) for s in sel]
        for seed in range(a.seeds):
            r = fit_and_score(np.concatenate([R, X[:, :, cols]], 2), tidx, np.concatenate([Rt, Xt[:, :, cols]], 2), RAW + tuple(sel), seed, tc, long, sas)
            row = dict(signals=tag, seed=seed, **{k: round(v, 3 if k == 'p' else 4) for k, v in r.items()})
            rows.append(row); print(row, flush=True)
    df = pd.DataFrame(rows)
    if a.seeds > 1:   # mean over the fits, and the range
        agg = {c: (lambda v: f"{v.mean():.4f} [{v.min():.4f}, {v.max():.4f}]") for c in ('test', 'long', 'vs_sasrec') if c in df}
        agg.update({c: 'mean' for c in ('holdout', 'p') if c in df})
        df = df.groupby('signals', sort=False).agg(agg).reset_index().round(4)
    tab = df.to_markdown(index=False)
    text = (f"# Order signals without a memory: {bench.describe()}\n\nFitting cases: {len(R)} (validation and earlier cuts); test users: {len(tc)}, "
            f"{len(long)} with at least {a.min_history} interactions before the target (`long`). {time.time() - t0:.0f} s.\n\n{tab}\n")
    print(text)
    if a.out: Path(a.out).write_text(text)

if __name__ == '__main__': main()
