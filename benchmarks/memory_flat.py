"""Resident memory over many calls of each encode/decode entry point (issue 32, item 4).

Per entry point: RSS after a warm-up (the bounded piece caches fill), the peak over the
calls and RSS at the end; a leak shows as growth that goes on with the number of calls
(`per call` column: bytes of growth per call).  Error paths (a disallowed special, an unknown
id, a piece missing from the vocabulary) are entry points too: a reference lost on an
exception path leaks there.  cl100k_base, Llama 2's SentencePiece BPE model and botchan's
Unigram model (sampling, n-best, entropy).  Not a test: it takes minutes;
tests/unit/test_memory_flat.py runs the same table with fewer calls.

    python benchmarks/memory_flat.py [CALLS] [NAME_SUBSTRING]   # default 1,000,000 per entry point

The tokenizer.json rows (hf_entry_points) use one file of each model kind.

Left out: concurrent callers (tests/unit/test_threads.py), texts of gigabytes
(benchmarks/large_inputs.py).
"""

from __future__ import annotations

import gc
import os
import sys
import time


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _raises(call, kind=ValueError):
    try:
        call()
    except kind:
        return
    raise AssertionError("expected an error")


def entry_points(enc, sp_bpe, sp_unigram, lines: list[str]) -> dict[str, object]:
    """name -> call(i): one call of one entry point on the i-th input (inputs cycle)."""
    n = len(lines)
    ids = [enc.encode(line, allowed_special="all") for line in lines]
    spm_ids = [sp_bpe.encode(line) for line in lines]
    spm_pieces = [sp_bpe.encode(line, out_type=str) for line in lines]
    short = [line[:48] for line in lines]
    raw = [line.encode("utf-8")[:40] + b"\xe4\xb8" for line in lines]  # ends inside a character
    batches = [lines[k:k + 8] for k in range(0, n, 8)]
    nb = len(batches)
    bad_ids = [[1, 2, enc.n_vocab + 5]]
    return {
        "encode_ordinary": lambda i: enc.encode_ordinary(lines[i % n]),
        "encode allowed=all": lambda i: enc.encode(lines[i % n], allowed_special="all"),
        "encode disallowed (error)": lambda i: _raises(lambda: enc.encode(lines[i % n] + "<|endoftext|>")),
        "count_tokens": lambda i: enc.count_tokens(lines[i % n]),
        "encode_to_numpy": lambda i: enc.encode_to_numpy(lines[i % n]),
        "encode_with_unstable": lambda i: enc.encode_with_unstable(short[i % n]),
        "_encode_bytes": lambda i: enc._encode_bytes(raw[i % n]),
        "encode_single_token": lambda i: enc.encode_single_token("hello"),
        "encode_single_token (error)": lambda i: _raises(lambda: enc.encode_single_token(short[i % n] + "\x00"),
                                                         KeyError),
        "encode_batch x8": lambda i: enc.encode_batch(batches[i % nb], num_threads=2, allowed_special="all"),
        "encode_ordinary_batch x8": lambda i: enc.encode_ordinary_batch(batches[i % nb], num_threads=2),
        "decode": lambda i: enc.decode(ids[i % n]),
        "decode_bytes": lambda i: enc.decode_bytes(ids[i % n]),
        "decode_with_offsets": lambda i: enc.decode_with_offsets(ids[i % n]),
        "decode_tokens_bytes": lambda i: enc.decode_tokens_bytes(ids[i % n]),
        "decode_single_token_bytes": lambda i: enc.decode_single_token_bytes(ids[i % n][0] if ids[i % n] else 0),
        "decode unknown id (error)": lambda i: _raises(lambda: enc.decode(bad_ids[0]), KeyError),
        "decode_batch x8": lambda i: enc.decode_batch(ids[i % n:i % n + 8]),
        "spm encode": lambda i: sp_bpe.encode(lines[i % n]),
        "spm encode str +bos/eos": lambda i: sp_bpe.encode(lines[i % n], out_type=str, add_bos=True, add_eos=True),
        "spm encode immutable_proto": lambda i: sp_bpe.encode(lines[i % n], out_type="immutable_proto"),
        "spm encode batch x8": lambda i: sp_bpe.encode(batches[i % nb], num_threads=2),
        "spm decode ids": lambda i: sp_bpe.decode(spm_ids[i % n]),
        "spm decode pieces": lambda i: sp_bpe.decode(spm_pieces[i % n]),
        "spm decode bad id (error)": lambda i: _raises(lambda: sp_bpe.decode([1, 10**6]), (IndexError, ValueError)),
        "spm unigram sample": lambda i: sp_unigram.encode(short[i % n], enable_sampling=True, alpha=0.1,
                                                          nbest_size=-1),
        "spm unigram nbest 4": lambda i: sp_unigram.nbest_encode(short[i % n], nbest_size=4),
        "spm unigram entropy": lambda i: sp_unigram.calculate_entropy(short[i % n], alpha=0.1),
        "spm normalize offsets": lambda i: sp_unigram.normalize(short[i % n], with_offsets=True),
    }


