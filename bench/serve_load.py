"""Load on `atomrec serve` over loopback (bounded): recommend p50/p99 with 1 and 8 clients, event acknowledgement p99,
sustained ingest while 4 clients recommend, restart-to-serving; each also as a ratio to a floor measured in the same run
(one query's encoding + one exact neighbour search over the memory).

    python bench/serve_load.py --run RUN_DIR [--bench BENCH_DIR] [--out bench/results/serve_load-ml-100k.md]

RUN_DIR is a finished `atomrec run atomrec` (its memory-test and ranker.txt are served, from a copy); built first when missing:
    atomrec prepare ml-100k --out BENCH_DIR && atomrec run atomrec --bench BENCH_DIR --out RUN_DIR
The bench may import the harness (to build and read the benchmark); the service it measures does not."""
import argparse, ctypes, json, shutil, signal, subprocess, sys, tempfile, threading, time
from pathlib import Path
import numpy as np, httpx

def pct(xs, q): return float(np.percentile(np.asarray(xs) * 1000, q))

def die_with_us():
    "In the server's process, before it starts: killed when this benchmark's process ends (Linux `PR_SET_PDEATHSIG`), so a run that fails leaves no server sharing the cores with the next."
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)

def unseen_pairs(bench, # a benchmark
                 rng:np.random.Generator, # draws the users and items (and may draw more between pairs)
                ):
    "Endless (user, item) pairs for new events: a random user and an item they have not seen (the first such among 50 random items)."
    seen = bench.interactions.groupby('user_id').item_id.agg(set).to_dict()
    items, users = bench.items.item_id.astype(str).tolist(), sorted(seen)
    while True:
        u = users[rng.integers(len(users))]
        yield str(u), next(x for x in rng.permutation(items)[:50] if x not in seen[u])

def launch(folder, ranker, log, case=None, args=()):
    "Start the service; (process, url, seconds from start to answering /v1/health[, and to answering a first recommendation for `case`])."
    t = time.perf_counter()
    p = subprocess.Popen([sys.executable, '-m', 'atomrec.serve', str(folder), '--port', '0', '--ranker', str(ranker), *args],
                         stdout=subprocess.PIPE, stderr=open(log, 'a'), text=True, preexec_fn=die_with_us)
    url = json.loads(p.stdout.readline())['url']
    while True:
        try:
            if httpx.get(f'{url}/v1/health').status_code == 200: break
        except httpx.TransportError: time.sleep(0.01)
    health = time.perf_counter() - t
    if case is None: return p, url, health
    assert httpx.post(f'{url}/v1/recommend', json=case, timeout=120).status_code == 200
    return p, url, health, time.perf_counter() - t

def floor_ms(memory, cases, n=50):
    "Median of one query encoding (uncached text, as recommend encodes it) + one exact top-k search over every note."
    from atomrec.encoder import Encoder
    from atomrec.store import NoteStore
    enc, st = Encoder(), NoteStore.open(Path(memory)/'notes')
    enc._encode(['warm up'], rows=1)   # the model loads on first use: not part of the floor
    ts = []
    for k, c in enumerate(cases[:n]):
        t = time.perf_counter()
        q = enc.encode_queries([f"request: {c['request']}\nrecently: case {k}"])[0]
        st.search(q, 15)
        ts.append(time.perf_counter() - t)
    return float(np.median(ts) * 1000), len(st)

