"""A real MCP session with AtomRec, for the docs page `nbs/details/78_mcp`: the service on a small ml-100k memory, its
MCP tools at /mcp (streamable HTTP, one user's key), the SDK's own client, and every JSON-RPC message on the wire.

Run: `.venv/bin/python bench/mcp_session.py [--users 20] [--last 15] [--out runs/mcp]`
Prepares ml-100k (USERS test users sampled with seed 0, intent requests) into OUT/bench and creates a memory in
OUT/memory with every item's note. The other users' last LAST training interactions go in over REST with an admin key
(the community); then, over MCP with a key scoped to the first user: tools/list, `remember` (that user's last LAST
interactions), `recommend` (the user's ten test candidates and request, reading its own write), and `explain` of the
first. The same recommend over REST must give the same answer. Writes bench/results/mcp_session.md (the transcript,
long answers cut where marked) and prints the per-call latency of recommend over MCP and over REST.
"""
import sys, time, json, argparse, platform, statistics, tempfile
from pathlib import Path
import anyio, httpx, httpx2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from atomrec.eval.benchmark import Bench, prepare
from atomrec.serve.app import Service, open_memory, start
from atomrec.serve.keys import Key, ADMIN

def cut(x, most:int=3):
    "`x` with long lists and dicts cut to their first `most` entries, long texts to their first 300 characters (each saying how much was left out)."
    if isinstance(x, str) and len(x) > 300: return x[:300] + f'... ({len(x):,} characters)'
    if isinstance(x, list): return [cut(v, most) for v in x[:most]] + ([f'... {len(x) - most} more'] if len(x) > most else [])
    if isinstance(x, dict):
        ks = list(x)
        return {k: cut(x[k], most) for k in ks[:max(most, 8)]} | ({'...': f'{len(ks) - max(most, 8)} more'} if len(ks) > max(most, 8) else {})
    return x

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--users', type=int, default=20, help='test users sampled from ml-100k (seed 0); their histories make the memory')
    ap.add_argument('--last', type=int, default=15, help="each user's most recent training interactions written")
    ap.add_argument('--out', default=str(ROOT/'runs'/'mcp'), help='folder for the benchmark and the memory (the memory is made anew)')
    ap.add_argument('--results', default=str(ROOT/'bench'/'results'), help='where mcp_session.md goes')
    ap.add_argument('--repeat', type=int, default=20, help='recommend calls timed over each face')
    a = ap.parse_args()
    out, t0 = Path(a.out), time.time()
    prepare('ml-100k', out/'bench', users=a.users, seed=0, instructions='intent', progress=False)
    bench = Bench(out/'bench'); cases = bench.cases('test').set_index('user_id')
    users = sorted(map(str, cases.index)); me = users[0]; case = cases.loc[me]
    train = bench.train('test'); train = train[train.user_id.astype(str).isin(users)]
    train = train.sort_values(['timestamp', 'user_id', 'item_id']).groupby('user_id').tail(a.last)
    ev = lambda r: dict(id=f'{r.user_id}-{r.item_id}', user=str(r.user_id), item=str(r.item_id), timestamp=float(r.timestamp), rating=float(r.rating))
    items = tempfile.NamedTemporaryFile(suffix='.parquet', delete=False).name; bench.items.to_parquet(items)
    import shutil; shutil.rmtree(out/'memory', ignore_errors=True)
    user_key, admin_key = f'key-{me}-' + 'x' * 16, 'key-admin-' + 'y' * 16
    svc = Service(open_memory(out/'memory', items=items), {user_key: Key(me, frozenset({me})), admin_key: ADMIN}, writer='thread')
    server, url = start(svc, mcp=True)
    try:
        H = lambda k: {'Authorization': f'Bearer {k}'}
        others = [ev(r) for r in train[train.user_id.astype(str) != me].itertuples()]
        v = httpx.post(f'{url}/v1/events', json=dict(events=others), headers=H(admin_key), timeout=120).json()['accepted_version']
        assert svc.wait_for(v, 600), 'the community was not written in 10 minutes'
        built = time.time() - t0
        mine = [ev(r) for r in train[train.user_id.astype(str) == me].itertuples()]
        wire = []
        async def log_request(r): wire.append(('->', json.loads(r.content)))
        async def log_response(r): await r.aread(); wire.append(('<-', json.loads(r.content) if r.content else None))
        ask = dict(user=me, candidates=[str(x) for x in case.candidates], request=case.instruction)
        async def session():
            async with httpx2.AsyncClient(headers=H(user_key), timeout=120, event_hooks=dict(request=[log_request], response=[log_response])) as h:
                async with Client(streamable_http_client(f'{url}/mcp', http_client=h)) as c:
                    tools = (await c.list_tools()).tools
                    rem = (await c.call_tool('remember', dict(events=mine))).structured_content
                    rec = (await c.call_tool('recommend', dict(ask, min_version=rem['accepted_version'], wait=30))).structured_content
                    exp = (await c.call_tool('explain', dict(ask, item=rec['ranking'][0]))).structured_content
                    return tools, rem, rec, exp
        tools, rem, rec, exp = anyio.run(session)
        rest = httpx.post(f'{url}/v1/recommend', json=ask, headers=H(user_key), timeout=120).json()
        assert rest == rec, 'MCP and REST disagree'
        async def timed():
            async with httpx2.AsyncClient(headers=H(user_key), timeout=120) as h:
                async with Client(streamable_http_client(f'{url}/mcp', http_client=h)) as c:
                    ts = []
                    for _ in range(a.repeat):
                        s = time.perf_counter(); await c.call_tool('recommend', ask); ts.append(time.perf_counter() - s)
                    return ts
        t_mcp = anyio.run(timed)
        rpc = dict(jsonrpc='2.0', id=1, method='tools/call', params=dict(name='recommend', arguments=ask))   # one JSON-RPC POST, as a client of the 2025 protocol sends it to a stateless server
        wire_headers = H(user_key) | {'Accept': 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18'}
        with httpx.Client(headers=H(user_key), timeout=120) as h:
            t_rest, t_raw = [], []
            for _ in range(a.repeat):
                s = time.perf_counter(); h.post(f'{url}/v1/recommend', json=ask); t_rest.append(time.perf_counter() - s)
                s = time.perf_counter(); raw = h.post(f'{url}/mcp', json=rpc, headers=wire_headers); t_raw.append(time.perf_counter() - s)
            assert raw.json()['result']['structuredContent'] == rest
    finally:
        server.should_exit = True; time.sleep(0.3); svc.close()
    ms = lambda ts: f"median {statistics.median(ts) * 1000:.1f} ms, max {max(ts) * 1000:.1f} ms"
    title = bench.items.set_index('item_id').title.to_dict() if 'title' in bench.items else {}
    top = rec['ranking'][0]
    def show(direction, m):
        if direction == '<-' and isinstance(m, dict) and 'result' in m and 'tools' in m['result']:   # the tool list: each tool's name, hints, required inputs
            m = dict(m, result=dict(tools=[dict(name=t['name'], annotations=t.get('annotations'), inputRequired=t['inputSchema'].get('required'), outputRequired=(t.get('outputSchema') or {}).get('required')) for t in m['result']['tools']], **{'...': 'descriptions and full schemas left out'}))
        return f"{direction} {json.dumps(cut(m, 3), indent=1, ensure_ascii=False)}"
    lines = [f"# A real MCP session", "",
             f"`python bench/mcp_session.py --users {a.users} --last {a.last}` ({time.strftime('%Y-%m-%d')}; Python {platform.python_version()}, "
             f"the community written in {built:.0f} s on 2 shared cores).", "",
             f"Memory: ml-100k, {len(users)} test users sampled with seed 0; the last {a.last} training interactions of the other {len(users) - 1} users "
             f"went in over REST with an admin key ({len(others)} events, rule agents, the packaged encoder); then the SDK's client (`mcp.Client` over "
             f"streamable HTTP at `/mcp`) with a key scoped to user {me}: the tool list, `remember` of user {me}'s last {len(mine)} interactions, "
             f"`recommend` of their ten test candidates for the request \"{case.instruction}\" (reading its own write: `min_version`), and `explain` of the first. "
             f"The same recommend over REST gave the same answer, value for value.", "",
             f"Ranked first: item {top} ({title.get(top, top)}); the held-out target was {case.target} ({title.get(str(case.target), case.target)}), "
             f"ranked {rec['ranking'].index(str(case.target)) + 1 if str(case.target) in rec['ranking'] else 'not'} of {len(rec['ranking'])}.", "",
             f"Recommend, {a.repeat} calls each, one client, the same request: over MCP with the SDK's client {ms(t_mcp)}; the same tool call as one "
             f"JSON-RPC POST with httpx (no SDK on the client side) {ms(t_raw)}; over REST {ms(t_rest)}.", "",
             "Every JSON-RPC message on the wire (`->` client to server, `<-` back), as the SDK's client sent and received them; lists and objects "
             "cut to their first entries where marked `...`:", "", "```text"]
    lines += [show(d, m) for d, m in wire] + ["```", ""]
    lines += [f"The evidence paths behind item {top}, whole (`explain`):", "", "```json", json.dumps(exp['paths'], indent=1, ensure_ascii=False), "```", ""]
    Path(a.results, 'mcp_session.md').write_text('\n'.join(lines))
    print(json.dumps(dict(user=me, top=top, target=str(case.target), mcp=ms(t_mcp), raw=ms(t_raw), rest=ms(t_rest), messages=len(wire))))

if __name__ == '__main__': main()
