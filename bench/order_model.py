"""The order model judged without a memory first (the prototype behind `atomrec.order`): SASRec's score of each candidate as one
more signal beside `learned-blend`'s raw interaction signals (as `bench/order_signals.py` judges hand-made order signals), the
LightGBM ranker refitted on the fitting cases (the validation cut and `Bench.layer_cases` 2 to L) over several seeds, then the
test N@5 overall and on the long-history slice, against a finished SASRec run (paired bootstrap).

Two SASRec models per budget, trained with the SASRec baseline's trainer (`SASRecMethod`): the *fit model* on every user's
interactions before cut L + 1, early-stopped on the layer-L+1 cases (so no fitting case's target is in its data or its
selection), which scores every fitting case; the *test model* on `bench.train('valid')`, early-stopped on the validation cases
(the SASRec baseline's data and selection), which scores the test cases. `one model` scores the test cases with the fit model too.

    python bench/order_model.py --bench BENCH --sasrec RUN --matrices M.npz [--epochs 30] [--lr 0.003] [--seeds 5] [--out FILE.md]

BENCH: `atomrec prepare ml-100k --out BENCH --instructions none`; RUN: `atomrec run sasrec --bench BENCH --out RUN`;
M.npz: the matrices `bench/order_signals.py --matrices M.npz` keeps (the raw and hand-made order signals of the same cases)."""
import argparse, time
from pathlib import Path
import numpy as np, pandas as pd, torch
from atomrec.eval.benchmark import Bench
from atomrec.eval.runner import tuning_cases
from atomrec.baselines.trained import SASRecMethod
from atomrec.eval.metrics import evaluate
from order_signals import RAW, fit_and_score

def sasrec_scores(bench:Bench, epochs:int, lr:float, cache:Path)->dict:
    "The fit model's scores of the fitting cases (in `order_signals.matrices`' row order) and of the test cases, and the test model's of the test cases."
    if cache.exists(): return dict(np.load(cache))
    vc = tuning_cases(bench, 1000); vusers = sorted(vc.user_id); L = bench.layers_within(8, 0.9)
    m = SASRecMethod(epochs=epochs, lr=lr); torch.set_num_threads(1); m._maps(bench)
    train = bench.before_layer(L + 1).sort_values(['user_id', 'pos'])
    m.train_u, m.train_i = train.user_id.astype(str).map(m.uidx).to_numpy(), train.item_id.astype(str).map(m.iidx).to_numpy()
    m._prepare(); m._train(bench.layer_cases(L + 1, vusers))
    with torch.no_grad():
        S = [m._scores(vc if k == 1 else bench.layer_cases(k, vusers)) for k in [1] + list(range(L, 1, -1))]
        one = m._scores(bench.cases('test'))
    t = SASRecMethod(epochs=epochs, lr=lr).fit(bench, 'test')
    with torch.no_grad(): two = t._scores(bench.cases('test'))
    out = dict(S=np.concatenate(S), one=one, two=two, fit_epoch=m.stats['best_epoch'], test_epoch=t.stats['best_epoch'],
               fit_seconds=m.stats['train_seconds'], test_seconds=t.stats['train_seconds'])
    np.savez(cache, **out); return out

def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--bench', required=True, help='benchmark folder (prepared without requests)')
    p.add_argument('--sasrec', required=True, help='a finished SASRec run on the same benchmark (its predictions), for the paired comparison')
    p.add_argument('--matrices', required=True, help="the npz file `bench/order_signals.py --matrices` wrote for this benchmark")
    p.add_argument('--epochs', type=int, default=30, help='most epochs of both SASRec models')
    p.add_argument('--lr', type=float, default=3e-3, help='their Adam learning rate')
    p.add_argument('--seeds', type=int, default=5, help='LightGBM fits per signal set, seeds 0..N-1')
    p.add_argument('--min-history', type=int, default=150, help='the long-history slice: users with at least this many interactions before the target')
    p.add_argument('--out', help='markdown file to write the table to')
    a = p.parse_args(); t0 = time.time()
    bench = Bench(a.bench); tc = bench.cases('test')
    z = np.load(a.matrices); R, X, tidx, Rt, Xt, names = z['R'], z['X'], z['tidx'], z['Rt'], z['Xt'], list(z['names'])
    q = sasrec_scores(bench, a.epochs, a.lr, Path(a.matrices).with_suffix(f'.sasrec-{a.epochs}-{a.lr:g}.npz'))
    if q['S'].shape != R.shape[:2]: raise SystemExit(f"{a.matrices} holds {R.shape[0]} fitting cases; the SASRec scores {q['S'].shape[0]}: not the same benchmark")
    long = set(tc.user_id[tc.history.apply(len).to_numpy() >= a.min_history].astype(str))
    sas = evaluate(pd.read_parquet(next(Path(a.sasrec).glob('predictions*.parquet'))), tc)[1]
    col = lambda A: A[:, :, None]
    sets = [('raw signals', [], [], []), ('+ sequence, one model', [col(q['S'])], [col(q['one'])], ['sequence']),
            ('+ sequence, two models', [col(q['S'])], [col(q['two'])], ['sequence']),
            ('+ sequence, two models, + the eleven order signals', [col(q['S']), X], [col(q['two']), Xt], ['sequence'] + names)]
    rows = []
    for tag, fx, tx, nm in sets:
        for seed in range(a.seeds):
            r = fit_and_score(np.concatenate([R] + fx, 2), tidx, np.concatenate([Rt] + tx, 2), RAW + tuple(nm), seed, tc, long, sas)
            rows.append(dict(signals=tag, **{k: r[k] for k in ('test', 'long', 'vs_sasrec', 'p')})); print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    agg = {c: (lambda v, c=c: f"{v.mean():+.4f} [{v.min():+.4f}, {v.max():+.4f}]" if c == 'vs_sasrec' else f"{v.mean():.4f} [{v.min():.4f}, {v.max():.4f}]") for c in ('test', 'long', 'vs_sasrec')}
    agg['p'] = lambda v: f"{v.mean():.3f} (max {v.max():.3f})"
    tab = df.groupby('signals', sort=False).agg(agg).reset_index().to_markdown(index=False)
    text = (f"## SASRec {a.epochs} epochs at lr {a.lr:g}: {bench.describe()}\n\nFit model: best epoch {int(q['fit_epoch'])}, {float(q['fit_seconds']):.0f} s; "
            f"test model: best epoch {int(q['test_epoch'])}, {float(q['test_seconds']):.0f} s (one core). Fitting cases {len(R)}; test users {len(tc)}, "
            f"{len(long)} with at least {a.min_history} interactions before the target (`long`); {a.seeds} LightGBM fits each (mean [min, max]). {time.time() - t0:.0f} s.\n\n{tab}\n")
    print(text)
    if a.out: Path(a.out).write_text(text)

if __name__ == '__main__': main()
