"""`Tokenizer.from_sentencepiece` against sentencepiece, `tokenizers` and `transformers`.

- plain: the ids of sentencepiece's `encode` on sampled corpus lines, for Unigram and BPE
  models, with and without byte fallback, charsmaps and whitespace removal; the written
  tokenizer.json reloaded in `tokenizers` and in `transformers.PreTrainedTokenizerFast` gives the
  same ids.  The one allowed difference, checked as such: a Unigram line with two best
  segmentations of equal score, where `tokenizers` (and we) pick another than sentencepiece.
  Lines holding a control piece's text (`<s>`) are left out: they become its id (module
  docstring of tokenforge.tokenizer.from_sentencepiece).
- fairseq: `transformers`' `XLMRobertaTokenizer.from_pretrained(folder)` (the .model copied in
  as sentencepiece.bpe.model) on every line, single and pairs, Unigram and BPE models (which
  transformers reads as Unigram), with its special tokens spliced in.
- fairseq-spm: sentencepiece's ids moved to XLM-R's layout, on every line, tabs too.
"""

from __future__ import annotations

import functools
import random
import shutil

import pytest
from _hf_json import lines
from _shared import MODELS, need_extra, need_shared

SPM = MODELS / "sentencepiece"
CORPORA = ["en", "code", "multi", "mixed"]
N_LINES = 40
PLAIN = ["botchan_en_unigram_1000.model", "kyoto_ja_unigram_8000.model", "rut5_spiece.model",
         "botchan_en_bpe_1000.model", "llama2c_tok512.model", "mistral_v3_tokenizer.model"]


@functools.lru_cache(maxsize=None)
def _load(name: str, convention: str = "plain"):
    need_shared()
    import sentencepiece as spm

    from tokenforge import Tokenizer

    return spm.SentencePieceProcessor(model_file=str(SPM / name)), Tokenizer.from_sentencepiece(SPM / name, convention=convention)


def _texts(tok) -> list[str]:
    control = [t.content for t in tok.added.tokens.values() if t.special]
    return [ln for c in CORPORA for ln in lines(c, N_LINES) if not any(s in ln for s in control)]


def _same_or_tie(sp, want: list[int], got: list[int]) -> bool:
    """Equal, or two segmentations of one text with the same total score (a Viterbi tie)."""
    if want == got:
        return True
    score = lambda ids: sum(sp.get_score(i) for i in ids)  # noqa: E731
    return sp.decode(want) == sp.decode(got) and abs(score(want) - score(got)) < 1e-3 * max(1.0, abs(score(want)))


