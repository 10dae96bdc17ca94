"""The canary check of what crosses between users, on a dataset with real reviews (beauty): one real user's rarest review words
(in no item's text and in no other user's review) must appear nowhere another user's key can read, and, once that user is
forgotten, nowhere any key can read.

    python bench/crossing_canary.py [--data beauty] [--users N] [--out bench/results/crossing_canary-beauty.json]

It serves the dataset (every interaction, with its review text and title; or only `--users N` of its users) on loopback with rule agents and three keys
(admin, user A, user B: B the user whose reviews hold the most words no one else wrote, A the user who rated most of B's items),
then collects everything A's key can read (A's notes and their histories, every item's note and history, recommend with and
without a request and explain, with their paths, facets and notes, /v1/stats) and counts the strings that hold a canary word;
after B is forgotten (with B's key), the admin key reads every user's notes, every item's note and history, and A's all again.
The bench may import the harness (to load the data); the service it checks does not."""
import argparse, json, re, sys, tempfile, time
from collections import Counter, defaultdict
from pathlib import Path
import pandas as pd

def words(text)->list: return [w for w in re.findall(r'[^\W\d_]+', str(text).lower()) if len(w) >= 5]

def places(obj, ws, where=''):
    if isinstance(obj, dict): return [x for k, v in obj.items() for x in places(k, ws, f'{where}/{k}') + places(v, ws, f'{where}/{k}')]
    if isinstance(obj, list): return [x for k, v in enumerate(obj) for x in places(v, ws, f'{where}[{k}]')]
    if isinstance(obj, str):
        found = set(re.findall(r'[^\W\d_]+', obj.lower())) & ws
        return [(where, w) for w in sorted(found)]
    return []

