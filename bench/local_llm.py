"""AtomRec with LLM agents and the Vanilla LLM baseline against the embedded local model, then a replay of both.

    python bench/local_llm.py [--model smollm2] [--users 50] [--datasets ml-100k goodreads] [--out runs/local-llm]

Needs the optional local LLM (`make llm`). Per dataset: prepare a benchmark of `--users` test users (seed 0,
template instructions), run `atomrec --agent llm` and `vanilla-llm` against a llama.cpp server started for the
run, then re-run both with `--cache-mode replay` (no server, no calls). Datasets run side by side, each run's
server with `cores / datasets` threads. Every step's wall time goes to `OUT/times.jsonl`; the report —
metrics, the LLM ledger per user and stage, wall times and replay ratios — to `bench/results/local_llm.md`.
`--report-only` writes the report from the run folders and times already there.
"""
import argparse, json, os, sqlite3, subprocess, sys, time, platform
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

STEPS = ('atomrec', 'vanilla', 'replay-atomrec', 'replay-vanilla')

def commands(d:str, out:Path, model:str, users:int, threads:int, max_history:int) -> list[tuple[str, list[str]]]:
    "The (step, argv) pairs for one dataset, in order."
    exe, bench = [str(Path(sys.executable).parent/'atomrec')], str(out/'bench'/d)
    llm = ['--local', model, '--opt', 'llm=' + json.dumps({'n_threads': threads}), '--quiet']
    mem = ['--agent', 'llm', '--opt', f'max_history={max_history}']
    return [('prepare', exe + ['prepare', d, '--out', bench, '--users', str(users), '--seed', '0', '--instructions', 'template']),
            ('atomrec', exe + ['run', 'atomrec', *mem, '--bench', bench, '--out', str(out/'atomrec'/d), *llm]),
            ('vanilla', exe + ['run', 'vanilla-llm', '--bench', bench, '--out', str(out/'vanilla'/d), *llm]),
            ('replay-atomrec', exe + ['run', 'atomrec', *mem, '--bench', bench, '--out', str(out/'replay-atomrec'/d), *llm,
                                      '--cache-mode', 'replay', '--cache', str(out/'atomrec'/d/'llm_cache.sqlite')]),
            ('replay-vanilla', exe + ['run', 'vanilla-llm', '--bench', bench, '--out', str(out/'replay-vanilla'/d), *llm,
                                      '--cache-mode', 'replay', '--cache', str(out/'vanilla'/d/'llm_cache.sqlite')])]

def run_dataset(d, out, a, threads):
    for step, argv in commands(d, out, a.model, a.users, threads, a.max_history):
        if step == 'prepare' and (out/'bench'/d/'manifest.json').exists(): continue
        t0 = time.time()
        with open(out/f'{step}-{d}.log', 'w') as log: rc = subprocess.call(argv, stdout=log, stderr=subprocess.STDOUT)
        rec = dict(step=step, data=d, seconds=round(time.time() - t0, 1), rc=rc, load=round(os.getloadavg()[0], 2))
        with open(out/'times.jsonl', 'a') as f: f.write(json.dumps(rec) + '\n')
        if rc: print(f'{d}: {step} failed (exit {rc}); see {out}/{step}-{d}.log', file=sys.stderr); return

def as_shown(run:Path) -> tuple[int, int]:
    "How many rankings equal the candidate order the prompt showed, and how many put the first shown candidate first."
    import pandas as pd
    from atomrec.eval.benchmark import Bench
    info = json.loads((run/'metrics.json').read_text())
    shown = Bench(info['bench']).cases(info['split']).set_index('user_id').candidates
    preds = pd.read_parquet(run/'predictions.parquet')
    pairs = [(list(r), list(shown[u])) for u, r in zip(preds.user_id, preds.ranking) if r is not None]
    return sum(r == c for r, c in pairs), sum(r[0] == c[0] for r, c in pairs)

def shown_order_metrics(bench_dir:Path) -> dict:
    "Metrics of ranking every case's candidates in the order they are shown."
    import pandas as pd
    from atomrec.eval.benchmark import Bench
    from atomrec.eval.metrics import evaluate
    cases = Bench(bench_dir).cases('test')
    return evaluate(pd.DataFrame({'user_id': cases.user_id, 'ranking': cases.candidates.map(list)}), cases)[0]

def cache_table(runs) -> list[str]:
    "Per live run and stage, from its response cache: answered requests and their tokens per user (holds across restarts)."
    rows = ['| run | stage | requests / user | failed (cached) | prompt tokens / user | completion tokens / user |', '|---|---|---:|---:|---:|---:|']
    for run in runs:
        db = run/'llm_cache.sqlite'
        if run.parent.name.startswith('replay') or not db.exists(): continue
        users = json.loads((run/'metrics.json').read_text())['users']
        con = sqlite3.connect(f'file:{db}?mode=ro', uri=True)
        q = ("select stage, count(*), sum(response like '%__atomrec_failed__%'), sum(prompt_tokens), sum(completion_tokens) "
             "from responses group by stage order by min(created)")
        for st, n, bad, pt, ct in con.execute(q):
            rows.append(f"| {run.parent.name}/{run.name} | {st} | {n / users:.2f} | {bad} | {pt / users:.0f} | {ct / users:.0f} |")
        con.close()
    return rows

