"""Runs PyPI `ubpe` 0.3.0 on a job read from stdin and prints what it made, as JSON.

Run by .venv-ubpe's CPython >= 3.12 (see scripts/ubpe_venv.sh) for the parity tests
(tests/parity/test_ubpe_parity.py, backend `native`, the oracle) and benchmarks/bench_ubpe.py
(backend `cython`).  The job: {"backend", "models": [{"cls", "alphabet", "symbols": "str"|"int",
"n_tokens", "fit_kwargs", "init_kwargs", "corpus", "docs", "top_n": [..], "load": [dump, ..]}]}.
Documents of int symbols arrive as lists.  ubpe-cython has a class per symbol type and its
`loads` takes no type.  For each model it prints the dump, the encodings
of `docs` per top_n, the seconds fit and encode took (thread CPU time), and for each dump in
`load` the encodings by the model `loads` made from it.
"""

import importlib
import json
import sys
import time


def encode_all(model, cls, docs, top_ns):
    out = {}
    for n in top_ns:
        t0 = time.thread_time()
        if cls == "UBPE":
            out[str(n)] = [model.encode(d, top_n=n) for d in docs]
        else:
            out[str(n)] = [model.encode(d) for d in docs]
        out[f"seconds_{n}"] = time.thread_time() - t0
    return out


def main() -> None:
    job = json.load(sys.stdin)
    lib = importlib.import_module("ubpe_" + job["backend"])
    results = []
    for spec in job["models"]:
        token_type = int if spec["symbols"] == "int" else str
        cls = getattr(lib, spec["cls"])
        alphabet = spec["alphabet"]
        if isinstance(cls, dict):  # ubpe-cython: one class per symbol type, alphabets as dicts
            cls = cls[token_type]
            alphabet = {s: i for i, s in enumerate(alphabet)}
        res = {}
        if spec.get("corpus") is not None:
            model = cls(alphabet=alphabet, n_tokens=spec["n_tokens"], **spec.get("init_kwargs", {}))
            t0 = time.thread_time()
            model.fit(spec["corpus"], quiet=True, **spec.get("fit_kwargs", {}))
            res["fit_seconds"] = time.thread_time() - t0
            res["dump"] = model.dumps()
            res["encodings"] = encode_all(model, spec["cls"], spec.get("docs", []), spec.get("top_n", [1]))
        res["loaded"] = []
        for dump in spec.get("load", []):
            model = cls.loads(dump) if job["backend"] == "cython" else cls.loads(dump, token_type)
            res["loaded"].append(encode_all(model, spec["cls"], spec.get("docs", []), spec.get("top_n", [1])))
        results.append(res)
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
