"""What the snapshot semantic costs, measured with rule agents: AtomRec with exact batches (the one-at-a-time memory, B = 1)
against the same method writing snapshot batches of B notes on purpose (`--opt snapshot=1 --opt batch=B`), on the same
benchmarks, every other option the same; N@5 and the paired bootstrap difference (B - exact) with its p.

    python bench/snapshot_cost.py --bench BENCH_DIR [BENCH_DIR ...] --batch 32 128 --out bench/results/snapshot_cost.md

Each BENCH_DIR is a prepared benchmark (e.g. `atomrec prepare ml-100k --out B --users 1000 --seed 0` and the same with
`--instructions none`); runs go to --runs (resumed if there). The honest stand-in for what B does to an LLM memory here:
an LLM memory's notes are written under the same semantic."""
import argparse, json, subprocess, sys
from pathlib import Path
import pandas as pd

def run(bench, out, opts, log):
    "`atomrec run atomrec` on `bench` into `out` with `opts` (skipped when finished); its per-user metrics."
    if not (Path(out)/'metrics.json').exists():
        args = [str(Path(sys.executable).parent/'atomrec'), 'run', 'atomrec', '--bench', str(bench), '--out', str(out), '--quiet']
        for o in opts: args += ['--opt', o]
        subprocess.run(args, check=True, stdout=open(log, 'a'), stderr=subprocess.STDOUT)
    return pd.read_parquet(Path(out)/'per_user.parquet')

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--bench', nargs='+', required=True, help='prepared benchmark folders')
    ap.add_argument('--batch', type=int, nargs='+', default=[32, 128], help='snapshot batch sizes B')
    ap.add_argument('--opt', action='append', default=[], help='an option every run gets (e.g. train_layers=1), key=value')
    ap.add_argument('--runs', default='runs/snapshot_cost', help='folder of the runs')
    ap.add_argument('--out', default='bench/results/snapshot_cost.md', help='markdown report')
    a = ap.parse_args()
    from atomrec.eval.metrics import paired_bootstrap
    rows = []
    Path(a.runs).mkdir(parents=True, exist_ok=True)
    for b in a.bench:
        m = json.loads((Path(b)/'manifest.json').read_text())
        name = f"{Path(b).name}"
        exact = run(b, Path(a.runs)/name/'exact', a.opt, Path(a.runs)/'log.txt')
        rows.append(dict(bench=name, data=m.get('data'), requests=m.get('instructions'), users=exact.user_id.nunique(), B='1 (exact)', **{'N@5': round(exact['ndcg@5'].mean(), 4)}))
        for B in a.batch:
            pu = run(b, Path(a.runs)/name/f'snapshot-{B}', a.opt + ['snapshot=1', f'batch={B}'], Path(a.runs)/'log.txt')
            t = paired_bootstrap(pu, exact, 'ndcg@5')
            rows.append(dict(bench=name, data=m.get('data'), requests=m.get('instructions'), users=t['users'], B=str(B), **{'N@5': round(pu['ndcg@5'].mean(), 4)},
                             **{'B - exact': round(t['diff'], 4), '95% interval': f"[{t['low']:.4f}, {t['high']:.4f}]", 'p': round(t['p'], 3)}))
            print(json.dumps(rows[-1]), flush=True)
    df = pd.DataFrame(rows)
    text = ['# What snapshot batches cost (rule agents)', '',
            f"Command: `python bench/snapshot_cost.py --bench {' '.join(a.bench)} --batch {' '.join(map(str, a.batch))}" + ''.join(f' --opt {o}' for o in a.opt) + '`', '',
            'AtomRec with rule agents, seed 0; every run the same options but the batch semantic. B = 1: exact batches (the one-at-a-time memory). '
            'B > 1: snapshot batches (`atomrec.snapshot`), as an LLM memory agent writes them. Paired bootstrap over the same users (2,000 resamples). '
            "Each benchmark's requests and leak audit are in its manifest and in every run's report.", '', df.to_markdown(index=False)]
    Path(a.out).write_text('\n'.join(text) + '\n'); print('\n'.join(text))

if __name__ == '__main__': main()
