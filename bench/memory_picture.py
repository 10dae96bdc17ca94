"""The README's picture: a small memory the library builds offline from ml-100k (rule agents, the packaged encoder),
one user's notes, the notes they link to, and the evidence path to the item AtomRec ranked first for them.

Run: `.venv/bin/python bench/memory_picture.py [--users 20] [--last 15] [--out runs/picture]`
Prepares ml-100k (USERS test users sampled with seed 0, intent requests) into OUT/bench, writes the last LAST training
interactions of each of those users into a memory in OUT/memory, and takes the first of them (by id) whose target
AtomRec ranks first and reaches through another user's notes. Writes bench/results/figures/memory.png and
bench/results/memory.md (what was built and found). The memory stays in OUT/memory: `atomrec serve OUT/memory` serves it.
"""
import sys, time, argparse, platform, json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from atomrec.eval.benchmark import Bench, prepare
from atomrec.memory import AtomRec
from atomrec.core import AtomRecConfig
from atomrec.eval.results import memory_graph, memory_figure

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--users', type=int, default=20, help='test users sampled from ml-100k (seed 0); their histories make the memory')
    ap.add_argument('--last', type=int, default=15, help="each user's most recent training interactions written")
    ap.add_argument('--out', default=str(ROOT/'runs'/'picture'), help='folder for the benchmark and the memory')
    ap.add_argument('--results', default=str(ROOT/'bench'/'results'), help='where memory.md and figures/memory.png go')
    a = ap.parse_args()
    t0, out, res = time.time(), Path(a.out), Path(a.results)
    prepare('ml-100k', out/'bench', users=a.users, seed=0, instructions='intent', progress=False)
    bench = Bench(out/'bench'); cases = bench.cases('test').set_index('user_id')
    users = sorted(map(str, cases.index))
    train = bench.train('test'); train = train[train.user_id.astype(str).isin(users)]
    train = train.sort_values(['timestamp', 'user_id', 'item_id']).groupby('user_id').tail(a.last)
    ar = AtomRec(AtomRecConfig(), path=out/'memory', items=bench.items, progress=False, overwrite=True)
    ar.observe_many(train)
    notes = ar.notes(); built = time.time() - t0
    chosen = None
    for u in users:
        c = cases.loc[u]; rec = ar.recommend(u, list(c.candidates), c.instruction)
        t = str(c.target); walks = [p for p in rec.paths.get(t, []) if any(not n.startswith(f'u:{u}:') and n.startswith('u:') for n in p['nodes'])]
        if str(rec.ranking[0]) == t and walks: chosen = (u, c, rec, t); break
    if chosen is None: sys.exit('no user fits the rule: try more --users')
    u, c, rec, t = chosen
    title = lambda i: str(bench.items.set_index('item_id').title.get(i, i)) if 'title' in bench.items else i
    G = memory_graph(ar, u, rec.paths[t], t)
    fig = memory_figure(G, f"ml-100k: {len(users)} users' last {a.last} interactions, {len(notes):,} notes (rule agents). "
                           f"User {u} asks: \"{c.instruction}\"\nAtomRec ranks \"{title(t)}\" first of {len(c.candidates)} candidates "
                           f"(it is the held-out target); in red, the evidence path that reached it", res/'figures'/'memory.png')
    links = int(notes.links.map(len).sum()) if 'links' in notes else None
    by_kind = notes.kind.value_counts().to_dict()
    def path_text(p):
        lab = lambda i: G.nodes[i]['label'] if i in G else i
        return ' → '.join([f"{lab(p['nodes'][0])}"] + [f"({r}) {lab(n)}" for r, n in zip(p['relations'], p['nodes'][1:])])
    md = [f"# The README's picture: a small memory",
          f"`python bench/memory_picture.py --users {a.users} --last {a.last}` ({time.strftime('%Y-%m-%d')}; {platform.python_version()}, "
          f"built and searched in {built:.0f} s on 2 cores).",
          f"Data: ml-100k from the data path; {len(users)} test users sampled with seed 0 (`atomrec prepare ml-100k --users {a.users} --seed 0 "
          f"--instructions intent`); each user's last {a.last} training interactions ({len(train):,} in all) written by the rule memory agent "
          f"with the paper's defaults (k_link 20, tau_evo 0.7, hops 2, k_ret 15) and the packaged encoder: "
          f"{by_kind.get('user', 0):,} user notes, {by_kind.get('item', 0):,} item notes" + (f", {links:,} links." if links is not None else '.'),
          f"Rule: the first user (by id) whose held-out target AtomRec (rule rank agent) ranks first and reaches by a path through "
          f"another user's notes. User **{u}**, request \"{c.instruction}\", target **{title(t)}** (item {t}); "
          f"ranking: {', '.join(map(str, rec.ranking))}.",
          "Evidence paths to the target:", *[f"- {p['kind']} (score {p['score']}): {path_text(p)}" for p in rec.paths[t]],
          f"The figure draws the user's {min(4, len(ar.store.notes_of(u, kind='user')))} most recent notes, the first two links of each, and these paths: "
          f"{G.number_of_nodes()} notes, {G.number_of_edges()} links. Figure: `figures/memory.png`. The memory is in `{out.name}/memory` under the run root; "
          f"`atomrec serve` serves it."]
    (res/'memory.md').write_text('\n\n'.join(md) + '\n')
    print('\n\n'.join(md))
    ar.close()

if __name__ == '__main__': main()
