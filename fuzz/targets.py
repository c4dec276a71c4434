"""Fuzz targets: one per loader and encoder entry point, each a function of the fuzzer's bytes.

A target returns normally on any input: input tokenforge refuses must raise the documented
error (`ValueError`, `OSError`, `KeyError` for unknown ids, `TypeError` for wrong types,
`OverflowError` for ints beyond 64 bits); anything else escaping, a crash, or a result that
differs from the reference library (tiktoken, sentencepiece) or fails to round trip is a
finding.  Run one with `scripts/fuzz.sh TARGET SECONDS` (atheris, see fuzz/run.py);
tests/fuzz/test_fuzz_targets.py runs each for a few seconds.

Left out: timing.
"""

from __future__ import annotations

import atexit
import dataclasses
import functools
import os
import shutil
import struct
import sys
import tempfile
import zlib
from pathlib import Path

import tokenforge
from tokenforge import _cuts, patterns
from tokenforge.formats import minbpe
from tokenforge.formats.sentencepiece_model import ModelProto

SHARED = Path(os.environ.get("TOKENFORGE_SHARED", Path(__file__).resolve().parent.parent.parent / "shared"))
MODELS = SHARED / "models"
REFUSED = (ValueError, OSError)


@functools.lru_cache(maxsize=None)
def _scratch() -> Path:
    """One directory for the files a loader target writes, made once per process (a fresh
    temporary directory per execution costs more than most loads)."""
    d = Path(tempfile.mkdtemp(prefix="tokenforge-fuzz-"))
    atexit.register(shutil.rmtree, d, ignore_errors=True)
    return d


def _provider(data: bytes):
    import atheris

    return atheris.FuzzedDataProvider(data)


@functools.lru_cache(maxsize=None)
def _pair():
    """(ours, tiktoken's) cl100k_base, built from the same shared rank file."""
    import tiktoken.load

    ranks = tiktoken.load.load_tiktoken_bpe(str(MODELS / "tiktoken" / "cl100k_base.tiktoken"))
    specials = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|endofprompt|>": 100276}
    import tiktoken

    ref = tiktoken.Encoding("cl100k", pat_str=patterns.CL100K, mergeable_ranks=ranks, special_tokens=specials)
    return tokenforge.Encoding("cl100k", pat_str=patterns.CL100K, mergeable_ranks=ranks, special_tokens=specials), ref


@functools.lru_cache(maxsize=None)
def _spm_pair():
    import sentencepiece

    path = str(MODELS / "sentencepiece" / "botchan_en_unigram_1000.model")
    return tokenforge.SentencePieceProcessor(model_file=path), sentencepiece.SentencePieceProcessor(model_file=path)


def _outcome(fn):
    try:
        return fn()
    except (ValueError, KeyError, TypeError, OverflowError) as e:
        return type(e)


def _check_small_encoding(enc) -> None:
    import regex

    for text in ["", "hello world", "héllo 中文 😀", "a" * 300]:
        try:
            ids = enc.encode_ordinary(text)
        except ValueError:  # a vocabulary without every byte refuses text it cannot encode
            continue
        # A pattern read from a file may not match all of the text: what it leaves out is
        # dropped (as tiktoken and minbpe drop it), so only the matched text comes back.
        kept = "".join(m.group() for m in regex.finditer(enc._pat_str, text)) if enc._pat_str else text
        assert enc.decode_bytes(ids) == kept.encode(), text


def fuzz_load_tiktoken_bpe(data: bytes) -> None:
    """`.tiktoken` bytes: parsed or refused; parsed ranks build an encoding or are refused."""
    from tokenforge.formats.tiktoken_bpe import parse_tiktoken_bpe

    try:
        ranks = parse_tiktoken_bpe(data)
        enc = tokenforge.Encoding("f", pat_str=patterns.GPT2, mergeable_ranks=ranks, special_tokens={})
    except REFUSED:
        return
    _check_small_encoding(enc)


def fuzz_data_gym(data: bytes) -> None:
    """GPT-2's vocab.bpe + encoder.json (the input cut in two at its first NUL)."""
    vocab, _, encoder = data.partition(b"\0")
    d = _scratch()
    (d / "vocab.bpe").write_bytes(vocab)
    (d / "encoder.json").write_bytes(encoder)
    try:
        tokenforge.data_gym_to_mergeable_bpe_ranks(d / "vocab.bpe", d / "encoder.json")
    except REFUSED:
        return


