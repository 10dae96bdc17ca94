"""Fetch MovieLens 100K into data/ml-100k from the recbole==1.2.1 wheel on PyPI (no other network).

Usage: python data/fetch_ml100k.py [DEST]   (DEST defaults to this folder)
"""
import sys
from pathlib import Path
from atomrec.eval.data import fetch_ml100k

if __name__ == '__main__':
    dest = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    print(fetch_ml100k(dest))