def hf_entry_points(tokenizers: dict[str, object], lines: list[str]) -> dict[str, object]:
    """The same for `tokenforge.Tokenizer` (tokenizer.json files): name -> call(i).

    `tokenizers` maps a short name to a loaded Tokenizer; each gets encode (single, pair,
    with truncation and padding), the batches (with offsets and ids only), decode, decode_batch,
    DecodeStream and the error paths of a bad id and of malformed JSON.
    """
    import tokenforge

    n = len(lines)
    batches = [lines[k:k + 8] for k in range(0, n, 8)]
    nb = len(batches)
    table: dict[str, object] = {}
    for name, tok in tokenizers.items():
        ids = [tok.encode(line).ids for line in lines]
        bad = [0, tok.get_vocab_size() + 10**6]
        clipped = tokenforge.Tokenizer.from_str(tok.to_str())
        clipped.enable_truncation(32)
        clipped.enable_padding(length=32)
        stream_ids = [i for line_ids in ids[:64] for i in line_ids]
        ns = len(stream_ids)
        streams = {"s": tokenforge.decoders.DecodeStream(skip_special_tokens=False)}

        def step(i, tok=tok, stream_ids=stream_ids, ns=ns, streams=streams):
            if i % ns == 0:  # a new stream each pass over the ids
                streams["s"] = tokenforge.decoders.DecodeStream(skip_special_tokens=False)
            streams["s"].step(tok, stream_ids[i % ns])

        table.update({
            f"{name} encode": lambda i, tok=tok: tok.encode(lines[i % n]),
            f"{name} encode pair": lambda i, tok=tok: tok.encode(lines[i % n], lines[(i + 1) % n]),
            f"{name} encode trunc+pad": lambda i, t=clipped: t.encode(lines[i % n]),
            f"{name} encode_batch x8": lambda i, tok=tok: tok.encode_batch(batches[i % nb]),
            f"{name} encode_batch_fast x8": lambda i, tok=tok: tok.encode_batch_fast(batches[i % nb]),
            f"{name} decode": lambda i, tok=tok, ids=ids: tok.decode(ids[i % n]),
            f"{name} decode_batch x8": lambda i, tok=tok, ids=ids: tok.decode_batch(ids[i % n:i % n + 8]),
            f"{name} DecodeStream.step": step,
            f"{name} decode bad id (error)": lambda i, tok=tok, bad=bad: _raises(lambda: tok.decode(bad)),
        })
    table["from_str malformed (error)"] = lambda i: _raises(
        lambda: tokenforge.Tokenizer.from_str('{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}'))
    return table


# Entry points run this many times fewer calls: encode_with_unstable searches the
# vocabulary for completions (milliseconds a call).
FEWER_CALLS = {"encode_with_unstable": 100}

# The tokenizer.json files of the HF rows: one per model kind (byte-level BPE, WordPiece,
# SentencePiece-style BPE with byte fallback, Unigram).
HF_FILES = {"hf gpt2": "gpt2", "hf minilm": "minilm_bert_uncased", "hf mistral": "mistral_v1", "hf rut5": "rut5"}


def measure(call, calls: int) -> tuple[int, int, int]:
    """(RSS after the warm-up, peak, end) over `calls` calls."""
    for i in range(min(calls // 10, 20_000)):  # warm-up: caches fill
        call(i)
    gc.collect()
    start = peak = rss_bytes()
    for i in range(calls):
        call(i)
        if i % 4096 == 0:
            peak = max(peak, rss_bytes())
    gc.collect()
    end = rss_bytes()
    return start, max(peak, end), end


def main() -> None:
    from _common import MODELS, corpus_text

    import tokenforge

    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    only = sys.argv[2] if len(sys.argv) > 2 else ""
    lines = [line for line in corpus_text("multi", 2_000_000).splitlines() if line][:5000]
    enc = tokenforge.get_encoding("cl100k_base")
    spm = MODELS / "sentencepiece"
    sp_bpe = tokenforge.SentencePieceProcessor(model_file=str(spm / "llama2_tokenizer.model"))
    sp_unigram = tokenforge.SentencePieceProcessor(model_file=str(spm / "botchan_en_unigram_1000.model"))
    table = entry_points(enc, sp_bpe, sp_unigram, lines)
    hf = MODELS / "hf"
    table.update(hf_entry_points({name: tokenforge.Tokenizer.from_file(str(hf / f"{file}_tokenizer.json"))
                                  for name, file in HF_FILES.items()}, lines))
    print(f"{calls} calls per entry point, {len(lines)} distinct lines of the multi corpus; RSS in MB")
    print(f"{'entry point':30s} {'start':>8s} {'peak':>8s} {'end':>8s} {'growth':>8s} {'per call':>9s} {'cpu s':>7s}")
    for name, call in table.items():
        if only not in name:
            continue
        t0 = time.thread_time()
        n = calls // FEWER_CALLS.get(name, 1)
        start, peak, end = measure(call, n)
        mb = 2**20
        print(f"{name:30s} {start / mb:8.1f} {peak / mb:8.1f} {end / mb:8.1f} {(end - start) / mb:+8.1f} "
              f"{(end - start) / n:+8.2f}B {time.thread_time() - t0:7.1f}  ({n} calls)", flush=True)


if __name__ == "__main__":
    main()
