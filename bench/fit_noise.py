"""How much of a LightGBM rank agent's score is its fit's own noise: refits on a finished run's validation features.

    python bench/fit_noise.py RUN [RUN ...] [--folds 5] [--out bench/results/fit_noise.md]

RUN: a finished AtomRec run with `ranker-fit.npz` (the validation features its ranker was
fitted on). The run's validation cases are split into `--folds` outer folds; `fit_ranker` is fitted on the other folds
and scored on the held-out fold, so every case is scored once by a ranker that never saw it. It is refitted under changes that should not matter:
- `seed 1`: another seed for the inner holdout split and LightGBM's bagging;
- `last bits x (1 + 1e-15 noise)`: what two builds of the same memory differ by (another summation order);
- `facets x (1 + 1e-4 noise)`: the size of the 4th-decimal nondeterminism seen in the `facets` signal between builds;
- `candidates shuffled`: each case's candidates in another order (the same cases, the same values).
Each under three fits: as runs were fitted before this bench (rounds by early stopping on one held-out fifth,
`rounds_from='holdout'`; within-case rank features from the stored values, ties ordered by candidate position), the same
with rounds from the mean curve of 5 folds (`rounds_from='cv'`), and today's default (5-fold rounds; `relative_features`
rounds values to 9 decimals and gives tied candidates their average rank). N@5 is the expectation over a uniformly random order of tied scores. The spread of N@5 across these refits is the noise any diff between two runs of
the same method has to clear.
"""
import sys, argparse, datetime, time
from pathlib import Path
import numpy as np, pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from atomrec.ranking import fit_ranker, relative_features, relative_names
from atomrec.core import read_json

def stored_order_relative(feats:np.ndarray)->np.ndarray:
    "`relative_features` before this bench: values as stored, ties ranked by candidate position (stable argsort)."
    F = np.asarray(feats, np.float64); one = F.ndim == 2
    if one: F = F[None]
    r = F.argsort(1, kind='stable').argsort(1, kind='stable') / max(F.shape[1] - 1, 1)
    out = np.concatenate([F, F - F.max(1, keepdims=True), r], 2)
    return out[0] if one else out

def expected_ndcg5(scores:np.ndarray, target:np.ndarray)->np.ndarray:
    "Per case: NDCG@5 of the target, averaged over a uniformly random order of the candidates tied with it."
    ts = scores[np.arange(len(target)), target][:, None]
    above, tied = (scores > ts).sum(1), (scores == ts).sum(1) - 1
    gain = np.where(np.arange(scores.shape[1]) < 5, 1 / np.log2(np.arange(scores.shape[1]) + 2), 0.0)
    return np.array([gain[a:a + t + 1].mean() for a, t in zip(above, tied)])

def variants(F:np.ndarray, T:np.ndarray, names:tuple, seed:int=7):
    "(label, features, targets, fit seed) for the refits: as fitted, another seed, last bits, the facets wobble, candidates shuffled."
    rng = np.random.default_rng(seed)
    Fp = F.copy()
    if 'facets' in names: Fp[:, :, names.index('facets')] *= 1 + rng.normal(0, 1e-4, F.shape[:2])
    perm = np.array([rng.permutation(F.shape[1]) for _ in range(len(F))])
    Fs, Ts = np.take_along_axis(F, perm[:, :, None], 1), np.argsort(perm, 1)[np.arange(len(F)), T]
    Fb = F * (1 + rng.normal(0, 1e-15, F.shape))   # last bits, as another summation order leaves them
    return [('as fitted', F, T, 0), ('seed 1', F, T, 1), ('last bits x (1 + 1e-15 noise)', Fb, T, 0), ('facets x (1 + 1e-4 noise)', Fp, T, 0),
            ('candidates shuffled', Fs, Ts, 0)]

def refit_scores(F, T, names, fold_of:np.ndarray, seed:int, relative, rounds_from:str='holdout')->tuple[float, list]:
    "Outer cross-fitting: each fold scored by `fit_ranker` fitted on the others; mean expected N@5 and the rounds per fold."
    R = relative(F)   # the relative columns, computed once; `fit_ranker` takes them as they are (relative=False)
    n5 = np.zeros(len(F)); rounds = []
    for k in np.unique(fold_of):
        te, tr = fold_of == k, fold_of != k
        booster, info = fit_ranker(R[tr], T[tr], relative_names(names), relative=False, seed=seed, params={'num_threads': 1}, rounds_from=rounds_from)
        s = booster.predict(R[te].reshape(-1, R.shape[2])).reshape(int(te.sum()), -1)
        n5[te] = expected_ndcg5(s, T[te]); rounds.append(info['rounds'])
    return float(n5.mean()), rounds

FITS = [('before: holdout rounds, stored values', stored_order_relative, 'holdout'), ('5-fold rounds, stored values', stored_order_relative, 'cv'),
        ('default: 5-fold rounds, rounded values, average tie ranks', relative_features, 'cv')]

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('runs', nargs='+', help='finished run folders holding ranker-fit.npz')
    ap.add_argument('--folds', type=int, default=5, help='outer folds of the validation cases (each scored by a ranker fitted on the others)')
    ap.add_argument('--out', default=str(ROOT/'bench/results/fit_noise.md'), help='where the markdown report goes')
    a = ap.parse_args()
    rows, t0 = [], time.time()
    for run in map(Path, a.runs):
        if not (run/'ranker-fit.npz').exists(): raise SystemExit(f"{run}: no ranker-fit.npz (a finished run with a LightGBM ranker writes it)")
        z = np.load(run/'ranker-fit.npz'); F, T, names = z['features'], z['target_index'], tuple(str(x) for x in z['names'])
        j = read_json(run/'metrics.json')
        fold_of = np.empty(len(F), int); fold_of[np.random.default_rng(123).permutation(len(F))] = np.arange(len(F)) % a.folds
        for fit, rel, rf in FITS:
            for label, FF, TT, seed in variants(F, T, names):
                n5, rounds = refit_scores(FF, TT, names, fold_of, seed, rel, rf)
                rows.append(dict(run=f"{j['data']}-{j['instructions']}/{j['method']}", fit=fit, refit=label, cases=len(F), n5=round(n5, 4),
                                 rounds=' / '.join(map(str, rounds))))
                print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    spread = df.groupby(['run', 'fit'], sort=False).n5.agg(lambda x: round(x.max() - x.min(), 4)).rename('spread of N@5').reset_index()
    txt = (f"# The rank agent's fit noise\n\n{datetime.date.today()}; `python bench/fit_noise.py {' '.join(a.runs)}`; "
           f"{a.folds} outer folds of each run's validation cases, each scored by `fit_ranker` fitted on the others; N@5 expected over "
           f"random tie order; {time.time() - t0:.0f} s.\n\n" + df.to_markdown(index=False) + '\n\n' + spread.to_markdown(index=False) + '\n')
    Path(a.out).write_text(txt); print(txt)

if __name__ == '__main__': main()
