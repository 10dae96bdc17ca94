"""Store speed: LanceDB vector search vs the NoteStore numpy working set, and write throughput.

Run: `.venv/bin/python bench/store_speed.py [sizes...]` (default sizes 10000 100000).
Prints a markdown report and writes it to bench/results/store_speed.md.
"""
import os, sys, time, platform, tempfile, shutil, datetime
from pathlib import Path
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout without installing
import lancedb
from atomrec.store import NoteStore, AtomicNote

DIM, K = 384, 20
N_QUERIES = {'numpy': 300, 'lance': 100}  # timed queries per method (after 5 warm-up queries)
N_UPDATES = 20_000  # revisions per build-like batch (a new note updates up to 20 neighbours)
N_ROWWISE = 30  # single-row merge_inserts timed, to show why the store writes behind

def unit(m): return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)

def machine() -> dict:
    model = next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')), platform.processor()) \
        if os.path.exists('/proc/cpuinfo') else platform.processor()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()
    return {'cpu': model, 'cores (os.cpu_count)': os.cpu_count(), 'cores usable by this process': usable,
            'python': platform.python_version(), 'numpy': np.__version__, 'lancedb': lancedb.__version__,
            'platform': platform.platform(), 'date': datetime.date.today().isoformat(),
            'load average (1 min) at start / end': '%.2f / %.2f' % (LOAD0, os.getloadavg()[0])}

def lat(f, qs) -> np.ndarray:
    "Per-query latencies in ms of f(q) over qs, after 5 warm-up calls."
    for q in qs[:5]: f(q)
    out = []
    for q in qs:
        t = time.perf_counter(); f(q); out.append((time.perf_counter() - t) * 1e3)
    return np.array(out)

def recall(got, exact) -> float:
    return float(np.mean([len({i for i, _ in g} & {i for i, _ in e}) / max(1, len(e)) for g, e in zip(got, exact)]))

def make_notes(n, rng):
    V = unit(rng.standard_normal((n, DIM)))
    return [AtomicNote(f'n{i}', 'user' if i % 2 else 'item', f'o{i % 5000}', f'evidence text of note {i}', float(i),
                       keywords=['kw'], tags=['tag'], context='ctx', links=[(f'n{(i * 7) % n}', 'shared topic')],
                       embedding=V[i], item_id=f'i{i}') for i in range(n)]

