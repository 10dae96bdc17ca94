"""The two hot paths of a live memory, in-process, on finished runs' memories: reading (`AtomRec.recommend`: query,
retrieval, signals, ranking, evidence paths, per case) and writing (`AtomRec.observe_many` of new events, one BLAS and
torch thread, as the service's writer process runs); against the same measurement of another commit of this repository,
in the same run, with a check that both give the same rankings, scores and evidence paths, and the same memory.

    python bench/hot_paths.py --runs RUN:BENCH [RUN:BENCH ...] [--ref REV] [--cases 300] [--events 600] [--rounds 2] [--out FILE]

RUN is a finished `atomrec run atomrec` folder (its memory-test and ranker.txt are read, from a copy), BENCH its benchmark
folder. With --ref, REV (a commit, tag or branch) is checked out into a temporary git worktree and measured the same way,
alternating with this checkout round by round. Each measurement is a fresh process: the memory is opened, 20 cases warm
the read path up (its tables are built on first use), every other case is timed alone; then 100 new events warm the
write path up and the next `--events` are timed (each a user's unseen item, after everything in the memory)."""
import argparse, hashlib, json, os, shutil, subprocess, sys, tempfile, time
from pathlib import Path
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT/'bench'))
from serve_load import unseen_pairs   # the same new events as the service benchmark's
ONE_THREAD = {v: '1' for v in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS')}

def by_value(x) -> bytes:
    "`x` as canonical JSON: equal values give equal bytes (a pickle's bytes also depend on which equal strings are one object)."
    return json.dumps(x, sort_keys=True, default=lambda o: o.tolist() if hasattr(o, 'tolist') else repr(o)).encode()

def new_events(bench, n:int, seed:int=0):
    "`n` events as rows: `serve_load`'s new events (a random user, an item they have not seen), after everything in the benchmark."
    import pandas as pd
    rng = np.random.default_rng(seed); t0 = float(bench.interactions.timestamp.max()) + 1
    return pd.DataFrame([dict(user_id=u, item_id=i, timestamp=t0 + k, rating=float(rng.integers(1, 6))) for k, (u, i) in zip(range(n), unseen_pairs(bench, rng))])

def child(run, bench, cases, events, freeze=False):
    "In a fresh process: time each case's recommendation, then the writing of new events (with `freeze`, the objects made so far frozen out of the cycle collector first, as the service's writer process does); print the figures and digests of every output."
    import torch; torch.set_num_threads(1)
    from atomrec.serve.app import open_memory
    from atomrec.eval.benchmark import Bench
    run, b = Path(run), Bench(bench)
    work = Path(tempfile.mkdtemp(prefix='hot_paths-'))
    try:
        shutil.copytree(run/'memory-test', work/'m', ignore=shutil.ignore_patterns('.lock'))
        mem = open_memory(work/'m', ranker=run/'ranker.txt')
        if hasattr(mem.rec, 'wait'): mem.rec.wait()
        notes = len(mem.store)
        cs = b.cases('test').head(cases + 20)
        todo = [(str(u), [str(x) for x in c], i) for u, c, i in zip(cs.user_id, cs.candidates, cs.instruction)]
        for u, c, i in todo[:20]: mem.recommend(u, c, i)
        ts, read = [], hashlib.sha256()
        for u, c, i in todo[20:]:
            t = time.perf_counter(); r = mem.recommend(u, c, i); ts.append(time.perf_counter() - t)
            read.update(by_value((r.ranking, r.scores, r.paths)))
        df = new_events(b, events + 100)
        mem.observe_many(df.head(100), progress=False, checkpoint=False)
        if freeze: import gc; gc.freeze()   # as `atomrec serve`'s writer process: its full passes would scan every note
        t = time.perf_counter(); mem.observe_many(df.iloc[100:], progress=False, checkpoint=False); w = time.perf_counter() - t
        written = hashlib.sha256()
        for i in sorted(mem.store._notes):
            n = mem.store.get(i); written.update(by_value((n.id, n.links, n.keywords, n.tags, n.context, n.version)) + n.embedding.tobytes())
        print(json.dumps(dict(p50=float(np.median(ts)) * 1000, mean=float(np.mean(ts)) * 1000, eps=events / w, notes=notes,
                              read=read.hexdigest(), written=written.hexdigest())))
        mem.close(checkpoint=False)
    finally: shutil.rmtree(work, ignore_errors=True)

def measure(code:Path, run, bench, cases, events, freeze=False)->dict:
    "One child process on the checkout at `code`."
    env = dict(os.environ, PYTHONPATH=str(code), PYTHONHASHSEED='0', **ONE_THREAD)   # the same set orders in both: the same sums
    out = subprocess.run([sys.executable, __file__, '--child', run, bench, str(cases), str(events), *(['--freeze-gc'] if freeze else [])], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--runs', nargs='+', help='RUN:BENCH pairs: a finished atomrec run folder and its benchmark folder')
    ap.add_argument('--ref', default=None, help='a commit, tag or branch to measure beside this checkout (default: none)')
    ap.add_argument('--cases', type=int, default=300, help='timed test cases per measurement (after 20 that warm up)')
    ap.add_argument('--events', type=int, default=600, help='timed new events per measurement (after 100 that warm up)')
    ap.add_argument('--rounds', type=int, default=2, help='measurements of each checkout on each run, alternating')
    ap.add_argument('--out', default='bench/results/hot_paths.md', help='markdown report to write')
    ap.add_argument('--freeze-gc', action='store_true', help="freeze the memory's objects out of Python's cycle collector before the timed writes, as the service's writer process does (without it, full collections over a 100k-note memory take about a quarter of the write time)")
    ap.add_argument('--child', nargs=4, metavar=('RUN', 'BENCH', 'CASES', 'EVENTS'), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child: return child(a.child[0], a.child[1], int(a.child[2]), int(a.child[3]), a.freeze_gc)
    if not a.runs: ap.error('--runs RUN:BENCH is required')
    codes, tmp = {'this checkout': ROOT}, None
    if a.ref:
        tmp = Path(tempfile.mkdtemp(prefix='hot_paths-ref-'))
        subprocess.run(['git', '-C', str(ROOT), 'worktree', 'add', '--detach', str(tmp/'ref'), a.ref], check=True, capture_output=True)
        codes = {f'ref {a.ref}': tmp/'ref', **codes}
    head = subprocess.run(['git', '-C', str(ROOT), 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()
    rows = []
    try:
        for pair in a.runs:
            run, bench = pair.split(':')
            got = {k: [] for k in codes}
            for _ in range(a.rounds):
                for k, code in codes.items(): got[k].append(measure(code, run, bench, a.cases, a.events, a.freeze_gc))
            first = next(iter(got.values()))
            ref_p50, ref_eps = min(m['p50'] for m in first), max(m['eps'] for m in first)
            same_read = len({m['read'] for ms in got.values() for m in ms}) == 1
            same_written = len({m['written'] for ms in got.values() for m in ms}) == 1
            for k, ms in got.items():
                rows.append((f"`{run}` ({first[0]['notes']} notes before)", k, ', '.join(f"{m['p50']:.1f}" for m in ms), f"{min(m['p50'] for m in ms) / ref_p50:.2f}",
                             'yes' if same_read else '**no**', ', '.join(f"{m['eps']:.0f}" for m in ms), f"{max(m['eps'] for m in ms) / ref_eps:.2f}", 'yes' if same_written else '**no**'))
    finally:
        if tmp is not None:
            subprocess.run(['git', '-C', str(ROOT), 'worktree', 'remove', '--force', str(tmp/'ref')], capture_output=True); shutil.rmtree(tmp, ignore_errors=True)
    md = ['# The hot paths: `recommend` per case and `observe_many` per event, in-process\n',
          f"Checkout {head}; {a.cases} test cases and {a.events} new events per measurement (after 20 cases and 100 events that warm up), one BLAS and torch thread{', the cycle collector frozen before the timed writes' if a.freeze_gc else ''}, {a.rounds} measurements per checkout and run, alternating; each a fresh process.",
          f"Command: `python bench/hot_paths.py --runs {' '.join(a.runs)}{f' --ref {a.ref}' if a.ref else ''} --cases {a.cases} --events {a.events} --rounds {a.rounds}{' --freeze-gc' if a.freeze_gc else ''}`\n",
          '| memory | code | recommend p50 per round (ms) | best vs the first code | same rankings, scores, paths | write, events/s per round | best vs the first code | same memory written |',
          '|---|---|---|---|---|---|---|---|']
    md += [f'| {" | ".join(r)} |' for r in rows]
    Path(a.out).parent.mkdir(parents=True, exist_ok=True); Path(a.out).write_text('\n'.join(md) + '\n'); print('\n'.join(md))

if __name__ == '__main__': main()