def ingested(c, v:int, # the client (an admin key: `/v1/stats` gives the memory's version) and the version to reach
             bound:float, # seconds to wait in all
             stall:float, # seconds without one more event applied before giving up
            )->int:
    "Wait until the memory has applied every event up to `v` (the writer may take many minutes on loaded cores): poll `/v1/stats`, report progress, give up only after `bound` s, or after `stall` s without progress. Both count the time this process ran: a gap of more than 30 s between two polls (the process was stopped, as a shared machine may stop low-priority jobs) counts 30 s; a poll that times out is asked again."
    import httpx
    awake = last_t = shown = 0.0; prev = t0 = time.monotonic(); last = got = -1
    while True:
        try: got = c.stats()['version']
        except httpx.TimeoutException: pass
        now = time.monotonic(); awake += min(now - prev, 30.0); prev = now
        if got >= v: print(f'ingest: {got} of {v} events applied in {now - t0:.0f} s ({awake:.0f} s running)', flush=True); return got
        if got > last: last, last_t = got, awake
        if awake > bound or awake - last_t > stall:
            raise TimeoutError(f'the memory holds events up to {got} of {v} after {awake:.0f} s running ({awake - last_t:.0f} s without progress): pass a larger --ingest-timeout or --stall-timeout')
        if awake - shown >= 60: print(f'ingest: {got} of {v} events applied after {now - t0:.0f} s ({awake:.0f} s running)', flush=True); shown = awake
        time.sleep(2)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--data', default='beauty', help='a dataset with review text (RecBole atomic files with review_text)')
    ap.add_argument('--canaries', type=int, default=20, help="how many of the user's rarest words to look for (and as many of the words their notes' keywords hold)")
    ap.add_argument('--out', default=None, help='JSON report to write')
    ap.add_argument('--ingest-timeout', type=float, default=4 * 3600, help='seconds to wait for the writer to apply every event')
    ap.add_argument('--stall-timeout', type=float, default=900, help='seconds without one more event applied before giving up')
    ap.add_argument('--users', type=int, default=0, help='serve only B, A and the users sharing most items with B, this many in all (0: every user)')
    a = ap.parse_args()
    from atomrec.eval.data import load_dataset
    from atomrec.serve.app import Service, Key, ADMIN, open_memory, start
    from atomrec.serve.client import Client, ServiceError
    con = load_dataset(a.data)
    items = con.sql('select * from items').df(); inter = con.sql('select * from interactions order by timestamp, line').df()
    public = {w for c in items.columns if not pd.api.types.is_numeric_dtype(items[c]) for t in items[c] for w in words(t)}   # text columns of any dtype (pandas' `str` is not `object`)
    review = lambda r: f"{r.review_title or ''} {r.review_text or ''}"
    users_of = defaultdict(set)
    for r in inter.itertuples():
        for w in words(review(r)): users_of[w].add(r.user_id)
    only = defaultdict(Counter)   # user -> their words no one else wrote and no item holds, with counts
    for r in inter.itertuples():
        for w in words(review(r)):
            if w not in public and len(users_of[w]) == 1: only[r.user_id][w] += 1
    B = max(only, key=lambda u: (len(only[u]), u))
    canary = set(w for w, _ in sorted(only[B].items(), key=lambda x: (x[1], x[0]))[:a.canaries])   # the rarest first
    b_items = set(inter.item_id[inter.user_id == B])
    shared = lambda u: (len(b_items & set(inter.item_id[inter.user_id == u])), (inter.user_id == u).sum(), u)
    A = max((u for u in inter.user_id.unique() if u != B), key=shared)
    n_users = inter.user_id.nunique()
    if a.users and a.users < n_users:   # B, A and the users who share most items with B (B's words are still only B's in the whole data)
        keep = {B, A} | set(sorted((u for u in inter.user_id.unique() if u not in (B, A)), key=shared, reverse=True)[:max(0, a.users - 2)])
        inter = inter[inter.user_id.isin(keep)].reset_index(drop=True)
    print(f'serving {inter.user_id.nunique()} of {n_users} users ({len(inter)} interactions)', flush=True)
    print(f'B = {B} ({(inter.user_id == B).sum()} reviews, {len(only[B])} words only they wrote); A = {A} ({len(b_items & set(inter.item_id[inter.user_id == A]))} items in common)', flush=True)
    print('canaries:', sorted(canary), flush=True)
    d = Path(tempfile.mkdtemp())
    items.assign(item_id=items.item_id.astype(str)).to_parquet(d/'items.parquet')
    keys = {'admin-key-0000000000': ADMIN, 'user-a-key-000000000': Key('A', frozenset({A})), 'user-b-key-000000000': Key('B', frozenset({B}))}
    svc = Service(open_memory(d/'mem', d/'items.parquet'), keys)
    server, url = start(svc)
    ids = items.item_id.astype(str).tolist()
    cands = sorted(b_items)[:5] + [i for i in ids if i not in b_items][:5]
    def readable(c, user, all_items=True, deep=True):
        out = []
        def get(name, f, *x):
            try: out.append((name, f(*x)))
            except ServiceError as e: out.append((f'{name} [{e.status}]', e.body))
        try: notes = c.notes(user)['notes']
        except ServiceError: notes = []
        out.append(('notes', notes))
        for n in (notes if deep else []): get(f"note {n['id']}", c.note, n['id'])
        for i in (ids if all_items else []): get(f'note item:{i}', c.note, f'item:{i}')
        if notes and deep:
            get('recommend', c.recommend, user, cands); get('recommend with a request', c.recommend, user, cands, 'a gentle moisturizer for dry skin')
            for i in cands: get(f'explain {i}', c.explain, user, i, cands)
        get('stats', c.stats)
        return out
    import atomrec, subprocess
    git = lambda *x: subprocess.run(['git', '--no-optional-locks', '-C', str(Path(atomrec.__file__).parent), *x], capture_output=True, text=True).stdout.strip()
    rep = dict(data=a.data, users=inter.user_id.nunique(), interactions=len(inter), code=git('rev-parse', '--short', 'HEAD') + ('+changes' if git('status', '--porcelain', '--untracked-files=no') else ''),
               A=A, B=B, canaries=sorted(canary))
    t0 = time.time()
    try:
        evs = [dict(id=f'e{k}', user=str(r.user_id), item=str(r.item_id), timestamp=float(r.timestamp), rating=float(r.rating), review=str(r.review_text or '')[:10_000],
                    **({'extra': {'review_title': str(r.review_title)[:1000]}} if r.review_title else {})) for k, r in enumerate(inter.itertuples())]
        with Client(url, 'admin-key-0000000000', timeout=3600) as c:
            for k in range(0, len(evs), 500): v = c.add(evs[k:k + 500])['accepted_version']
            rep['events'] = v
            ingested(c, v, a.ingest_timeout, a.stall_timeout)
            c.recommend(A, cands, min_version=v, wait=30)
        rep['ingest_s'] = round(time.time() - t0, 1)
        with Client(url, 'user-b-key-000000000', timeout=3600) as c:   # the second set: B's words that their notes' keywords, tags and contexts hold (what evolution would copy)
            kw = Counter(w for n in c.notes(B)['notes'] for t in [*n.get('keywords', []), *n.get('tags', []), n.get('context', '')] for w in words(t) if w in only[B])
            canary_kw = set(w for w, _ in sorted(kw.items(), key=lambda x: (-x[1], x[0]))[:a.canaries])
            rep['canaries_keywords'] = sorted(canary_kw); print('canaries from their notes\' keywords:', sorted(canary_kw), flush=True)
            both = canary | canary_kw
            mine = [w for _, x in readable(c, B, False) for _, w in places(x, both)]
            rep['b_reads_own'] = sum(w in canary for w in mine); rep['b_reads_own_keywords'] = sum(w in canary_kw for w in mine)
        with Client(url, 'user-a-key-000000000', timeout=3600) as c: leaks = [(n, p, w) for n, x in readable(c, A) for p, w in places(x, both)]
        rep['a_reads'] = sum(w in canary for *_, w in leaks); rep['a_reads_keywords'] = sum(w in canary_kw for *_, w in leaks)
        rep['a_examples'] = leaks[:10]; rep['a_where'] = dict(Counter(n.split(' ')[0] for n, _, _ in leaks))
        with Client(url, 'user-b-key-000000000', timeout=3600) as c: f = c.forget(B)
        rep['forget'] = dict(notes=len(f['notes']), revised=len(f['revised']), reverted=len(f.get('reverted', [])))
        after = []
        with Client(url, 'admin-key-0000000000', timeout=3600) as c:
            for k, u in enumerate(sorted(inter.user_id.unique())):
                after += [(u, n, p, w) for n, x in readable(c, u, all_items=(k == 0), deep=(u == A)) for p, w in places(x, both)]   # every user's notes; A's history, recommendations and explanations too
        rep['after_forget_any_key'] = sum(w in canary for *_, w in after); rep['after_forget_any_key_keywords'] = sum(w in canary_kw for *_, w in after)
        rep['after_examples'] = after[:10]
    finally:
        server.should_exit = True; time.sleep(0.3); svc.close()
    print(json.dumps({k: v for k, v in rep.items() if 'examples' not in k}), flush=True)
    for x in rep.get('a_examples', [])[:5] + rep.get('after_examples', [])[:5]: print('  ', x)
    if a.out: Path(a.out).write_text(json.dumps(rep, indent=1, default=str) + '\n')

if __name__ == '__main__': main()
