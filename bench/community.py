"""Everyone in memory against the evaluated users only: AtomRec runs with `community=all` (the default) next to runs
with `--opt community=evaluated` on the same benchmarks, with paired-bootstrap p-values, wall times and memory sizes.

Run: `.venv/bin/python bench/community.py ALL_RUNS EVALUATED_RUNS`
ALL_RUNS: a folder of runs as `atomrec experiments` writes them (`<data>-<requests>/atomrec/`); EVALUATED_RUNS: a folder
with one AtomRec run per `<data>-<requests>` made with `atomrec run atomrec --bench ... --opt community=evaluated`.
Every figure is read from the runs' metrics.json and per_user.parquet; the report goes to stdout and to
bench/results/community.md.
"""
import sys, json, argparse, datetime
from pathlib import Path
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from atomrec.eval.metrics import paired_bootstrap

def run_folder(base:Path, name:str) -> Path:
    "The AtomRec run of benchmark `name` under `base` (an experiments folder or a flat one)."
    for p in (base/name/'atomrec', base/name):
        if (p/'metrics.json').exists(): return p
    raise SystemExit(f"no AtomRec run for {name} under {base}: expected {base/name/'atomrec'}/metrics.json or {base/name}/metrics.json")

def test_memory(m:dict) -> dict:
    "Notes, links and revisions of the run's test memory."
    s = m.get('stats', {})
    return s.get('memories', {}).get('test', s)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('all_runs', help="folder of runs with every user's history in memory (community=all)")
    ap.add_argument('evaluated_runs', help='folder of runs with the evaluated users only (community=evaluated)')
    ap.add_argument('--metric', default='ndcg@5', help='metric compared (a column of per_user.parquet)')
    a = ap.parse_args()
    names = sorted(p.name for p in Path(a.evaluated_runs).iterdir() if p.is_dir() and ((p/'metrics.json').exists() or (p/'atomrec'/'metrics.json').exists()))
    if not names: raise SystemExit(f"no runs under {a.evaluated_runs}")
    rows, notes = [], []
    for name in names:
        fa, fe = run_folder(Path(a.all_runs), name), run_folder(Path(a.evaluated_runs), name)
        ma, me = (json.loads((f/'metrics.json').read_text()) for f in (fa, fe))
        for m, f in ((ma, fa), (me, fe)):
            if m['options'].get('community') not in ('all', 'evaluated'): raise SystemExit(f"{f}/metrics.json does not say which community its memory holds")
        if (ma['data'], ma['instructions'], ma['users'], ma['seed']) != (me['data'], me['instructions'], me['users'], me['seed']):
            raise SystemExit(f"{fa} and {fe} are not the same benchmark")
        b = paired_bootstrap(pd.read_parquet(fa/'per_user.parquet'), pd.read_parquet(fe/'per_user.parquet'), a.metric)
        ta, te = test_memory(ma), test_memory(me)
        rows.append({'data': ma['data'], 'requests': ma['instructions'], 'users': ma['users'],
                     f'{a.metric} evaluated only': round(me['metrics'][a.metric], 4), f'{a.metric} everyone': round(ma['metrics'][a.metric], 4),
                     'diff': round(b['diff'], 4), 'p': round(b['p'], 3),
                     'fit s (eval. / all)': f"{me['fit_seconds']:.0f} / {ma['fit_seconds']:.0f}",
                     'rank s (eval. / all)': f"{me['rank_seconds']:.0f} / {ma['rank_seconds']:.0f}",
                     'test memory notes (eval. / all)': f"{te['notes']:,} / {ta['notes']:,}",
                     'links (eval. / all)': f"{te['links']:,} / {ta['links']:,}",
                     'revisions (eval. / all)': f"{te['revisions']:,} / {ta['revisions']:,}",
                     'test leaks': f"{te.get('leaks', '?')} / {ta.get('leaks', '?')}"})
        notes.append(f"- {name}: backend {ma['backend']}; seed {ma['seed']}; tuned on {ma['options'].get('tuned', {}).get('users', '?')} validation users "
                     f"(validation {a.metric} {me['options'].get('tuned', {}).get('ndcg5_valid', float('nan')):.4f} evaluated-only, "
                     f"{ma['options'].get('tuned', {}).get('ndcg5_valid', float('nan')):.4f} everyone)")
    tab = pd.DataFrame(rows)
    txt = '\n'.join([f"# AtomRec memory: everyone against the evaluated users only ({datetime.date.today().isoformat()})", '',
                     f"Rule agents; 1,000 test users per data set (ml-100k has 943); paired bootstrap over users (2,000 resamples) of "
                     f"{a.metric}, everyone minus evaluated-only. Requests: `intent` (the default) or `none`; their leak audits are in each "
                     f"benchmark's manifest and in `atomrec report`.", '', tab.to_markdown(index=False), '', *notes, ''])
    print(txt)
    out = ROOT/'bench'/'results'; out.mkdir(parents=True, exist_ok=True)
    (out/'community.md').write_text(txt)

if __name__ == '__main__': main()
