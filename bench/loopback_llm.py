"""A loopback OpenAI-compatible model for the LLM benchmarks: every call answered after a fixed latency with a plausible answer
made of words of its own prompt (so every new keyword, tag and context is new text the encoder must embed), optionally with
scripted faults (429, 500, truncated JSON). Usage is counted as the characters of the messages and of the answer, divided by 4.

    python bench/loopback_llm.py --latency 0.5 --faults 0.3 --port 0     # prints {"base_url": ...} once serving
"""
import argparse, json, random, sys, threading, time
from atomrec.llm.testing import ScriptedServer, Reply, plausible_reply

def loopback_handler(latency:float=0.5, # seconds before every answer
                     faults:float=0.0, # share of calls answered with a fault instead (429, 500 or truncated JSON, in turn)
                     seed:int=0, # seed of the fault draws
                    ):
    "A `ScriptedServer` handler: plausible answers after `latency` s, a share `faults` of calls failing."
    rng, lock, n = random.Random(seed), threading.Lock(), [0]
    def answer(req):
        with lock: bad = rng.random() < faults; n[0] += 1; k = n[0]
        chars = sum(len(m.get('content') or '') for m in req['messages'])
        if bad:
            kind = k % 3
            if kind == 0: return Reply.error(429, 'rate limited (scripted)', retry_after=0.2, delay=latency / 5)
            if kind == 1: return Reply.error(500, 'server error (scripted)', delay=latency / 5)
            r = plausible_reply(req); r.content = r.content[:max(1, len(r.content) // 2)]   # cut short, as a model stopped mid-answer
        else: r = plausible_reply(req)
        r.delay, r.prompt_tokens, r.completion_tokens = latency, chars // 4, len(r.content or '') // 4
        return r
    return answer

if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--latency', type=float, default=0.5, help='seconds before every answer')
    p.add_argument('--faults', type=float, default=0.0, help='share of calls answered with a fault (429, 500, truncated JSON)')
    p.add_argument('--seed', type=int, default=0, help='seed of the fault draws')
    a = p.parse_args()
    srv = ScriptedServer(handler=loopback_handler(a.latency, a.faults, a.seed), model='loopback').start()
    print(json.dumps(dict(base_url=srv.base_url)), flush=True)
    try:
        while True:
            time.sleep(5)
            print(json.dumps(dict(calls=srv.n, max_inflight=srv.max_inflight)), file=sys.stderr, flush=True)
    except KeyboardInterrupt: srv.stop()
