"""`atomrec serve --agent llm` at a model's pace (bounded, loopback only): a fresh memory of the benchmark's most popular items,
a loopback model answering every call after `--latency` s with words of its own prompt (`bench/loopback_llm.py`), events
posted as fast as they are acknowledged while one client asks for a recommendation every 0.5 s. Measured per configuration:
events applied per second (and its ratio to the floor: calls allowed in flight / (calls per event x latency)), recommend and
acknowledgement p50/p99 during the ingest, memory-side LLM calls and prompt/completion tokens per event and stage, and the
encoder's share of the writer's CPU. The reference, in the same run: B = 1, the paper's three calls per note, one at a time.

    python bench/llm_ingest.py --bench BENCH_DIR [--ranker RUN/ranker.txt] [--out bench/results/llm_ingest.md]

BENCH_DIR is a prepared benchmark (`atomrec prepare ml-100k --out BENCH_DIR`). The bench may import the harness; the
service it measures does not."""
import argparse, json, os, signal, subprocess, sys, tempfile, threading, time
from pathlib import Path
import numpy as np, pandas as pd, httpx
sys.path.insert(0, str(Path(__file__).parent))
from serve_load import die_with_us, pct

def start_model(latency, faults, log):
    "The loopback model in a process of its own; (process, base url)."
    p = subprocess.Popen([sys.executable, str(Path(__file__).parent/'loopback_llm.py'), '--latency', str(latency), '--faults', str(faults)],
                         stdout=subprocess.PIPE, stderr=open(log, 'a'), text=True, preexec_fn=die_with_us)
    return p, json.loads(p.stdout.readline())['base_url']

def start_service(folder, items, url, args, log):
    "`atomrec serve` with LLM agents on a fresh memory of `items`; (process, url) once it answers."
    p = subprocess.Popen([sys.executable, '-m', 'atomrec.serve', str(folder), '--port', '0', '--items', str(items), '--agent', 'llm',
                          '--base-url', url, '--model', 'loopback', *args], stdout=subprocess.PIPE, stderr=open(log, 'a'), text=True, preexec_fn=die_with_us)
    line = p.stdout.readline()
    if not line: raise RuntimeError(Path(log).read_text()[-3000:])
    return p, json.loads(line)['url']

def cpu_seconds(pid)->float:
    "CPU seconds (user + system) a process has used so far (Linux /proc)."
    f = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf('SC_CLK_TCK')

