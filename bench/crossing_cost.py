"""What the crossing rule costs a recommendation, measured in one process: a run's memory opened, its test cases recommended
one by one, the time inside the rule's read-path calls (`Crossing.subgraph`, `Crossing.evidence`) summed against the time of the
recommendations themselves.

    python bench/crossing_cost.py --run RUN [RUN ...] --bench BENCH [BENCH ...] --cases 300

Each RUN is a finished `atomrec run atomrec` folder (its memory-test/ and ranker), BENCH its benchmark. On data without review
text (ml-100k) no evidence holds a private word and the rule returns what it is given; on beauty (real reviews) it filters."""
import argparse, json, time
from pathlib import Path
import numpy as np, pandas as pd

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--run', nargs='+', required=True, help='finished AtomRec run folders (memory-test/ and ranker.txt)')
    ap.add_argument('--bench', nargs='+', required=True, help='their benchmark folders, in the same order')
    ap.add_argument('--cases', type=int, default=300, help='test cases recommended per run (the first ones)')
    ap.add_argument('--out', default=None, help='markdown table to write')
    a = ap.parse_args()
    from atomrec.memory import AtomRec
    from atomrec.crossing import Crossing
    from atomrec.ranking import LearnedRecAgent
    from atomrec.eval.benchmark import Bench
    spent = {'subgraph': 0.0, 'evidence': 0.0}
    for name in spent:   # the rule's read-path calls, timed
        f = getattr(Crossing, name)
        def timed(self, *args, _f=f, _n=name, **kw):
            t = time.perf_counter(); out = _f(self, *args, **kw); spent[_n] += time.perf_counter() - t; return out
        setattr(Crossing, name, timed)
    rows = []
    for run, bench in zip(a.run, a.bench):
        b = Bench(bench); run = Path(run)
        mem = AtomRec.open(run/'memory-test', items=b.items, rec_agent=LearnedRecAgent.load(run/'ranker.txt'), read_only=True, progress=False)
        cases = b.cases('test').head(a.cases)
        c0 = cases.iloc[0]; mem.recommend(str(c0.user_id), list(c0.candidates), c0.get('instruction'))   # warm: the read path's tables
        for k in spent: spent[k] = 0.0
        lat = []
        for c in cases.itertuples():
            t = time.perf_counter(); mem.recommend(str(c.user_id), [str(x) for x in c.candidates], getattr(c, 'instruction', None)); lat.append(time.perf_counter() - t)
        rule = spent['subgraph'] + spent['evidence']
        rows.append({'run': run.name, 'data': b.manifest.get('source', {}).get('name'), 'private words counted': len(mem.crossing.users),
                     'cases': len(lat), 'recommend mean ms': round(1000 * np.mean(lat), 2), 'rule ms per recommendation': round(1000 * rule / len(lat), 4),
                     'rule share': f"{rule / sum(lat):.4%}"})
        print(json.dumps(rows[-1]), flush=True)
        mem.close()
    text = pd.DataFrame(rows).to_markdown(index=False)
    if a.out: Path(a.out).write_text(text + '\n')
    print(text)

if __name__ == '__main__': main()
