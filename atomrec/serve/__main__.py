"`python -m atomrec.serve MEMORY_DIR [flags]`: the same as `atomrec serve`."
from atomrec.serve.command import serve

if __name__ == '__main__': serve()
