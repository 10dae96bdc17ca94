"""A loopback OpenAI-compatible model for the LLM benchmarks (`atomrec.llm.testing.loopback_handler`): every call answered after a
fixed latency with a plausible answer made of words of its own prompt (so every new keyword, tag and context is new text the encoder
must embed), optionally with scripted faults (429, 500, truncated JSON); usage counted as characters / 4.

    python bench/loopback_llm.py --latency 0.5 --faults 0.3     # prints {"base_url": ...} once serving
"""
import argparse, json, sys, time
from atomrec.llm.testing import ScriptedServer, loopback_handler

if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--latency', type=float, default=0.5, help='seconds before every answer')
    p.add_argument('--faults', type=float, default=0.0, help='share of calls answered with a fault (429, 500, truncated JSON)')
    p.add_argument('--seed', type=int, default=0, help='seed of the fault draws')
    p.add_argument('--port', type=int, default=0, help='port on 127.0.0.1 (0: any free one)')
    a = p.parse_args()
    srv = ScriptedServer(handler=loopback_handler(a.latency, a.faults, a.seed), model='loopback').start(a.port)
    print(json.dumps(dict(base_url=srv.base_url)), flush=True)
    try:
        while True:
            time.sleep(5)
            print(json.dumps(dict(calls=srv.n, max_inflight=srv.max_inflight)), file=sys.stderr, flush=True)
    except KeyboardInterrupt: srv.stop()