def bench_size(n, tmp, rng):
    notes = make_notes(n, rng)
    path = tmp / f'db{n}'
    st = NoteStore(path, dim=DIM, mode='overwrite')
    w = {'n': n}
    t = time.perf_counter(); st.add(notes); w['add'] = n / (time.perf_counter() - t)
    t = time.perf_counter(); st.flush(); w['flush_append'] = n / (time.perf_counter() - t)
    m = min(N_UPDATES, n)
    upd = []
    for i in rng.choice(n, m, replace=False):
        u = st.get(f'n{i}').copy()
        u.embedding, u.keywords, u.version = unit(rng.standard_normal((1, DIM)))[0], ['kw', 'revised'], 1
        upd.append(u)
    t = time.perf_counter(); st.update(upd); w['update'] = m / (time.perf_counter() - t)
    t = time.perf_counter(); st.flush(); w['flush_merge'] = m / (time.perf_counter() - t)
    w['m'] = m
    # row by row: one merge_insert per revised note (what write-behind avoids)
    from atomrec.store import notes_to_arrow
    rows = [notes_to_arrow([st.get(f'n{i}')], DIM) for i in range(N_ROWWISE)]
    t = time.perf_counter()
    for r in rows: st.table.merge_insert('id').when_matched_update_all().when_not_matched_insert_all().execute(r)
    w['rowwise_ms'] = (time.perf_counter() - t) / N_ROWWISE * 1e3
    t = time.perf_counter(); st.optimize(); w['optimize_s'] = time.perf_counter() - t
    t = time.perf_counter(); st2 = NoteStore.open(path); w['reopen_s'] = time.perf_counter() - t
    assert len(st2) == n
    del st2

    s = {'n': n, 'rows': []}
    Qn = unit(rng.standard_normal((N_QUERIES['numpy'], DIM)))
    Ql = Qn[:N_QUERIES['lance']]
    exact = [st.search(q, K) for q in Ql]
    ln = lat(lambda q: st.search(q, K), Qn)
    base = np.median(ln)
    s['rows'].append(('numpy exact, `NoteStore.search`', None, ln, None))
    st.serial_max = 0  # let OpenBLAS use all its threads for single queries too
    s['rows'].append(('numpy exact, `NoteStore.search`, BLAS multi-threaded', None, lat(lambda q: st.search(q, K), Qn), None))
    st.serial_max = NoteStore.serial_max
    st.search_many(Qn, K)  # warm-up: the first large product pays for page faults and BLAS threads
    per = []
    for _ in range(3):
        t = time.perf_counter(); st.search_many(Qn, K); per.append((time.perf_counter() - t) / len(Qn) * 1e3)
    s['rows'].append(('numpy exact, `search_many` (batch of %d, per query)' % len(Qn), None, np.array(per), None))
    ll = lat(lambda q: st.lance_search(q, K), Ql)
    s['rows'].append(('LanceDB flat (exact)', None, ll, recall([st.lance_search(q, K) for q in Ql], exact)))
    for name, kw, qkw in [('IVF_PQ', dict(num_partitions=max(16, int(np.sqrt(n))), num_sub_vectors=DIM // 8), {}),
                          ('IVF_PQ + refine_factor=10', None, {'refine_factor': 10}),
                          ('IVF_HNSW_SQ', dict(num_partitions=max(1, n // 50_000)), {})]:
        b = None
        if kw is not None:
            t = time.perf_counter()
            try: st.create_index(name, **kw)
            except Exception as e:
                s['rows'].append((f'{name} (build failed: {type(e).__name__}: {str(e)[:80]})', None, None, None)); continue
            b = time.perf_counter() - t
        f = lambda q: st.lance_search(q, K, **qkw)
        l = lat(f, Ql)
        s['rows'].append((f'LanceDB {name}', b, l, recall([f(q) for q in Ql], exact)))
    s['base'] = base
    st.close()
    shutil.rmtree(path, ignore_errors=True)
    return w, s

def report(mach, writes, searches) -> str:
    L = ['# Store speed: LanceDB vs the numpy working set', '',
         f'`python bench/store_speed.py` — random unit vectors, {DIM}-d, top-{K}, cosine. '
         'Latency is per query from a single caller after 5 warm-up queries (for `search_many`: batch time / batch size over 3 runs). '
         '`NoteStore.search` runs BLAS on one thread for single queries (`serial_max`); the multi-threaded row shows why. '
         'The machine is shared: see the load average; '
         'recall@%d is measured against the exact numpy result.' % K, '', '## Machine', '']
    L += [f'- {k}: {v}' for k, v in mach.items()]
    L += ['', '## Search', '', '| notes | method | index build (s) | p50 (ms) | p95 (ms) | p50 ratio vs numpy | recall@%d |' % K,
          '|---:|---|---:|---:|---:|---:|---:|']
    for s in searches:
        for name, b, l, r in s['rows']:
            if l is None: L.append(f"| {s['n']:,} | {name} | | | | | |"); continue
            L.append(f"| {s['n']:,} | {name} | {'' if b is None else f'{b:.1f}'} | {np.median(l):.2f} | {np.percentile(l, 95):.2f} "
                     f"| {np.median(l) / s['base']:.2f}x | {'exact (reference)' if r is None else f'{r:.3f}'} |")
    L += ['', '## Writes', '', '| notes | add to working set (notes/s) | first flush, append (notes/s) | update (notes/s) '
          '| flush of updates, one merge_insert (notes/s) | row-by-row merge_insert (ms/note) | optimize (s) | reopen from disk (s) |',
          '|---:|---:|---:|---:|---:|---:|---:|---:|']
    for w in writes:
        L.append(f"| {w['n']:,} | {w['add']:,.0f} | {w['flush_append']:,.0f} | {w['update']:,.0f} ({w['m']:,}) "
                 f"| {w['flush_merge']:,.0f} ({w['m']:,}) | {w['rowwise_ms']:.1f} | {w['optimize_s']:.2f} | {w['reopen_s']:.2f} |")
    rw = writes[-1]
    L += ['', f"Row by row, {rw['m']:,} revisions would take about {rw['rowwise_ms'] * rw['m'] / 1e3:,.0f} s of merge_inserts "
          f"against {rw['m'] / rw['flush_merge']:.1f} s as one batched flush at {rw['n']:,} notes."]
    return '\n'.join(L) + '\n'

LOAD0 = os.getloadavg()[0]

def main(sizes):
    rng = np.random.default_rng(0)
    tmp = Path(tempfile.mkdtemp(prefix='atomrec-store-bench-'))
    writes, searches = [], []
    try:
        for n in sizes:
            t = time.perf_counter()
            w, s = bench_size(n, tmp, rng)
            writes.append(w); searches.append(s)
            print(f'[{n:,} notes done in {time.perf_counter() - t:.0f} s]', file=sys.stderr)
    finally: shutil.rmtree(tmp, ignore_errors=True)
    md = report(machine(), writes, searches)
    out = Path(__file__).resolve().parent / 'results' / 'store_speed.md'
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(md)
    print(md)

if __name__ == '__main__':
    main([int(a) for a in sys.argv[1:]] or [10_000, 100_000])
