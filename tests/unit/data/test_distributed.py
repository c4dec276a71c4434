"""Ray Data and HF datasets, for real: a local Ray cluster of 2 CPUs and a small local
``datasets`` dataset with 2 processes; ids as tiktoken's encode_ordinary row by row.
Skipped with a reason when the extra is missing, except under CI=true (then it fails)."""

from __future__ import annotations

import os
import pickle

import pytest
from _shared import corpus_sample, need_extra, need_shared
from _tiktoken_refs import pair

from tokenforge.data import EncodingRef, RayEncoder, hf_encode, ray_encode


def texts() -> list[str]:
    need_shared()
    lines = corpus_sample("multi", 300_000).split("\n")
    return ["\n".join(lines[k:k + 7]) for k in range(0, len(lines), 7)] + ["", "\ud800"]


def test_mappers_pickle_by_name():
    need_shared()
    ours, _ = pair("cl100k_base")
    m = RayEncoder(ours)
    assert m.ref == EncodingRef("cl100k_base")
    m.encoder  # loaded ...
    blob = pickle.dumps(m)
    assert len(blob) < 1000  # ... but not shipped: the name is
    assert pickle.loads(blob)(  # and loaded again where it lands
        {"text": __import__("numpy").array(["hi there"], dtype=object)})["num_tokens"].tolist() == [2]
    # The registry's encodings pickle as their name (as tiktoken's), others as their tables.
    assert len(pickle.dumps(ours)) < 100 and pickle.loads(pickle.dumps(ours)).encode("hi") == ours.encode("hi")
    import tokenforge

    mine = tokenforge.Encoding("cl100k_base", pat_str=ours._pat_str, mergeable_ranks=dict(list(ours._mergeable_ranks.items())[:300]),
                               special_tokens={})
    assert RayEncoder(mine).ref is mine and len(pickle.dumps(mine)) > 1000


def test_ray_data_map_batches():
    ray = need_extra("ray", "ray")
    need_extra("ray.data", "ray")
    _, ref = pair("o200k_base")
    docs = texts()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"TOKENFORGE_MODELS_DIR": os.environ["TOKENFORGE_MODELS_DIR"]}})
    try:
        ds = ray.data.from_items([{"row": i, "text": t} for i, t in enumerate(docs)], override_num_blocks=8)
        rows = ray_encode(ds, "o200k_base", concurrency=2, batch_size=64).take_all()
        eot_rows = ray_encode(ds, "o200k_base", eot=199999, batch_size=64).take_all()
    finally:
        ray.shutdown()
    assert sorted(r["row"] for r in rows) == list(range(len(docs)))
    for r in rows:
        expected = ref.encode_ordinary(docs[r["row"]])
        assert r["tokens"].tolist() == expected and r["num_tokens"] == len(expected)
    assert all(r["tokens"].tolist() == ref.encode_ordinary(docs[r["row"]]) + [199999] for r in eot_rows)


def test_hf_datasets_map_num_proc(tmp_path):
    datasets = need_extra("datasets", "datasets")
    _, ref = pair("cl100k_base")
    docs = texts()[:-1]  # Arrow strings cannot hold a lone surrogate
    ds = datasets.Dataset.from_dict({"text": docs})
    out = hf_encode(ds, "cl100k_base", num_proc=2, batch_size=100, cache_file_name=str(tmp_path / "cache.arrow"))
    assert out["input_ids"] == [ref.encode_ordinary(t) for t in docs]
    assert out["num_tokens"] == [len(ref.encode_ordinary(t)) for t in docs]
