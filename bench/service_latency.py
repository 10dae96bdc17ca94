"""A recommendation's latency through the service's own path (`Service.recommend`: the read turn, the ranking, what a user
key may be shown), measured in one process with a key scoped to each case's user, on a finished run's memory.

    python bench/service_latency.py --run RUN --bench BENCH --cases 200 --repeat 3

Run it once per code version on the same run (e.g. with PYTHONPATH pointing at each checkout), alternating, and compare the
medians: it prints one JSON line (median, p90, mean in ms over every call after a warm-up)."""
import argparse, json, time, shutil, tempfile
from pathlib import Path
import numpy as np

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--run', required=True, help='a finished `atomrec run atomrec` folder (memory-test/ and ranker.txt)')
    ap.add_argument('--bench', required=True, help='its benchmark folder')
    ap.add_argument('--cases', type=int, default=200, help='test cases recommended (the first ones)')
    ap.add_argument('--repeat', type=int, default=3, help='passes over the cases (the first call is a warm-up)')
    a = ap.parse_args()
    from atomrec.eval.benchmark import Bench
    from atomrec.serve.app import Service, open_memory, RecommendIn
    from atomrec.serve.keys import Key
    b, run = Bench(a.bench), Path(a.run)
    tmp = Path(tempfile.mkdtemp())/'memory'; shutil.copytree(run/'memory-test', tmp, ignore=shutil.ignore_patterns('.lock'))
    cases = b.cases('test').head(a.cases)
    keys = {f'key-{u}-' + 'x' * 16: Key(str(u), frozenset({str(u)})) for u in cases.user_id}
    by_user = {k.name: k for k in keys.values()}
    svc = Service(open_memory(tmp, ranker=run/'ranker.txt'), keys, writer='thread')
    ask = lambda c: svc.recommend(by_user[str(c.user_id)], RecommendIn(user=str(c.user_id), candidates=[str(x) for x in c.candidates], request=getattr(c, 'instruction', None) or None))
    ask(next(cases.itertuples()))   # warm: the read path's tables, the ranker
    lat = []
    for _ in range(a.repeat):
        for c in cases.itertuples():
            t = time.perf_counter(); ask(c); lat.append(time.perf_counter() - t)
    svc.close()
    ms = np.array(lat) * 1000
    print(json.dumps(dict(calls=len(ms), median_ms=round(float(np.median(ms)), 2), p90_ms=round(float(np.quantile(ms, 0.9)), 2), mean_ms=round(float(ms.mean()), 2))))

if __name__ == '__main__': main()
