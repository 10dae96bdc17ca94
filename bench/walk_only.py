"""The walk signals alone: NDCG@5 of ranking each test case by RP³β over the raw interactions, walked for one, two and
three item-to-item steps (`learned-blend`'s `walk`, `walk2`, `walk3` columns, the formula AtomRec's walks apply to its
notes), beside item-kNN from the same signals, with the harness's
tie-breaking. A reference point for what the walk carries before any learner weighs it. No validation case is read.

    python bench/walk_only.py BENCH [BENCH ...]
"""
import argparse
from atomrec.eval.benchmark import Bench, ndcg_by_scores
from atomrec.baselines.references import InteractionSignals, BLEND_FEATURES

if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('benches', nargs='+', help='benchmark folders written by `atomrec prepare` (or `atomrec experiments`)')
    p.add_argument('--seed', type=int, default=0, help="tie-breaking seed (the harness's default: 0)")
    a = p.parse_args()
    raw = BLEND_FEATURES[1:-1]   # InteractionSignals.case's columns: everything but request and profile
    for bdir in a.benches:
        b = Bench(bdir); tc = b.cases('test')
        sig = InteractionSignals(b.train('test'), b.items.item_id)
        F = [sig.case([str(x) for x in h], [str(x) for x in c]) for h, c in zip(tc.history, tc.candidates)]
        n5 = {k: ndcg_by_scores(tc, [f[:, raw.index(k)] for f in F], a.seed, 5) for k in ('walk', 'walk2', 'walk3', 'itemknn')}
        print(f"{bdir}: users {len(tc)}, N@5 alone: " + ', '.join(f"{k} {v:.4f}" for k, v in n5.items()), flush=True)
