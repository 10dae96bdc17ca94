"""Memory speed: AtomRec's write path against encoder-only throughput on the same texts, and recommend latency.

Run: `.venv/bin/python bench/memory_speed.py [BENCH] [--users N]`
(BENCH: a prepared benchmark folder; default: prepares ml-100k into runs/bench/ml-100k).
All figures come from one run on this machine and are reported as ratios against a reference measured
in the same run. Prints a markdown report and writes it to bench/results/memory_speed.md.
"""
import os, sys, time, argparse, platform, datetime, tempfile
from pathlib import Path
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from atomrec.benchmark import Bench, prepare
from atomrec.encoder import Encoder
from atomrec.memory import AtomRec, NoteEmbedder, memory_frame
from atomrec.core import AtomRecConfig

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('bench', nargs='?', default=str(ROOT/'runs'/'bench'/'ml-100k'))
    ap.add_argument('--users', type=int, default=100)
    ap.add_argument('--queries', type=int, default=200)
    a = ap.parse_args()
    if not (Path(a.bench)/'manifest.json').exists(): prepare('ml-100k', a.bench, users=1000, seed=0)
    b = Bench(a.bench)
    cfg = AtomRecConfig()
    users = sorted(b.cases('test').user_id)[:a.users]
    frame = memory_frame(b, 'test', users, cfg.max_history)
    load0 = os.getloadavg()[0]
    # the reference: the encoder alone, one pass over each note's full text (what the paper's f_enc(c+K+G+X) costs per note)
    enc_ref = Encoder()
    probe = AtomRec(cfg, items=b.items, encoder=Encoder(), progress=False)
    texts = [probe._content(str(r.item_id), getattr(r, 'rating', None), getattr(r, 'review', None)) for r in frame.itertuples()]
    t = time.perf_counter(); enc_ref.encode(texts); t_enc = time.perf_counter() - t
    # AtomRec, cold encoder cache: item notes + user notes with linking and evolution
    ar = AtomRec(cfg, items=b.items, encoder=Encoder(), progress=False)
    t = time.perf_counter()
    cases = b.cases('test'); cases = cases[cases.user_id.isin(set(users))]
    ar.add_items(list(dict.fromkeys(list(frame.item_id) + [c for cs in cases.candidates for c in cs])))
    t_items = time.perf_counter() - t
    t = time.perf_counter(); ar.observe_many(frame, progress=False); t_build = time.perf_counter() - t
    # recommend latency, one case at a time (query encoding included)
    lat = []
    for r in cases.head(a.queries).itertuples():
        t = time.perf_counter(); ar.recommend(r.user_id, r.candidates, r.instruction); lat.append(time.perf_counter() - t)
    lat = np.array(lat) * 1000
    n = len(frame)
    rows = [
        ('encoder only: full note texts', f"{n / t_enc:,.1f} texts/s", '1.00x (reference)'),
        ('AtomRec write path (construct+link+evolve, cold cache)', f"{n / t_build:,.1f} notes/s", f"{(n / t_build) / (n / t_enc):.2f}x"),
        ('item notes (cold cache)', f"{len(ar.store.ids('item')) / t_items:,.1f} notes/s", ''),
    ]
    rep = [f"# Memory speed ({datetime.date.today().isoformat()})", '',
           f"Data: {b.describe()}; {a.users} users, {n} user notes (max_history={cfg.max_history}); rule agents.",
           f"Machine: {os.cpu_count()} cores, python {platform.python_version()}; load average {load0:.2f} at start, {os.getloadavg()[0]:.2f} at end.", '',
           '| what | throughput | ratio to encoder-only |', '|---|---:|---:|'] + [f"| {a_} | {b_} | {c_} |" for a_, b_, c_ in rows] + [
           '', f"Build stats: {dict(ar.stats)}; encoder: {ar.enc!r}", '',
           '| recommend latency (ms) | p50 | p95 | mean |', '|---|---:|---:|---:|',
           f"| one case, {len(lat)} cases | {np.percentile(lat, 50):.1f} | {np.percentile(lat, 95):.1f} | {lat.mean():.1f} |", '']
    txt = '\n'.join(rep)
    print(txt)
    out = ROOT/'bench'/'results'; out.mkdir(parents=True, exist_ok=True)
    (out/'memory_speed.md').write_text(txt)

if __name__ == '__main__': main()