def ingest(url, events, cands, pid, chunk=10, lead=512, timeout=3600):
    "Post `events` in chunks of `chunk`, keeping at most `lead` of them waiting to be applied (so the acknowledgements are spread over the whole ingest and the writer never runs dry), while one client recommends every 0.5 s; the figures."
    acks, recs, done, errors = [], [], threading.Event(), []
    users = sorted({e['user'] for e in events})
    def reader():
        with httpx.Client(base_url=url, timeout=120) as c:
            k = 0
            while not done.is_set():
                t = time.perf_counter()
                r = c.post('/v1/recommend', json=dict(user=users[k % len(users)], candidates=cands[k % len(cands)]))
                d = time.perf_counter() - t; k += 1
                if r.status_code == 200: recs.append(d)
                elif r.status_code != 404: errors.append(r.text[:200])   # 404: a user with no note yet
                time.sleep(max(0.0, 0.5 - d))
    th = threading.Thread(target=reader); th.start()
    t0, c0 = time.perf_counter(), cpu_seconds(pid)
    with httpx.Client(base_url=url, timeout=120) as c:
        for s in range(0, len(events), chunk):
            t = time.perf_counter(); r = c.post('/v1/events', json=dict(events=events[s:s + chunk])); acks.append(time.perf_counter() - t)
            assert r.status_code == 202, r.text[:300]
            while r.json()['accepted_version'] - c.get('/v1/health').json()['version'] > lead:
                assert time.perf_counter() - t0 < timeout, 'not applied in time'; time.sleep(0.1)
        last = r.json()['accepted_version']
        while c.get('/v1/health').json()['version'] < last:
            assert time.perf_counter() - t0 < timeout, 'not applied in time'; time.sleep(0.05)
        secs, cpu = time.perf_counter() - t0, cpu_seconds(pid) - c0
        done.set(); th.join()
        stats = c.get('/v1/stats').json()
    assert not errors, errors[:3]
    return dict(events=len(events), seconds=secs, events_per_s=len(events) / secs, recs=recs, acks=acks, stats=stats, cpu=cpu)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--bench', required=True, help='a prepared benchmark folder (its items and interactions)')
    ap.add_argument('--items', type=int, default=300, help='the memory holds the most popular items, this many')
    ap.add_argument('--events', type=int, default=2000, help='events ingested per batched configuration')
    ap.add_argument('--reference-events', type=int, default=40, help='events ingested by the B = 1 reference')
    ap.add_argument('--batch', type=int, nargs='+', default=[64, 128], help='snapshot batch sizes B measured')
    ap.add_argument('--concurrency', type=int, default=64, help='LLM calls allowed in flight')
    ap.add_argument('--latency', type=float, default=0.5, help="the loopback model's seconds per call")
    ap.add_argument('--ranker', help="a fitted rank agent (a run's ranker.txt): also measure LLM memory + LightGBM ranking")
    ap.add_argument('--chunk', type=int, default=10, help='events per POST /v1/events (each one acknowledgement measured)')
    ap.add_argument('--lead', type=int, default=512, help='most events posted and not yet applied: the poster waits above it, so acknowledgements are measured throughout the ingest')
    ap.add_argument('--out', default='bench/results/llm_ingest.md', help='markdown report to write')
    a = ap.parse_args()
    from atomrec.eval.benchmark import Bench
    bench = Bench(a.bench)
    inter = bench.interactions.assign(user_id=lambda d: d.user_id.astype(str), item_id=lambda d: d.item_id.astype(str))
    top = inter.item_id.value_counts().index[:a.items].tolist()
    inter = inter[inter.item_id.isin(set(top))].sort_values(['timestamp', 'user_id'], kind='stable')
    events = [dict(id=f'e{k}', user=r.user_id, item=r.item_id, timestamp=float(r.timestamp), **({'rating': float(r.rating)} if 'rating' in inter and pd.notna(r.rating) else {}))
              for k, r in enumerate(inter.itertuples())]
    rng = np.random.default_rng(0)
    cands = [list(rng.choice(top, 10, replace=False)) for _ in range(50)]
    tmp = Path(tempfile.mkdtemp(prefix='llm-ingest-'))
    items = bench.items.assign(item_id=lambda d: d.item_id.astype(str))
    items[items.item_id.isin(set(top))].to_parquet(tmp/'items.parquet')
    model, murl = start_model(a.latency, 0.0, tmp/'model.log')
    configs = [('B = 1 (reference: three calls per note, one at a time)', ['--batch', '1', '--llm-concurrency', str(a.concurrency)], a.reference_events, False)]
    configs += [(f'B = {b}', ['--batch', str(b), '--llm-concurrency', str(a.concurrency)], a.events, False) for b in a.batch]
    if a.ranker: configs += [(f'B = {a.batch[0]}, LightGBM ranking', ['--batch', str(a.batch[0]), '--llm-concurrency', str(a.concurrency), '--ranker', a.ranker], a.events, True)]
    rows, per_stage = [], {}
    for k, (name, args, n, lgbm) in enumerate(configs):
        p, url = start_service(tmp/f'mem{k}', tmp/'items.parquet', murl, args, tmp/f'serve{k}.log')
        r = ingest(url, events[:n], cands, p.pid, a.chunk, a.lead)
        p.send_signal(signal.SIGTERM); p.wait(timeout=120)
        pe, w = r['stats']['llm_per_event'], r['stats']['writer']
        calls = pe['total']['calls']
        floor = a.concurrency / (calls * a.latency)
        rows.append({'configuration': name, 'events': n, 'events/s': round(r['events_per_s'], 2), 'floor events/s': round(floor, 1),
                     'ratio to floor': round(r['events_per_s'] / floor, 2), 'calls/event': calls, 'prompt tokens/event': pe['total']['prompt_tokens'],
                     'completion tokens/event': pe['total']['completion_tokens'],
                     'recommend p50 / p99 ms': f"{pct(r['recs'], 50):.0f} / {pct(r['recs'], 99):.0f}" if r['recs'] else '-',
                     'recommendations': len(r['recs']), 'ack p50 / p99 ms': f"{pct(r['acks'], 50):.1f} / {pct(r['acks'], 99):.1f}",
                     'service CPU s/event': round(r['cpu'] / n, 4), 'writer process CPU s/event': round(w['process_cpu_seconds'] / n, 4) if 'process_cpu_seconds' in w else '-',
                     'encoder s/event': round(w['encoder_seconds'] / n, 4),
                     "encoder share of the writer's CPU": w.get('encoder_share')})
        per_stage[name] = {s: v for s, v in pe.items() if s not in ('total', 'events')}
        print(json.dumps(rows[-1]), flush=True)
    model.send_signal(signal.SIGTERM)
    import platform
    ref = rows[0]['events/s']
    lines = [f"# LLM memory side at the model's pace: `atomrec serve --agent llm`", '',
             f"Command: `python bench/llm_ingest.py --bench {a.bench} --items {a.items} --events {a.events} --batch {' '.join(map(str, a.batch))} "
             f"--concurrency {a.concurrency} --latency {a.latency} --chunk {a.chunk} --lead {a.lead}{' --ranker ' + a.ranker if a.ranker else ''}`", '',
             f"Data: {(bench.manifest.get('source') or {}).get('name', a.bench)}, the {a.items} most popular items, events in time order. Model: loopback, every call answered after "
             f"{a.latency} s with words of its prompt (no faults). Machine: {platform.processor() or platform.machine()}, 2 cores. One client recommends every 0.5 s "
             f"(LLM synthesis and ranking: two calls, unless LightGBM ranking). Events are posted {a.chunk} a call, at most {a.lead} waiting to be applied: the acknowledgements spread over the whole ingest. Floor: calls allowed in flight / (calls per event x latency). "
             f"Service CPU: the server process's user + system seconds during the ingest (readers included; not the writer process's), per event. Writer process CPU: that process's CPU seconds (every memory-side call, parse, encoding, prepare and commit), per event. Encoder: seconds the writer spent encoding, per event, and as a share of the writer process's CPU time.", '',
             pd.DataFrame(rows).to_markdown(index=False), '',
             f"Ingest speed-up over the B = 1 reference of the same run: " + ', '.join(f"{r['configuration']}: {r['events/s'] / ref:.0f}x" for r in rows[1:]), '',
             '## Memory-side LLM calls and tokens per event, by stage', '']
    for name, st in per_stage.items():
        lines += [f"**{name}**", '', pd.DataFrame(st).T.rename_axis('stage').to_markdown(), '']
    Path(a.out).write_text('\n'.join(lines) + '\n')
    print('\n'.join(lines))

if __name__ == '__main__': main()
