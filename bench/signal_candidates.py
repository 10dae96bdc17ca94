"""Candidate rank-agent signals, judged on validation only: each computed from a finished AtomRec run's pre-target memory for
the validation cases its rank agent was fitted on, added to (or put in place of) the run's signals, the LightGBM rank agent
refitted, and its cross-validated holdout NDCG@5 compared with the run's own signals. No test case is read.

    python bench/signal_candidates.py --run RUN_DIR --bench BENCH_DIR [--out bench/results/signal_candidates-ml-100k.md]

RUN_DIR is a finished shared-build `atomrec run atomrec` (memory-before.json, memory-test, ranker-fit.npz). The memory is
copied and rolled back to its pre-target checkpoint, the state the validation signals were computed from."""
import argparse, math, shutil, tempfile
from pathlib import Path
import numpy as np, pandas as pd
from atomrec.memory import AtomRec
from atomrec.ranking import fit_ranker, FEATURES
from atomrec.eval.benchmark import Bench
from atomrec.eval.runner import tuning_cases

DAY = 86400.0

def unit(v): n = np.linalg.norm(v); return v / n if n else v

def candidates(mem:AtomRec, times:dict, user:str, cands:list)->dict:
    "Each candidate signal for one case: name -> (candidates,) values, from the memory only (the user's notes, who has notes on what, when)."
    own = mem.store.notes_of(user, kind='user')
    items, t = [n.item_id for n in own][::-1], (own[-1].timestamp if own else 0.0)   # most recent first; the user's latest note's time
    owners = mem._item_owners
    def cf(hs, w=None):   # `itemcf` over the items `hs`, optionally weighted
        return np.array([sum((1.0 if w is None else w[k]) * len(owners[h] & owners[c]) / math.sqrt(len(owners[h]) * len(owners[c]))
                             for k, h in enumerate(hs) if owners.get(h)) if owners.get(c) else 0.0 for c in cands])
    V = mem.store.vectors([n.id for n in own]); C = mem.store.vectors([mem.item_note_id(c) for c in cands])
    before = lambda c, w: np.searchsorted(times.get(c, np.zeros(0)), t, 'right') - np.searchsorted(times.get(c, np.zeros(0)), t - w * DAY)
    recent, older = V[-5:], V[-50:-5]
    return {'itemcf over the 20 latest notes': cf(list(dict.fromkeys(items[:20]))),
            'itemcf over the 20 latest, weighted 0.9^k': cf(items[:20], 0.9 ** np.arange(20)),
            'itemcf over the 5 latest, weighted 0.8^k': cf(items[:5], 0.8 ** np.arange(5)),
            **{f"others' notes on it in the {w} day{'s' if w > 1 else ''} before the user's latest (log1p)": np.log1p([before(c, w) for c in cands]) for w in (1, 7, 30)},
            "its age at the user's latest note (days; -1: none before)": np.array([(t - times[c][0]) / DAY if c in times and times[c][0] <= t else -1.0 for c in cands]),
            'trajectory: cosine to the direction from the older notes (6th-50th latest) to the 5 latest': C @ (unit(unit(recent.mean(0)) - unit(older.mean(0))) if len(older) else np.zeros(V.shape[1])),
            'best cosine to one of the 5 latest notes': np.sort(C @ recent.T, 1)[:, -1] if len(recent) else np.zeros(len(cands)),
            'profile from the 50 latest notes only': np.sort(C @ V[-50:].T, 1)[:, -3:].mean(1) if len(V) else np.zeros(len(cands))}

REPLACES = {'itemcf over the 5 latest, weighted 0.8^k': 'itemcf_recent', 'itemcf over the 20 latest notes': 'itemcf_recent',
            'profile from the 50 latest notes only': 'profile'}

def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--run', required=True, help='a finished shared-build AtomRec run folder (memory-before.json, memory-test, ranker-fit.npz)')
    p.add_argument('--bench', required=True, help="the run's benchmark folder")
    p.add_argument('--out', help='markdown file to write the table to (default: print it only)')
    a = p.parse_args()
    run, bench = Path(a.run), Bench(a.bench)
    with tempfile.TemporaryDirectory(prefix='signal-candidates-') as tmp:
        shutil.copytree(run/'memory-test', Path(tmp)/'m', ignore=shutil.ignore_patterns('.lock'))
        shutil.copyfile(run/'memory-before.json', Path(tmp)/'m'/'memory.json')   # the pre-target checkpoint: AtomRec.open undoes what came after
        mem = AtomRec.open(Path(tmp)/'m', progress=False); mem.transitions()
        z = np.load(run/'ranker-fit.npz'); F, tidx, users = z['features'], z['target_index'], [str(u) for u in z['users']]
        assert list(z['names']) == list(FEATURES), "the run was fitted on other signals: run it again with this code"
        vc = tuning_cases(bench, len(users)); vc = vc.set_index(vc.user_id.astype(str)).loc[users]
        times = {}
        for n in mem.store.get_many(mem.store.ids('user')): times.setdefault(n.item_id, []).append(n.timestamp)
        times = {k: np.sort(v) for k, v in times.items()}
        cols = [candidates(mem, times, u, [str(x) for x in c]) for u, c in zip(users, vc.candidates)]
        mem.close()
    names = list(cols[0]); X = np.stack([np.column_stack([c[n] for n in names]) for c in cols])
    holdout = lambda G, feats=FEATURES: fit_ranker(G, tidx, features=feats)[1]['holdout_ndcg5']
    base = holdout(F); rows = [('the run\'s signals', '', round(base, 4), 0.0)]
    for j, n in enumerate(names):
        v = holdout(np.concatenate([F, X[:, :, j:j + 1]], 2), FEATURES + (f'x{j}',)); rows.append((n, 'added', round(v, 4), round(v - base, 4)))
        if n in REPLACES:
            G = F.copy(); G[:, :, FEATURES.index(REPLACES[n])] = X[:, :, j]
            v = holdout(G); rows.append((n, f'in place of {REPLACES[n]}', round(v, 4), round(v - base, 4)))
    v = holdout(np.concatenate([F, X], 2), FEATURES + tuple(f'x{j}' for j in range(len(names)))); rows.append(('all of them', 'added', round(v, 4), round(v - base, 4)))
    table = pd.DataFrame(rows, columns=['signal', 'how', 'holdout NDCG@5', 'vs the run']).to_markdown(index=False)
    text = (f"# Candidate signals on validation: {bench.describe()}\n\nRun: `{run}` ({len(users)} validation cases, the rank agent's own fit; "
            f"holdout NDCG@5 = the mean curve of five folds at its best round, as `fit_ranker` picks it). Fit noise of a refit: 0.005–0.009 N@5 "
            f"(`bench/results/fit_noise.md`).\nCommand: `python bench/signal_candidates.py --run {a.run} --bench {a.bench}`\n\n{table}\n")
    print(text)
    if a.out: Path(a.out).write_text(text)

if __name__ == '__main__': main()
