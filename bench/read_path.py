"""The read path's speed: `AtomRec.recommend` (query, retrieval, signals, ranking, evidence paths) per case, in-process,
on finished runs' memories; against the same measurement of another commit of this repository, run in the same run,
with a check that both give the same rankings, scores and evidence paths.

    python bench/read_path.py --runs RUN:BENCH [RUN:BENCH ...] [--ref REV] [--cases 300] [--rounds 2] [--out FILE]

RUN is a finished `atomrec run atomrec` folder (its memory-test and ranker.txt are read, from a copy), BENCH its benchmark
folder. With --ref, REV (a commit, tag or branch) is checked out into a temporary git worktree and measured the same way,
alternating with this checkout round by round. Each measurement is a fresh process: the memory is opened, 20 cases warm
it up (the read path's tables are built on first use), then every case is timed alone."""
import argparse, hashlib, json, os, pickle, shutil, subprocess, sys, tempfile, time
from pathlib import Path
import numpy as np

ROOT = Path(__file__).resolve().parents[1]

def child(run, bench, cases):
    "In a fresh process: time each case's recommendation; print p50, mean and a digest of every output."
    from atomrec.serve.app import open_memory
    from atomrec.eval.benchmark import Bench
    run, b = Path(run), Bench(bench)
    work = Path(tempfile.mkdtemp(prefix='read_path-'))
    try:
        shutil.copytree(run/'memory-test', work/'m', ignore=shutil.ignore_patterns('.lock'))
        mem = open_memory(work/'m', ranker=run/'ranker.txt')
        if hasattr(mem.rec, 'wait'): mem.rec.wait()
        cs = b.cases('test').head(cases + 20)
        todo = [(str(u), [str(x) for x in c], i) for u, c, i in zip(cs.user_id, cs.candidates, cs.instruction)]
        for u, c, i in todo[:20]: mem.recommend(u, c, i)
        ts, digest = [], hashlib.sha256()
        for u, c, i in todo[20:]:
            t = time.perf_counter(); r = mem.recommend(u, c, i); ts.append(time.perf_counter() - t)
            digest.update(pickle.dumps((r.ranking, r.scores, r.paths)))
        mem.close(checkpoint=False)
        print(json.dumps(dict(p50=float(np.median(ts)) * 1000, mean=float(np.mean(ts)) * 1000, notes=len(mem.store), digest=digest.hexdigest())))
    finally: shutil.rmtree(work, ignore_errors=True)

def measure(code:Path, run, bench, cases)->dict:
    "One child process on the checkout at `code`."
    env = dict(os.environ, PYTHONPATH=str(code), PYTHONHASHSEED='0')   # the same set orders in both: the same sums
    out = subprocess.run([sys.executable, __file__, '--child', run, bench, str(cases)], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--runs', nargs='+', help='RUN:BENCH pairs: a finished atomrec run folder and its benchmark folder')
    ap.add_argument('--ref', default=None, help='a commit, tag or branch to measure beside this checkout (default: none)')
    ap.add_argument('--cases', type=int, default=300, help='timed test cases per measurement (after 20 that warm up)')
    ap.add_argument('--rounds', type=int, default=2, help='measurements of each checkout on each run, alternating')
    ap.add_argument('--out', default='bench/results/read_path.md', help='markdown report to write')
    ap.add_argument('--child', nargs=3, metavar=('RUN', 'BENCH', 'CASES'), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child: return child(a.child[0], a.child[1], int(a.child[2]))
    if not a.runs: ap.error('--runs RUN:BENCH is required')
    codes = {'this checkout': ROOT}
    tmp = None
    if a.ref:
        tmp = Path(tempfile.mkdtemp(prefix='read_path-ref-'))
        subprocess.run(['git', '-C', str(ROOT), 'worktree', 'add', '--detach', str(tmp/'ref'), a.ref], check=True, capture_output=True)
        codes = {f'ref {a.ref}': tmp/'ref', **codes}
    head = subprocess.run(['git', '-C', str(ROOT), 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()
    rows = []
    try:
        for pair in a.runs:
            run, bench = pair.split(':')
            got = {k: [] for k in codes}
            for _ in range(a.rounds):
                for k, code in codes.items(): got[k].append(measure(code, run, bench, a.cases))
            ref = min(m['p50'] for m in next(iter(got.values())))
            same = len({m['digest'] for ms in got.values() for m in ms}) == 1
            for k, ms in got.items():
                p50 = min(m['p50'] for m in ms)
                rows.append((f"`{run}` ({ms[0]['notes']} notes)", k, ', '.join(f"{m['p50']:.1f}" for m in ms), ', '.join(f"{m['mean']:.1f}" for m in ms), f'{p50 / ref:.2f}', 'yes' if same else '**no**'))
    finally:
        if tmp is not None:
            subprocess.run(['git', '-C', str(ROOT), 'worktree', 'remove', '--force', str(tmp/'ref')], capture_output=True); shutil.rmtree(tmp, ignore_errors=True)
    md = ['# The read path: `AtomRec.recommend` per case, in-process\n',
          f"Checkout {head}; {a.cases} test cases per measurement after 20 that warm up, {a.rounds} measurements per checkout and run, alternating; each a fresh process.",
          f"Command: `python bench/read_path.py --runs {' '.join(a.runs)}{f' --ref {a.ref}' if a.ref else ''} --cases {a.cases} --rounds {a.rounds}`\n",
          '| memory | code | p50 per round (ms) | mean per round (ms) | best p50 vs the first code | same rankings, scores and paths |', '|---|---|---|---|---|---|']
    md += [f'| {" | ".join(r)} |' for r in rows]
    Path(a.out).parent.mkdir(parents=True, exist_ok=True); Path(a.out).write_text('\n'.join(md) + '\n'); print('\n'.join(md))

if __name__ == '__main__': main()