def fuzz_model_proto(data: bytes) -> None:
    """ModelProto parse; what parses writes bytes that parse to the same bytes again."""
    try:
        m = ModelProto.from_bytes(data)
    except ValueError:
        return
    out = m.to_bytes()
    assert ModelProto.from_bytes(out).to_bytes() == out


def fuzz_spm_model(data: bytes) -> None:
    """SentencePieceProcessor(model_proto=...): loaded or refused; a loaded one encodes."""
    try:
        sp = tokenforge.SentencePieceProcessor(model_proto=data)
    except REFUSED:
        return
    for text in ["", "hello world", "ďa😀 中文", "  x  "]:
        ids = sp.encode(text)
        sp.decode(ids)
        sp.encode(text, out_type=str)
        _outcome(lambda: sp.encode(text, add_bos=True, add_eos=True, emit_unk_piece=True, reverse=True, out_type=str))
        _outcome(lambda: sp.encode(text, enable_sampling=True, alpha=0.3, nbest_size=-1))
    sp.encode(["a b", "c"], num_threads=2)


def fuzz_minbpe(data: bytes) -> None:
    """minbpe `.model` text."""
    path = _scratch() / "f.model"
    path.write_bytes(data)
    try:
        enc = minbpe.load(path)
    except REFUSED:
        return
    _check_small_encoding(enc)