@pytest.mark.parametrize("name", PLAIN)
def test_plain_ids_are_sentencepiece_and_reload(name, tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    transformers = need_extra("transformers", "test")
    sp, tok = _load(name)
    path = tmp_path / "tokenizer.json"
    tok.to_file(path)
    ref = tokenizers.Tokenizer.from_file(str(path))
    fast = transformers.PreTrainedTokenizerFast(tokenizer_file=str(path))
    texts = _texts(tok)
    assert len(texts) > 3 * N_LINES
    for text in texts:
        want, got = sp.encode(text), tok.encode(text).ids
        assert _same_or_tie(sp, want, got), (name, text)
        assert ref.encode(text).ids == got, (name, text)
        assert fast(text)["input_ids"] == got, (name, text)


@pytest.mark.parametrize("name", ["botchan_en_unigram_1000.model", "llama2c_tok512.model"])
def test_plain_decode_is_sentencepiece(name):
    sp, tok = _load(name)
    for text in _texts(tok)[:80]:
        ids = sp.encode(text)
        if sp.unk_id() not in ids:  # sentencepiece writes an unknown piece as " ⁇ "
            assert tok.decode(ids) == sp.decode(ids), text


def test_unigram_user_defined_pieces(tmp_path):
    """A Unigram model with user-defined pieces (botchan's with two of its pieces renamed and
    made USER_DEFINED, written with tokenforge's ModelProto and loaded by sentencepiece): the
    pieces win wherever they occur, as in sentencepiece's lattice."""
    tokenizers = pytest.importorskip("tokenizers")
    need_shared()
    import sentencepiece as spm

    from tokenforge import Tokenizer
    from tokenforge.sentencepiece import ModelProto, PieceType

    m = ModelProto.load(str(SPM / "botchan_en_unigram_1000.model"))
    for i, name in ((500, "<sep>"), (600, "ing the")):
        m.pieces[i].piece, m.pieces[i].type = name, PieceType.USER_DEFINED
    path = tmp_path / "user.model"
    m.save(str(path))
    sp = spm.SentencePieceProcessor(model_file=str(path))
    tok = Tokenizer.from_sentencepiece(path)
    ref = tokenizers.Tokenizer.from_str(tok.to_str())
    texts = ["a<sep>b", "x <sep> y", "<sep>", "the<sep><sep>end", "singing the song", "bring them"]
    texts += [ln[:40] + "<sep>" + ln[40:] for ln in lines("en", 20)]
    for text in texts:
        assert tok.encode(text).ids == sp.encode(text) == ref.encode(text).ids, text


def test_bpe_user_defined_pieces_as_added_tokens():
    """Mistral v3's user-defined pieces ([REFERENCE_DOC_19], ...): sentencepiece's ids where the
    piece ends a text that does not start with it (module docstring of from_sentencepiece), and
    tokenizers' ids everywhere."""
    tokenizers = pytest.importorskip("tokenizers")
    sp, tok = _load("mistral_v3_tokenizer.model")
    ref = tokenizers.Tokenizer.from_str(tok.to_str())
    user = [p for p in tok.added.ids if p.startswith("[REFERENCE_DOC")][:3]
    assert user
    for u in user:
        for text in (f"hi{u}", f"a  b {u}"):
            assert tok.encode(text).ids == sp.encode(text), text
        for text in (u, f"hi{u}there", f"{u} a  b {u}", f" x {u} "):
            assert tok.encode(text).ids == ref.encode(text).ids, text


def test_control_piece_text_becomes_its_id():
    """The documented difference: `<s>` in the text is the control id (tokenizers does the same
    with the written file), where sentencepiece spells it out."""
    tokenizers = pytest.importorskip("tokenizers")
    sp, tok = _load("llama2c_tok512.model")
    ids = tok.encode("a<s>b").ids
    assert sp.piece_to_id("<s>") in ids
    assert tokenizers.Tokenizer.from_str(tok.to_str()).encode("a<s>b").ids == ids


def _xlmr(name: str, tmp_path_factory):
    transformers = need_extra("transformers", "test")
    folder = tmp_path_factory.mktemp("xlmr")
    shutil.copy(SPM / name, folder / "sentencepiece.bpe.model")
    return transformers.XLMRobertaTokenizer.from_pretrained(str(folder))


def _fairseq(sp, ids: list[int]) -> list[int]:
    return [3 if i == sp.unk_id() else i + 1 for i in ids]


_SPLICED = ["<mask>", "a<mask>b", " <mask> ", "<s>x</s>", "x <pad> y", "<unk>", "\t<mask>\u0085b"]


@pytest.mark.parametrize("name", ["rut5_spiece.model", "botchan_en_unigram_1000.model", "kyoto_ja_unigram_8000.model",
                                  "botchan_en_bpe_1000.model", "llama2c_tok512.model"])
def test_fairseq_is_xlm_roberta(name, tmp_path_factory):
    """Every line, tabs and U+0085 too, single and in pairs, and the special tokens in text."""
    xlmr = _xlmr(name, tmp_path_factory)
    _, tok = _load(name, "fairseq")
    texts = [ln for c in CORPORA for ln in lines(c, N_LINES)] + _SPLICED
    assert any("\t" in t for t in texts)
    for k, text in enumerate(texts):
        pair = texts[(k + 1) % len(texts)]
        assert tok.encode(text).ids == xlmr(text)["input_ids"], text
        assert tok.encode(text, pair).ids == xlmr(text, pair)["input_ids"], (text, pair)
        assert tok.encode(text, add_special_tokens=False).ids == xlmr(text, add_special_tokens=False)["input_ids"], text
    assert tok.get_vocab_size() == len(xlmr)


@pytest.mark.parametrize("name", ["rut5_spiece.model", "botchan_en_unigram_1000.model"])
def test_fairseq_decode_is_xlm_roberta(name, tmp_path_factory):
    xlmr = _xlmr(name, tmp_path_factory)
    _, tok = _load(name, "fairseq")
    for text in [ln for c in CORPORA for ln in lines(c, 10)] + _SPLICED:
        ids = xlmr(text)["input_ids"]
        assert tok.decode(ids, skip_special_tokens=False) == xlmr.decode(ids), text
        assert tok.decode(ids) == xlmr.decode(ids, skip_special_tokens=True), text


def test_fairseq_control_and_user_defined_pieces_are_xlm_roberta(tmp_path_factory):
    """Mistral v3's CONTROL pieces past the first three ([INST], [control_N]) and USER_DEFINED
    ones ([REFERENCE_DOC_N]): transformers' XLMRobertaTokenizer adds them as added tokens
    (special / not special), so each is one id in the text and skip_special_tokens drops the
    control ones; we did neither."""
    name = "mistral_v3_tokenizer.model"
    xlmr = _xlmr(name, tmp_path_factory)
    _, tok = _load(name, "fairseq")
    vocab = xlmr.get_vocab()
    control = ["[INST]", "[/INST]", "[control_217]", "[control_43]"]
    user = [p for p in vocab if p.startswith("[REFERENCE_DOC_")][:3]
    assert all(p in vocab for p in control) and user
    texts = [f"a{p}b" for p in control + user] + [f" x {p}  y {q}" for p, q in zip(control, user)]
    texts += [ln[:30] + p + ln[30:] for ln, p in zip(lines("en", 8), control + user)] + control + user
    for k, text in enumerate(texts):
        pair = texts[(k + 1) % len(texts)]
        assert tok.encode(text).ids == xlmr(text)["input_ids"], text
        assert tok.encode(text, pair).ids == xlmr(text, pair)["input_ids"], (text, pair)
        assert tok.encode(text, add_special_tokens=False).ids == xlmr(text, add_special_tokens=False)["input_ids"]
    rng = random.Random(5)
    specials = [vocab[p] for p in control + user]
    for _ in range(200):
        ids = [rng.choice(specials) if rng.random() < 0.3 else rng.randrange(len(xlmr)) for _ in range(12)]
        for skip in (True, False):
            assert tok.decode(ids, skip_special_tokens=skip) == xlmr.decode(ids, skip_special_tokens=skip), ids
        assert [tok.id_to_token(i) for i in ids] == xlmr.convert_ids_to_tokens(ids)
    assert tok.get_vocab_size() == len(xlmr)


@pytest.mark.parametrize("name", ["botchan_en_bpe_1000.model", "llama2c_tok512.model", "kyoto_ja_unigram_8000.model"])
def test_fairseq_spm_is_sentencepiece_moved(name):
    """Every line (tabs too) and BPE models: sentencepiece's ids in the fairseq layout,
    `</s></s>` between pairs (what fairseq's own encoder gives)."""
    sp, tok = _load(name, "fairseq-spm")
    texts = _texts(tok)
    for k, text in enumerate(texts):
        want = [0] + _fairseq(sp, sp.encode(text)) + [2]
        assert tok.encode(text).ids == want, text
    a, b = texts[0], texts[1]
    assert tok.encode(a, b).ids == [0] + _fairseq(sp, sp.encode(a)) + [2, 2] + _fairseq(sp, sp.encode(b)) + [2]
    assert tok.id_to_token(tok.get_vocab_size() - 1) == "<mask>"
    assert tok.get_vocab_size() == sp.get_piece_size() + 2


# Charsmap replacements that grow (… -> ...), shrink (e + U+0301 -> é) or vanish (U+00AD, ZWSP),
# at the start, middle and end: their offsets follow tokenizers' alignment rules.
CHARSMAP_EDGES = ["…", "a…", "a…b", "…b", "x……", "a… b", "ﬁ", "aﬁb", "Ⅻ", "㍿x", "\u00adx", "x\u00ad",
                  "\u200b", "a\u200bb", "e\u0301", "ｶﾞ"]


@pytest.mark.parametrize("name", ["botchan_en_unigram_1000.model", "botchan_en_bpe_1000.model"])
def test_encodings_are_tokenizers(name):
    """Every field (offsets too) equals tokenizers' on the written file, charsmap edges included."""
    tokenizers = pytest.importorskip("tokenizers")
    from _hf_json import diff

    _, tok = _load(name)
    ref = tokenizers.Tokenizer.from_str(tok.to_str())
    for text in CHARSMAP_EDGES + [ln for c in CORPORA for ln in lines(c, N_LINES)]:
        assert diff(ref.encode(text), tok.encode(text)) is None, text