def recommend_load(url, cases, clients, per_client):
    "Each client sends `per_client` recommendations back to back; (latencies, requests/s)."
    lat, lock = [], threading.Lock()
    def one(j):
        with httpx.Client(base_url=url, timeout=120) as c:
            for k in range(per_client):
                x = cases[(j * per_client + k) % len(cases)]
                t = time.perf_counter(); r = c.post('/v1/recommend', json=x); d = time.perf_counter() - t
                assert r.status_code == 200, r.text[:300]
                with lock: lat.append(d)
    t = time.perf_counter()
    ths = [threading.Thread(target=one, args=(j,)) for j in range(clients)]
    for th in ths: th.start()
    for th in ths: th.join()
    return lat, len(lat) / (time.perf_counter() - t)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--run', required=True, help='a finished `atomrec run atomrec` folder (`make main` leaves one in runs/demo/runs/ml-100k/atomrec)')
    ap.add_argument('--bench', required=True, help='its benchmark folder (runs/demo/bench/ml-100k for that run)')
    ap.add_argument('--out', default=None, help='markdown report to write (default bench/results/serve_load-DATA.md)')
    ap.add_argument('--requests', type=int, default=100, help='recommendations per measurement (one client)')
    ap.add_argument('--events', type=int, default=1000, help='events in the sustained-ingest measurement')
    ap.add_argument('--others', type=int, default=0, help='other jobs sharing the cores while this runs (written in the report)')
    ap.add_argument('--serve-args', default='', help='more flags for `atomrec serve`, as one string (e.g. "--turn 32")')
    a = ap.parse_args()
    extra = a.serve_args.split()
    from atomrec.eval.benchmark import Bench, prepare
    from atomrec.eval.runner import run
    run_dir, bench_dir = Path(a.run), Path(a.bench)
    if not (bench_dir/'manifest.json').exists(): prepare('ml-100k', bench_dir)
    if not (run_dir/'metrics.json').exists(): run('atomrec', bench_dir, run_dir, progress=False)
    bench = Bench(bench_dir)
    a.out = a.out or f'bench/results/serve_load-{bench.name}.md'
    cs = bench.cases('test')
    cases = [dict(user=str(u), candidates=[str(x) for x in c], request=i) for u, c, i in zip(cs.user_id, cs.candidates, cs.instruction)]
    work = Path(tempfile.mkdtemp(prefix='serve_load-'))
    mem = work/'memory'
    shutil.copytree(run_dir/'memory-test', mem, ignore=shutil.ignore_patterns('.lock'))
    floor, notes = floor_ms(mem, cases)
    p, url, start_s, start_rec_s = launch(mem, run_dir/'ranker.txt', work/'server.log', cases[-1], extra)
    out = dict(notes=notes, floor_ms=floor, start_s=start_s, start_rec_s=start_rec_s)
    recommend_load(url, cases, 1, 5)                                            # warm up
    lat1, _ = recommend_load(url, cases, 1, a.requests)
    lat8, rps8 = recommend_load(url, cases, 8, max(1, a.requests // 4))
    out.update(rec1_p50=pct(lat1, 50), rec1_p99=pct(lat1, 99), rec8_p50=pct(lat8, 50), rec8_p99=pct(lat8, 99), rec8_rps=rps8)
    # events: items each user has not seen, after everything in memory
    rng = np.random.default_rng(0); pairs = unseen_pairs(bench, rng)
    def new_events(n, tag, t0):
        return [dict(id=f'{tag}{k}', user=u, item=i, timestamp=t0 + k, rating=float(rng.integers(1, 6))) for k, (u, i) in zip(range(n), pairs)]
    t_max = float(bench.interactions.timestamp.max()) + 1
    acks = []
    with httpx.Client(base_url=url, timeout=60) as c:
        for e in new_events(200, 'ack', t_max):
            t = time.perf_counter(); r = c.post('/v1/events', json=dict(events=[e])); acks.append(time.perf_counter() - t)
            assert r.status_code == 202, r.text[:300]
        v = r.json()['accepted_version']
        while c.get('/v1/health').json()['version'] < v: time.sleep(0.2)
    out.update(ack_p50=pct(acks, 50), ack_p99=pct(acks, 99))
    # sustained ingest while 4 clients recommend
    evs = new_events(a.events, 'load', t_max + 1000)
    stop, lat4 = threading.Event(), []
    def reader(j):
        with httpx.Client(base_url=url, timeout=120) as c:
            k = j
            while not stop.is_set():
                t = time.perf_counter(); r = c.post('/v1/recommend', json=cases[k % len(cases)]); lat4.append(time.perf_counter() - t); k += 4
                assert r.status_code == 200, r.text[:300]
    ths = [threading.Thread(target=reader, args=(j,)) for j in range(4)]
    gc0 = httpx.get(f'{url}/v1/stats', timeout=60).json().get('gc')
    for th in ths: th.start()
    t = time.perf_counter()
    with httpx.Client(base_url=url, timeout=60) as c:
        for s in range(0, len(evs), 50): v = c.post('/v1/events', json=dict(events=evs[s:s + 50])).json()['accepted_version']
        post_s = time.perf_counter() - t
        while (h := c.get('/v1/health').json())['version'] < v: time.sleep(0.01)
        ingest_s = time.perf_counter() - t
        st = c.get('/v1/stats').json()
    stop.set()
    for th in ths: th.join()
    out.update(ingest_eps=len(evs) / ingest_s, post_eps=len(evs) / post_s, ingest_rec_p99=pct(lat4, 99), ingest_rec_p50=pct(lat4, 50), drained=st['pending'] == 0,
               writer_eps=st['writer']['events_per_s'], batches=st['writer']['batches'],
               gc_ingest={g: dict(passes=st['gc'][g]['passes'] - gc0[g]['passes'], seconds=round(st['gc'][g]['seconds'] - gc0[g]['seconds'], 3)) for g in ('gen0', 'gen1', 'gen2')} if gc0 else None)
    # restart: clean stop, then kill -9 with a queue, each back to answering
    p.send_signal(signal.SIGTERM); p.wait(timeout=120)
    p, url, out['restart_s'], out['restart_rec_s'] = launch(mem, run_dir/'ranker.txt', work/'server.log', cases[-1], extra)
    with httpx.Client(base_url=url, timeout=60) as c: v = c.post('/v1/events', json=dict(events=new_events(200, 'kill', t_max + 10_000))).json()['accepted_version']
    p.kill(); p.wait()
    p, url, out['restart_kill_s'] = launch(mem, run_dir/'ranker.txt', work/'server.log', args=extra)
    with httpx.Client(base_url=url, timeout=60) as c:
        while c.get('/v1/health').json()['version'] < v: time.sleep(0.2)
    out['replayed'] = True
    p.send_signal(signal.SIGTERM); p.wait(timeout=120)
    shutil.rmtree(work)
    f = out['floor_ms']
    rows = [('recommend, 1 client, p50', f"{out['rec1_p50']:.0f} ms", f"{out['rec1_p50'] / f:.1f}x", '≤ 30 ms (goodreads)'),
            ('recommend, 1 client, p99', f"{out['rec1_p99']:.0f} ms", f"{out['rec1_p99'] / f:.1f}x", '≤ 120 ms (goodreads)'),
            ('recommend, 8 clients', f"{out['rec8_rps']:.1f} /s (p50 {out['rec8_p50']:.0f} ms, p99 {out['rec8_p99']:.0f} ms)", f"{out['rec8_rps'] * f / 1000:.2f} of 1/floor", '≥ 40 /s (goodreads)'),
            ('event acknowledgement p99', f"{out['ack_p99']:.1f} ms (p50 {out['ack_p50']:.1f})", f"{out['ack_p99'] / f:.2f}x", '≤ 25 ms'),
            ('sustained ingest, 4 clients recommending', f"{out['ingest_eps']:.1f} events/s applied ({a.events} events, posted at {out['post_eps']:.0f}/s in calls of 50; writer {out['writer_eps']:.1f}/s while busy, {out['batches']} batches); queue drained: {out['drained']}", f"{out['ingest_eps'] * f / 1000:.3f} of 1/floor", '≥ 300 events/s'),
            ('recommend p99 during ingest', f"{out['ingest_rec_p99']:.0f} ms (p50 {out['ingest_rec_p50']:.0f})", f"{out['ingest_rec_p99'] / f:.1f}x", '≤ 250 ms'),
            ('start to serving (first start)', f"{out['start_s']:.1f} s", f"{out['start_s'] * 1000 / f:.0f}x", '≤ 5 s'),
            ('start to a first recommendation answered', f"{out['start_rec_s']:.1f} s", f"{out['start_rec_s'] * 1000 / f:.0f}x", '(the model loads in the background)'),
            ('restart to serving (after SIGTERM)', f"{out['restart_s']:.1f} s", f"{out['restart_s'] * 1000 / f:.0f}x", '≤ 5 s'),
            ('restart to a first recommendation answered', f"{out['restart_rec_s']:.1f} s", f"{out['restart_rec_s'] * 1000 / f:.0f}x", ''),
            ('restart to serving (after kill -9, 200 events to replay)', f"{out['restart_kill_s']:.1f} s", f"{out['restart_kill_s'] * 1000 / f:.0f}x", '≤ 5 s')]
    md = [f"# `atomrec serve` under load: {bench.name} ({out['notes']} notes, requests: {bench.manifest['instructions']}), rule agents, the run's LightGBM ranker\n",
          f"Floor (same run): one query encoding + one exact top-15 search over the {out['notes']} notes = **{f:.1f} ms** (median of 50).",
          f"Machine: 2 cores, shared with {a.others} other jobs while this ran: read every figure as an upper bound.",
          f"Command: `python bench/serve_load.py --run {a.run} --bench {a.bench}" + (f" --events {a.events}" if a.events != 1000 else "") + (f" --serve-args '{a.serve_args}'" if a.serve_args else "") + "`\n",
          '| measure | figure | vs floor | target |', '|---|---|---|---|'] + [f'| {a_} | {b} | {c} | {d} |' for a_, b, c, d in rows]
    Path(a.out).parent.mkdir(parents=True, exist_ok=True); Path(a.out).write_text('\n'.join(md) + '\n')
    print('\n'.join(md)); print(json.dumps(out))

if __name__ == '__main__': main()