def fuzz_encode(data: bytes) -> None:
    """Random text (lone surrogates included) through every encode entry point of
    cl100k_base, against tiktoken."""
    fdp = _provider(data)
    ours, ref = _pair()
    text = fdp.ConsumeUnicode(fdp.remaining_bytes() // 2 + 1)
    if fdp.ConsumeBool():
        text = text + "<|endoftext|>" + text[: len(text) // 2]
    allowed = fdp.PickValueInList(["all", set(), {"<|endoftext|>"}])
    for fn in (lambda e: e.encode(text, allowed_special=allowed),
               lambda e: e.encode(text, allowed_special=allowed, disallowed_special=()),
               lambda e: e.encode_ordinary(text),
               lambda e: e.encode_batch([text, text[::-1]], allowed_special=allowed, num_threads=2)):
        assert _outcome(lambda: fn(ours)) == _outcome(lambda: fn(ref)), text
    # tiktoken's encode_to_numpy raises UnicodeEncodeError on lone surrogates, where its
    # encode replaces them; ours replaces them in both (a choice: same ids as encode).
    want = _outcome(lambda: ref.encode_to_numpy(text, allowed_special=allowed).tolist())
    if want is UnicodeEncodeError:
        want = _outcome(lambda: ref.encode(text, allowed_special=allowed))
    assert _outcome(lambda: ours.encode_to_numpy(text, allowed_special=allowed).tolist()) == want, text
    # encode_to_numpy's path for a long text on threads (parts read in place, encode_array.cc),
    # on this short one: its exact cuts, small chunks, two threads.
    cuts = _cuts.cut_points(text, 4, True, ours.special_tokens_set if allowed == "all" else allowed)
    if cuts:
        sets = ours._special_sets(allowed, "all")
        chunk = fdp.ConsumeIntInRange(1, 64)
        got = _outcome(lambda: ours._core.encode_to_numpy(text, *sets, chunk_chars=chunk, cuts=cuts, threads=2))
        got = ValueError if isinstance(got, tuple) else got if isinstance(got, type) else got.tolist()
        assert got == want, (text, cuts, chunk)
    assert ours.count_tokens(text, allowed_special=allowed) == len(ref.encode(text, allowed_special=allowed,
                                                                              disallowed_special=()))
    # encode_with_unstable on one input in UNSTABLE_SAMPLE, chosen by the input's hash (so a
    # rerun of an input does the same): a text ending in a space has every token starting with
    # a space as a completion (tens of thousands), which would dominate the time per execution.
    if len(text) < 200 and zlib.crc32(data) % UNSTABLE_SAMPLE == 0:
        # The completions as a set: tiktoken lists them in hash order.
        def unstable(e):
            stable, completions = e.encode_with_unstable(text, allowed_special=allowed)
            return stable, sorted(completions)

        want = _outcome(lambda: unstable(ref))
        if want is not UnicodeEncodeError:  # tiktoken: no surrogate repair here either
            assert _outcome(lambda: unstable(ours)) == want, text


# 1 compares every input (the regression tests set it so).
UNSTABLE_SAMPLE = 64


def _odd_id(fdp):
    kind = fdp.ConsumeIntInRange(0, 9)
    if kind <= 5:
        return fdp.ConsumeIntInRange(0, 100300)
    if kind == 6:
        return fdp.ConsumeIntInRange(-(2**70), 2**70)
    if kind == 7:
        return fdp.PickValueInList([2**32, 2**63, 2**64, -1, 2**31 - 1, 100277])
    return fdp.PickValueInList(["7", 1.0, None, b"a", True])


def fuzz_decode(data: bytes) -> None:
    """Id lists with huge, negative and non-int ids through every decode entry point,
    against tiktoken: the same result, or an error where tiktoken raises one."""
    fdp = _provider(data)
    ours, ref = _pair()
    ids = [_odd_id(fdp) for _ in range(fdp.ConsumeIntInRange(0, 40))]
    for fn in (lambda e: e.decode(ids), lambda e: e.decode(ids, errors="ignore"), lambda e: e.decode_bytes(ids),
               lambda e: e.decode_tokens_bytes(ids), lambda e: e.decode_batch([ids, ids[:3]])):
        want = _outcome(lambda: fn(ref))
        got = _outcome(lambda: fn(ours))
        assert got == want or (isinstance(want, type) and isinstance(got, type)), (ids, got, want)
    _outcome(lambda: ours.decode_with_offsets(ids))
    if ids and isinstance(ids[0], int) and 0 <= ids[0] < 100300:
        _outcome(lambda: ours.decode_single_token_bytes(ids[0]))


def fuzz_spm_encode(data: bytes) -> None:
    """Random text through SentencePieceProcessor.encode with every option, against
    sentencepiece where the result is deterministic."""
    fdp = _provider(data)
    ours, ref = _spm_pair()
    text = fdp.ConsumeUnicodeNoSurrogates(fdp.remaining_bytes() // 2 + 1)
    opts = dict(out_type=fdp.PickValueInList([int, str]), add_bos=fdp.ConsumeBool(), add_eos=fdp.ConsumeBool(),
                reverse=fdp.ConsumeBool(), emit_unk_piece=fdp.ConsumeBool())
    assert ours.encode(text, **opts) == ref.encode(text, **opts), (text, opts)
    assert ours.encode([text, text[:5]], num_threads=2, **opts) == ref.encode([text, text[:5]], **opts)
    assert ours.decode(ref.encode(text)) == ref.decode(ref.encode(text))
    sampled = ours.encode(text, enable_sampling=True, alpha=fdp.ConsumeProbability(),
                          nbest_size=fdp.PickValueInList([-1, 2, 5]))
    assert ours.decode(sampled) == ref.decode(ref.encode(text))
    assert len(ours.nbest_encode(text, nbest_size=3)) <= 3


def fuzz_bpe_trainer(data: bytes) -> None:
    """BpeTrainer on a random small corpus and pattern; the result round trips the corpus."""
    fdp = _provider(data)
    corpus = [fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 60)) for _ in range(fdp.ConsumeIntInRange(1, 6))]
    pattern = fdp.PickValueInList([patterns.GPT2, patterns.CL100K, patterns.O200K, r"\S+|\s+", None])
    if pattern is None:
        pattern = fdp.ConsumeUnicodeNoSurrogates(12)
    vocab = fdp.ConsumeIntInRange(250, 320)
    try:
        enc = tokenforge.BpeTrainer(vocab, pat_str=pattern, show_progress=False).train_from_iterator(corpus)
    except ValueError:
        return
    if pattern in (patterns.GPT2, patterns.CL100K, patterns.O200K, r"\S+|\s+"):
        for text in corpus:  # these patterns cover every character
            assert enc.decode(enc.encode_ordinary(text)) == text
        return
    import tiktoken  # text the pattern does not match is dropped, as tiktoken drops it

    try:
        ref = tiktoken.Encoding("f", pat_str=pattern, mergeable_ranks=enc._mergeable_ranks, special_tokens={})
    except ValueError:
        return
    for text in corpus:
        try:
            want = ref.encode_ordinary(text)
        except BaseException as e:  # tiktoken panics (pyo3's PanicException) on empty matches
            if isinstance(e, KeyboardInterrupt):
                raise
            continue
        assert enc.encode_ordinary(text) == want


def fuzz_tokenizer_json(data: bytes) -> None:
    """tokenizer.json text: loaded or refused (ValueError); a loaded one encodes and decodes
    small texts, and what it writes (`to_str`) loads again to the same ids."""
    from tokenforge import Tokenizer

    try:
        tok = Tokenizer.from_str(data.decode("utf-8", "replace"))
    except REFUSED:
        return
    again = None
    for text in ["", "hello world", "héllo 中文 😀", "  x  "]:
        ids = _outcome(lambda: tok.encode(text).ids)
        if isinstance(ids, type):
            continue
        _outcome(lambda: tok.decode(ids))
        _outcome(lambda: tok.encode(text, "pair").ids)
        if again is None:
            again = _outcome(lambda: Tokenizer.from_str(tok.to_str()))
        if not isinstance(again, type):
            assert again.encode(text).ids == ids, text


def fuzz_gguf(data: bytes) -> None:
    """GGUF bytes through tokenforge alone: its own walk reads them or refuses them, and a read
    vocabulary builds an engine or is refused, and encodes and decodes (fuzz_gguf_reader_diff
    checks the walk against gguf's reader; apart, so this target runs at the walk's speed)."""
    from tokenforge.gguf import GGUFTokenizer

    vocab = _gguf_walk(data)
    if vocab is None:
        return
    try:
        tok = GGUFTokenizer(vocab)
    except REFUSED:
        return
    for text in ["", "hello world", "héllo 中文 😀", "  x  "]:
        ids = _outcome(lambda: tok.encode(text))
        if not isinstance(ids, type):
            _outcome(lambda: tok.decode(ids))


def fuzz_gguf_reader_diff(data: bytes) -> None:
    """GGUF bytes that tokenforge's own walk reads, gguf's reader (the reference, far slower
    per execution) reads to the same values, once the tensor infos, which only gguf's reader
    parses, are dropped."""
    from tokenforge.gguf.reader import read_vocab_with_gguf

    vocab = _gguf_walk(data)
    if vocab is None:
        return
    path = _scratch() / "f.gguf"
    try:
        theirs = read_vocab_with_gguf(path)
    except REFUSED:
        # gguf's reader also parses the tensor infos, which ours leaves alone (layout.py):
        # without tensors it must read what ours read.
        path.write_bytes(data[:8] + bytes(8) + data[16:])
        theirs = read_vocab_with_gguf(path)
    assert _bits(_readable_by_gguf(theirs)) == _bits(_readable_by_gguf(vocab))


def _gguf_walk(data: bytes):
    """The vocabulary tokenforge's own walk reads from `data` (written to the scratch file
    f.gguf, which the caller may read again), or None when it refuses the bytes."""
    from tokenforge.gguf import read_vocab

    path = _scratch() / "f.gguf"
    path.write_bytes(data)
    try:
        return read_vocab(path, reader="tokenforge")
    except REFUSED:
        return None


def _readable_by_gguf(vocab) -> dict:
    """The vocabulary's fields as gguf's reader can know them: it takes an array's item type
    from its first item, so an empty array's item type (which tokenforge's walk reads from the
    header) is None there."""
    d = dataclasses.asdict(vocab)
    d["extra"] = {k: (v, t, None) if t == 9 and v == [] else (v, t, i) for k, (v, t, i) in d["extra"].items()}
    return d


def _bits(value):
    """`value` with every float replaced by its bit pattern, so that two readers' NaNs (which
    never compare equal) compare as the bits they read."""
    if isinstance(value, float):
        return struct.pack("<d", value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _bits(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {k: _bits(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_bits(v) for v in value)
    return value


TARGETS = {name[len("fuzz_"):]: fn for name, fn in sorted(globals().items()) if name.startswith("fuzz_")}


def seeds(target: str) -> list[bytes]:
    """Seed inputs from the real files in ../shared/models (empty if absent)."""
    t, s = MODELS / "tiktoken", MODELS / "sentencepiece"
    if not MODELS.is_dir():
        return []
    if target == "load_tiktoken_bpe":
        return [(t / f).read_bytes()[:3000] for f in ("r50k_base.tiktoken", "cl100k_base.tiktoken", "o200k_base.tiktoken")]
    if target == "data_gym":
        return [(t / "gpt2_vocab.bpe").read_bytes()[:2000] + b"\0" + (t / "gpt2_encoder.json").read_bytes()[:2000]]
    if target in ("model_proto", "spm_model"):
        return [(s / "llama2c_tok512.model").read_bytes(), (s / "botchan_en_bpe_1000.model").read_bytes()[:20000]]
    if target == "minbpe":
        enc = tokenforge.BpeTrainer(270, show_progress=False).train_from_iterator(["hello world " * 20])
        with tempfile.TemporaryDirectory() as d:
            minbpe.save(enc, Path(d) / "s")
            return [(Path(d) / "s.model").read_bytes()]
    if target == "tokenizer_json":
        return _tokenizer_json_seeds()
    if target in ("gguf", "gguf_reader_diff"):
        return _gguf_seeds()
    corpus = (SHARED / "models" / "corpus" / "botchan.txt").read_bytes()
    return [corpus[i:i + 400] for i in range(0, 4000, 400)]


def _tokenizer_json_seeds() -> list[bytes]:
    """Small tokenizer.json files of each model kind: byte-level BPE, WordPiece, Unigram, and
    the SentencePiece-style BPE pipeline `from_sentencepiece` writes."""
    import json

    from tokenforge import Tokenizer
    from tokenforge.formats.hf_json import to_dict
    from tokenforge.models import Unigram, WordPiece
    from tokenforge.normalizers import BertNormalizer
    from tokenforge.pre_tokenizers import BertPreTokenizer, Metaspace

    enc = tokenforge.BpeTrainer(270, show_progress=False).train_from_iterator(["hello world " * 20])
    bert = Tokenizer(WordPiece({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "un": 3, "##able": 4, "hello": 5}))
    bert.normalizer, bert.pre_tokenizer = BertNormalizer(), BertPreTokenizer()
    uni = Tokenizer(Unigram([("<unk>", 0.0), ("▁a", -1.0), ("b", -2.0), ("▁ab", -1.5), ("▁", -3.0), ("a", -2.5)],
                            unk_id=0))
    uni.pre_tokenizer = Metaspace()
    spm = Tokenizer.from_sentencepiece(str(MODELS / "sentencepiece" / "llama2c_tok512.model"))
    return [json.dumps(to_dict(enc)).encode(), bert.to_str().encode(), uni.to_str().encode(), spm.to_str().encode()]


def _gguf_seeds() -> list[bytes]:
    """Small GGUF vocabularies of three model kinds tokenforge writes (gpt2, t5, bert); the t5
    one keeps 48 pieces of a shared Unigram model and drops its 240 KB normalization map, so
    that an execution stays cheap (a mutated seed is read whole)."""
    from tokenforge import Tokenizer, gguf
    from tokenforge.models import WordPiece
    from tokenforge.normalizers import BertNormalizer
    from tokenforge.pre_tokenizers import BertPreTokenizer

    enc = tokenforge.BpeTrainer(270, show_progress=False).train_from_iterator(["hello world " * 20])
    bert = Tokenizer(WordPiece({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "un": 3, "##able": 4, "hello": 5}))
    bert.normalizer, bert.pre_tokenizer = BertNormalizer(), BertPreTokenizer()
    unigram = ModelProto.load(str(MODELS / "sentencepiece" / "botchan_en_unigram_1000.model"))
    del unigram.pieces[48:]
    unigram.normalizer_spec.name, unigram.normalizer_spec.precompiled_charsmap = "identity", b""
    out = []
    with tempfile.TemporaryDirectory() as d:
        gguf.write_vocab(gguf.vocab_from_encoding(enc, pre="gpt-2"), Path(d) / "a.gguf")
        gguf.write_vocab(gguf.vocab_from_sentencepiece(unigram), Path(d) / "b.gguf")
        bert.to_gguf(Path(d) / "c.gguf")
        for name in ("a", "b", "c"):
            out.append((Path(d) / f"{name}.gguf").read_bytes())
    return out


if __name__ == "__main__":
    print("\n".join(TARGETS), file=sys.stdout)
