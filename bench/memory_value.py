"""Does the memory add to the raw signals? A validation-only check: LightGBM lambdarank (the rank agent's learner) fitted on
the features of AtomRec's rank agent, on those of `learned-blend` (no memory), and on both, scored by 5-fold NDCG@5 over the
validation cases AtomRec's ranker was fitted on (`ranker-fit.npz` in its run folder). No test case is read.

    python bench/memory_value.py RUN_DIR BENCH_DIR [--folds 5]
"""
import argparse, json
from pathlib import Path
import numpy as np
from atomrec.eval.benchmark import Bench, ndcg_by_scores
from atomrec.ranking import FEATURES, fit_ranker, relative_features
from atomrec.baselines.references import LearnedBlendMethod, InteractionSignals, BLEND_FEATURES

def cv(F, tidx, cases, names, folds, seed=0):
    "k-fold NDCG@5 (the harness's tie-breaking) of a LightGBM ranker over feature block F (cases, candidates, features)."
    perm = np.random.default_rng(seed).permutation(len(F)); out = []
    for k in range(folds):
        te = np.sort(perm[k::folds]); tr = np.setdiff1d(np.arange(len(F)), te)
        booster, _ = fit_ranker(F[tr], tidx[tr], features=tuple(names), seed=seed)
        out.append(ndcg_by_scores(cases.iloc[te], [booster.predict(relative_features(f), num_threads=2) for f in F[te]], seed, 5))
    return float(np.mean(out)), float(np.std(out))

if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('run', help="an AtomRec run folder with ranker-fit.npz (the validation features its ranker was fitted on)")
    p.add_argument('bench', help='the benchmark folder that run used')
    p.add_argument('--folds', type=int, default=5, help='cross-validation folds over the validation cases')
    a = p.parse_args()
    z = np.load(Path(a.run)/'ranker-fit.npz', allow_pickle=True)   # our own file; runs before the fix saved users as an object array
    A, tidx, users = z['features'], z['target_index'], [str(u) for u in z['users']]
    b = Bench(a.bench); vc = b.cases('valid').assign(user_id=lambda x: x.user_id.astype(str)).set_index('user_id').loc[users].reset_index()
    assert [list(c).index(t) for c, t in zip(vc.candidates, vc.target)] == tidx.tolist(), 'cases differ from the ranker fit'
    lb = LearnedBlendMethod(); lb.instr.fit(b, 'valid')
    B = np.stack(lb.features(vc, InteractionSignals(b.train('valid'), b.items.item_id)))
    res = {name: cv(F, tidx, vc, n, a.folds) for name, F, n in [
        ('memory signals (AtomRec)', A, FEATURES), ('raw signals (learned-blend)', B, BLEND_FEATURES),
        ('both', np.concatenate([A, B], 2), tuple(FEATURES) + tuple(f'raw_{f}' for f in BLEND_FEATURES))]}
    print(json.dumps(dict(run=a.run, cases=len(A), folds=a.folds, ndcg5={k: dict(mean=round(m, 4), sd=round(s, 4)) for k, (m, s) in res.items()}), indent=1))