def report(out:Path, a) -> str:
    from atomrec.eval.runner import load_runs
    from atomrec.eval.llm import llm_report
    times = {}
    if (out/'times.jsonl').exists():
        for l in (out/'times.jsonl').read_text().splitlines():
            r = json.loads(l); times[(r['step'], r['data'])] = r  # the last record of a step wins
    runs = [out/s/d for d in a.datasets for s in STEPS if (out/s/d/'metrics.json').exists()]
    df = load_runs(runs) if runs else None
    rows = ['| run | method | backend | data | users | seed | H@3 | N@3 | H@5 | N@5 | invalid | missing | ranking = order shown | first = first shown |',
            '|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|']
    for d in a.datasets:   # the reference a position-biased model collapses to
        if (out/'bench'/d/'manifest.json').exists():
            m = shown_order_metrics(out/'bench'/d)
            rows.append(f"| order shown (reference) | - | - | {d} | {m['users']} | - | " + ' | '.join(f"{m[k]:.4f}" for k in ('hit@3', 'ndcg@3', 'hit@5', 'ndcg@5')) + " | 0 | 0 | all | all |")
    for run, r in zip(runs, [] if df is None else df.to_dict('records')):
        same, first = as_shown(run)
        rows.append(f"| {run.parent.name}/{run.name} | {r['method']} | {r['backend']} | {r['data']} | {r['users']} | {r['seed']} | "
                    + ' | '.join(f"{r[m]:.4f}" for m in ('hit@3', 'ndcg@3', 'hit@5', 'ndcg@5')) + f" | {r['invalid']} | {r['missing']} | {same} | {first} |")
    lines = [f"# AtomRec with LLM agents on the embedded local model ({time.strftime('%Y-%m-%d')})", '',
             f"`python bench/local_llm.py --model {a.model} --users {a.users}`. Data: {', '.join(a.datasets)} (test split, "
             f"{a.users} seeded users, seed 0, template instructions: generated, not given). Backend: `{a.model}` served by "
             f"llama.cpp on 127.0.0.1, greedy decoding, schema enforced by grammar; AtomRec with max_history={a.max_history} "
             "and the local agent profile (item links by rule). "
             f"Machine: {os.cpu_count()} cores, no GPU, python {platform.python_version()}; datasets ran side by side.", '',
             *([a.note, ''] if a.note else []),
             '## Metrics', '', 'The last two columns are a warning sign: a model that returns the candidates in the order shown (the benchmark shuffles them) ranks at chance.', '', *rows, '', '## LLM calls per user and stage', '',
             'Calls are HTTP requests (repairs included); tokens are per evaluated user; failures are calls whose answer '
             'stayed invalid after one repair (the agents fall back and count it; an unusable ranking is a miss).', '',
             llm_report(runs), '### From the response caches', '', 'One row per distinct request (a repair round is part of its request; tokens include it). These hold for the whole run even when it was interrupted and resumed, where the ledger above covers the last session only.', '', *cache_table(runs), '', '## Wall time', '', '| data | step | seconds | exit | load (1 min) at end |', '|---|---|---:|---:|---:|']
    for d in a.datasets:
        for s in ('prepare',) + STEPS:
            r = times.get((s, d))
            if r: lines.append(f"| {d} | {s} | {r['seconds']} | {r['rc']} | {r['load']} |")
    lines += ['', '| data | method | live run (s) | replay (s) | replay / live |', '|---|---|---:|---:|---:|']
    for d in a.datasets:
        for m in ('atomrec', 'vanilla'):
            live, rep = times.get((m, d)), times.get((f'replay-{m}', d))
            if live and rep: lines.append(f"| {d} | {m} | {live['seconds']} | {rep['seconds']} | {rep['seconds'] / live['seconds']:.4f} |")
    return '\n'.join(lines) + '\n'

def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--model', default='smollm2'); p.add_argument('--users', type=int, default=50)
    p.add_argument('--datasets', nargs='+', default=['ml-100k', 'goodreads']); p.add_argument('--out', default='runs/local-llm')
    p.add_argument('--max-history', type=int, default=3); p.add_argument('--report-only', action='store_true')
    p.add_argument('--note', default='', help='a remark for the report (e.g. how the runs were made)')
    p.add_argument('--results', default=str(Path(__file__).parent/'results'/'local_llm.md'))
    a = p.parse_args()
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    if not a.report_only:
        from atomrec.llm.local import require_llama, find_gguf
        require_llama(); find_gguf(a.model)   # clear errors before any work
        threads = max(1, (os.cpu_count() or 1) // len(a.datasets))
        with ThreadPoolExecutor(len(a.datasets)) as ex: list(ex.map(lambda d: run_dataset(d, out, a, threads), a.datasets))
    txt = report(out, a)
    Path(a.results).write_text(txt); print(txt)

if __name__ == '__main__': main()
