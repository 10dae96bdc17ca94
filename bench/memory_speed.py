"""Memory speed at the scale of the data: AtomRec's write path (rule agents, cold embedding cache) against
encoder-only throughput on the same texts, throughput against memory size, recommend latency, rank time, peak memory.

Run: `.venv/bin/python bench/memory_speed.py [BENCH] [--community all|evaluated] [--users N]`
(BENCH: a prepared benchmark folder; default: prepares ml-100k into runs/bench/ml-100k).
`--community all` (default) writes every user's history before their test target, as `AtomRecMethod` does;
`evaluated` writes the first `--users` evaluated users' only. All figures come from one run on this machine
and are also given as ratios to an encoder-only reference measured in the same run. Prints a markdown report
and writes it, with a PNG of throughput against memory size, to bench/results/memory_speed-<dataset>.{md,png}.
"""
import os, sys, time, argparse, platform, datetime, tempfile, resource
from pathlib import Path
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from atomrec.eval.benchmark import Bench, prepare
from atomrec.encoder import Encoder
from atomrec.memory import AtomRec
from atomrec.eval.method import memory_frame
from atomrec.core import AtomRecConfig

def peak_mb() -> float: return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('bench', nargs='?', default=str(ROOT/'runs'/'bench'/'ml-100k'), help='prepared benchmark folder (default: ml-100k, prepared on first use)')
    ap.add_argument('--community', choices=['all', 'evaluated'], default='all', help="whose histories are written: every user's (all) or the evaluated users' only")
    ap.add_argument('--users', type=int, default=1000, help="evaluated users written with --community evaluated")
    ap.add_argument('--slice', type=int, default=10_000, help='notes per timed slice (one point of the throughput curve)')
    ap.add_argument('--queries', type=int, default=200, help='cases timed one at a time through recommend')
    ap.add_argument('--rank', type=int, default=1000, help='cases timed through recommend_many (what a run does)')
    ap.add_argument('--batch', type=int, default=256, help='notes written per batch (one neighbour-search product each)')
    ap.add_argument('--max-notes', type=int, default=0, help='stop after this many user notes (0: all)')
    ap.add_argument('--others', type=int, default=0, help='other jobs sharing the cores while this runs (written in the report)')
    a = ap.parse_args()
    if not (Path(a.bench)/'manifest.json').exists(): prepare('ml-100k', a.bench, users=1000, seed=0)
    b = Bench(a.bench)
    cfg = AtomRecConfig()
    cases = b.cases('test')
    users = None if a.community == 'all' else sorted(cases.user_id)[:a.users]
    frame = memory_frame(b, 'test', users, cfg.max_history)
    if a.max_notes: frame = frame.iloc[:a.max_notes]
    if users is not None: cases = cases[cases.user_id.isin(set(users))]
    name = b.manifest['source']['name'] if isinstance(b.manifest.get('source'), dict) else Path(a.bench).name
    load0, t_start = os.getloadavg()[0], time.time()

    # the reference: the encoder alone, one pass over each note's full text (what the paper's f_enc(c+K+G+X) costs per note)
    enc_ref = Encoder()
    probe = AtomRec(cfg, items=b.items, encoder=enc_ref, progress=False)
    texts = [probe._content(str(r.item_id), getattr(r, 'rating', None), getattr(r, 'review', None)) for r in frame.itertuples()]
    probe.close()
    t = time.perf_counter(); enc_ref.encode(texts); t_enc = time.perf_counter() - t
    n = len(frame)

    # AtomRec, cold encoder cache: item notes, then user notes with linking and evolution, timed slice by slice
    with tempfile.TemporaryDirectory() as d:
        ar = AtomRec(cfg, path=Path(d)/'memory', items=b.items, encoder=Encoder(), progress=False, batch=a.batch)
        t = time.perf_counter()
        ar.add_items(list(dict.fromkeys(list(frame.item_id) + [c for cs in cases.candidates for c in cs])))
        t_items = time.perf_counter() - t
        curve, t_build = [], 0.0
        for s in range(0, n, a.slice):
            part = frame.iloc[s:s + a.slice]
            t = time.perf_counter(); ar.observe_many(part, progress=False); dt = time.perf_counter() - t
            t_build += dt; curve.append((len(ar.store.ids('user')), len(ar.store), len(part) / dt))
            print(f"  {curve[-1][0]:>8,} user notes ({curve[-1][1]:,} in memory): {curve[-1][2]:7.1f} notes/s", flush=True)
        # recommend, one case at a time (query encoding included; each query is new text for the encoder)
        qc = cases.head(a.queries)
        lat, qref = [], []
        for r in qc.itertuples():
            t = time.perf_counter(); ar.recommend(r.user_id, r.candidates, r.instruction); lat.append(time.perf_counter() - t)
        qenc = Encoder(); qenc.encode_queries(['warm up'])
        for r in qc.itertuples():   # the encoder alone on the same query texts, as recommend encodes them (a fresh encoder: nothing cached)
            q = ar.query_text(r.user_id, r.instruction)
            t = time.perf_counter(); qenc.encode_queries([q]); qref.append(time.perf_counter() - t)
        lat, qref = np.array(lat) * 1000, np.array(qref) * 1000
        rc = cases.head(a.rank)
        t = time.perf_counter(); recs = ar.recommend_many(rc); t_rank = time.perf_counter() - t
        t = time.perf_counter(); Encoder().encode_queries([ar.query_text(u, i) for u, i in zip(rc.user_id, rc.instruction)]); t_rank_ref = time.perf_counter() - t
        stats = dict(ar.stats); n_notes, n_user = len(ar.store), len(ar.store.ids('user'))
        enc_repr = repr(ar.enc)
        ar.close()

    def at(k):   # throughput of the slice that contains the k-th user note
        for u, _, v in curve:
            if u >= k: return v
        return None
    th10, th150 = at(10_000), at(150_000)
    rows = [
        ('encoder only: full note texts', f"{n / t_enc:,.1f} texts/s", '1.00x (reference)'),
        (f'AtomRec write path (construct+link+evolve, cold cache), {n:,} notes', f"{n / t_build:,.1f} notes/s in {t_build:,.0f} s", f"{(n / t_build) / (n / t_enc):.2f}x"),
        ('item notes (cold cache)', f"{stats.get('item_notes', 0) / max(t_items, 1e-9):,.1f} notes/s in {t_items:,.0f} s", ''),
        ('build, items + users', f"{t_items + t_build:,.0f} s", f"{(t_items + t_build) / t_enc:.1f}x the encoder-only time"),
    ]
    if th10: rows.append(('throughput at 10k user notes', f"{th10:,.1f} notes/s", ''))
    if th150: rows.append(('throughput at 150k user notes', f"{th150:,.1f} notes/s", f"{th10 / th150:.2f}x slower than at 10k" if th10 else ''))
    rep = [f"# Memory speed: {name} ({datetime.date.today().isoformat()})", '',
           f"Data: {b.describe()}; community={a.community}: {frame.user_id.nunique():,} users, {n:,} user notes (max_history={cfg.max_history}); rule agents; batch={a.batch}; exact neighbour search.",
           f"Machine: {os.cpu_count()} cores, python {platform.python_version()}; load average {load0:.2f} at start, {os.getloadavg()[0]:.2f} at end"
           f"{'; no other job' if not a.others else f'; {a.others} other jobs shared the cores (figures are pessimistic)'}.", '',
           '| what | measured | ratio to encoder-only |', '|---|---:|---:|'] + [f"| {a_} | {b_} | {c_} |" for a_, b_, c_ in rows] + [
           '', f"Memory: {n_notes:,} notes ({n_user:,} user notes), {stats.get('links', 0):,} links, {stats.get('evolutions', 0):,} revisions, "
               f"{stats.get('rescans', 0):,} notes re-searched alone; encoder: {enc_repr}", '',
           '| read path | p50 | p95 | mean | encoder-only reference |', '|---|---:|---:|---:|---:|',
           f"| recommend, one case ({len(lat)} cases), ms | {np.percentile(lat, 50):.1f} | {np.percentile(lat, 95):.1f} | {lat.mean():.1f} | "
           f"encode the query alone: p50 {np.percentile(qref, 50):.1f} ms ({np.percentile(lat, 50) / np.percentile(qref, 50):.1f}x) |",
           f"| {len(rc):,} cases through recommend_many (a run's rank), s | | | {t_rank:.1f} | encode the {len(rc):,} queries: {t_rank_ref:.1f} s ({t_rank / t_rank_ref:.1f}x) |", '',
           f"Peak memory of the process (max RSS): {peak_mb():,.0f} MB. Wall time of the benchmark: {time.time() - t_start:,.0f} s.", '']
    txt = '\n'.join(rep)
    print(txt)
    out = ROOT/'bench'/'results'; out.mkdir(parents=True, exist_ok=True)
    (out/f'memory_speed-{name}.md').write_text(txt)
    import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([c[0] for c in curve], [c[2] for c in curve], marker='o')
    ax.axhline(n / t_enc, ls='--', c='gray', label='encoder only (full note texts)')
    ax.set_xlabel('user notes in memory'); ax.set_ylabel('notes/s (slice of %s)' % f"{a.slice:,}")
    ax.set_title(f"AtomRec write path, {name}, community={a.community}"); ax.set_ylim(bottom=0); ax.legend(); fig.tight_layout()
    fig.savefig(out/f'memory_speed-{name}.png', dpi=120)

if __name__ == '__main__': main()
