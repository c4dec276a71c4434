"""A SentencePiece ``.model`` as a `tokenizer.json` pipeline, in sentencepiece's or fairseq's ids.

sentencepiece's encoding, stage by stage, in `tokenizers`' components:

* normalizer — the model's charsmap (``Precompiled``); with ``remove_extra_whitespaces`` runs of
  spaces become one and spaces at either end go (``Replace`` with regexes that touch only
  U+0020, as sentencepiece does; ``Strip`` would also take tabs); with ``add_dummy_prefix`` a
  ``Prepend("▁")``; with ``escape_whitespaces`` spaces become ``▁``;
* no pre-tokenizer: the model sees the whole normalized text, as sentencepiece's does;
* model — ``Unigram`` (the pieces and scores) or ``BPE``: merges recovered from the pieces, a
  piece's splits into two pieces ranked by the piece's score (sentencepiece merges the pair whose
  piece scores highest); unknown characters fused into one unknown token or, with
  ``byte_fallback``, spelled as ``<0xXX>`` pieces;
* added tokens — CONTROL and UNKNOWN pieces are special tokens (``<s>`` in the text becomes its
  id, as in every converted SentencePiece tokenizer.json; sentencepiece itself spells it out);
* USER_DEFINED pieces — in a Unigram model, vocab entries scored as sentencepiece scores them in
  its lattice (UTF-8 length x the highest NORMAL score - 0.1, so that they always win); in a BPE
  model (HF BPE has no multi-character starting symbols) ordinary added tokens, matched in the
  raw text as HF's converters write them: the text after one gets a dummy prefix of its own,
  one that starts the text gets none, and with ``remove_extra_whitespaces`` the spaces around
  one go, none of which sentencepiece does;
* decoder — ``▁`` back to spaces, byte pieces back to bytes, the dummy prefix's space dropped;
  control and unknown pieces are special tokens, so ``skip_special_tokens`` drops them
  (sentencepiece drops control pieces and writes an unknown one as `` ⁇ ``).

Conventions: ``plain`` keeps the model's ids and adds no tokens around the text (sentencepiece's
``encode``).  The two others use XLM-R's layout: ``<s>``=0, ``<pad>``=1, ``</s>``=2, ``<unk>``=3
in place of the model's first three pieces (which must be its unknown and control pieces),
piece i >= 3 at i + 1, ``<mask>`` last, and ``<s> A </s>`` / ``<s> A </s></s> B </s>`` around
the text.

* ``fairseq`` is `transformers`' ``XLMRobertaTokenizer.from_pretrained(folder)`` (5.x) exactly,
  the tokenizer.json it builds from a ``sentencepiece.bpe.model``: the charsmap alone as the
  normalizer, ``WhitespaceSplit`` then ``Metaspace`` (so every Unicode whitespace character
  separates words, where sentencepiece keeps what the charsmap keeps: tabs under ``nfkc``,
  U+0085 under ruT5's ``nmt_nfkc``), and a ``Unigram`` model over the pieces and scores, also
  for a BPE model (whose segmentation then differs from sentencepiece's); the model's CONTROL
  pieces are special added tokens and its USER_DEFINED ones non-special added tokens, matched in
  the raw text (transformers' ``SentencePieceExtractor`` passes both on: Mistral v3's
  ``[INST]`` is one id, and ``skip_special_tokens`` drops its ``[control_N]`` pieces).
* ``fairseq-spm`` keeps sentencepiece's segmentation (the pipeline above, as ``plain``) in that
  layout: what fairseq itself gives, encoding with sentencepiece and moving the ids.

Left out: ``treat_whitespace_as_suffix`` and WORD/CHAR models (a ``ValueError``), UNUSED pieces
(kept in the vocab, not resegmented), sentencepiece's protection of user-defined pieces from
the charsmap, its character-by-character use of the charsmap (`tokenizers` replaces a grapheme
whole by the replacement of its shortest key prefix: U+3000 U+0300 becomes one space), and its choice between Unigram segmentations of equal score (`tokenizers`, and
this, may pick another).  Not yet matched either (found by a differential run, not fixed: the
native path below trims exactly one U+0020 at each end): with ``remove_extra_whitespaces``,
sentencepiece also drops U+2581 characters written in the text at its end, since it trims the
escaped form (``"ab\u2581"`` is ``['▁a', 'b']`` there, ``['▁a', 'b', '▁']`` here and in
`tokenizers`); and its decoder drops the ``▁`` of every leading piece until text appears (the
ids of ``"\u2581 x"`` decode to ``"x"`` there, ``"  x"`` here).  These tokenizers encode on the
native SentencePiece-style path
(:mod:`tokenforge.tokenizer.native_spm`).

Example:
    >>> from tokenforge.sentencepiece import ModelProto, PieceType
    >>> from tokenforge.formats.sentencepiece_model import SentencePiece
    >>> m = ModelProto()
    >>> for p, s, t in [("<unk>", 0, PieceType.UNKNOWN), ("<s>", 0, PieceType.CONTROL), ("</s>", 0, PieceType.CONTROL),
    ...                 ("▁a", -1, 1), ("b", -2, 1), ("▁", -3, 1), ("a", -4, 1)]:
    ...     m.pieces.append(SentencePiece(piece=p, score=s, type=t))
    >>> m.normalizer_spec.add_dummy_prefix = True
    >>> tokenizer_from_model(m).encode("a  ab").tokens
    ['▁a', '▁a', 'b']
    >>> tokenizer_from_model(m, convention="fairseq").encode("a b").ids
    [0, 4, 6, 5, 2]
"""

from __future__ import annotations

import base64
import os

from tokenforge import decoders, normalizers
from tokenforge.formats.sentencepiece_model import ModelProto, ModelType, PieceType
from tokenforge.models import BPE, Unigram
from tokenforge.processors import TemplateProcessing

CONVENTIONS = ("plain", "fairseq", "fairseq-spm")
SPACE = "\u2581"
_FLT_MIN = 1.1754943508222875e-38  # sentencepiece's starting value of the highest NORMAL score
_FAIRSEQ_HEAD = ("<s>", "<pad>", "</s>", "<unk>")
# sentencepiece's remove_extra_whitespaces: U+0020 only.  `(?<![\s\S])`/`(?![\s\S])` are the
# text's two ends in Oniguruma and `regex` alike (`^`/`$` are line anchors in Oniguruma).
_SPACE_RUNS = {"Regex": " {2,}"}
_EDGE_SPACES = {"Regex": r"(?<![\s\S]) | (?![\s\S])"}


def bpe_merges(pieces: list[tuple[str, float]], mergeable: set[int]) -> list[tuple[str, str]]:
    """Merges that make HF's rank-ordered BPE merge as sentencepiece's score-ordered one: for
    each mergeable piece, every split into two pieces, pieces ranked by score (highest first,
    then by id), splits of one piece left to right.

    Example:
        >>> bpe_merges([("a", 0.0), ("b", 0.0), ("ab", -1.0), ("abb", -0.5)], {2, 3})
        [('ab', 'b'), ('a', 'b')]
    """
    ids = {}
    for i, (p, _) in enumerate(pieces):
        ids.setdefault(p, i)
    out = []
    for i in sorted(mergeable, key=lambda i: (-pieces[i][1], i)):
        p = pieces[i][0]
        out.extend((p[:k], p[k:]) for k in range(1, len(p)) if p[:k] in ids and p[k:] in ids)
    return out


def _normalizer(model: ModelProto):
    ns = model.normalizer_spec
    space = SPACE if ns.escape_whitespaces else " "
    steps: list = []
    if ns.precompiled_charsmap:
        steps.append(normalizers.Precompiled(base64.b64encode(bytes(ns.precompiled_charsmap)).decode("ascii")))
    if ns.remove_extra_whitespaces:
        steps += [normalizers.Replace(_SPACE_RUNS, " "), normalizers.Replace(_EDGE_SPACES, "")]
    if ns.add_dummy_prefix:
        steps.append(normalizers.Prepend(space))
    if ns.escape_whitespaces:
        steps.append(normalizers.Replace({"String": " "}, SPACE))
    return normalizers.Sequence(steps)


def _decoder(model: ModelProto, byte_fallback: bool):
    ns = model.normalizer_spec
    steps: list = []
    if ns.escape_whitespaces:
        steps.append(decoders.Replace({"String": SPACE}, " "))
    if byte_fallback:
        steps.append(decoders.ByteFallback())
    steps.append(decoders.Fuse())
    if ns.add_dummy_prefix:
        steps.append(decoders.Strip(" ", 1, 0))
    return decoders.Sequence(steps)


def _layout(model: ModelProto, convention: str) -> tuple[list[tuple[str, float]], list[int], int]:
    """(pieces with scores in id order, piece types by id, unknown id) for the convention."""
    pieces = [(p.piece, float(p.score)) for p in model.pieces]
    types = [int(p.type) for p in model.pieces]
    unk = next((i for i, t in enumerate(types) if t == PieceType.UNKNOWN), None)
    if unk is None:
        raise ValueError("SentencePiece model has no UNKNOWN piece")
    if convention == "plain":
        return pieces, types, unk
    head = types[:3]
    if len(pieces) < 3 or sorted(head) != [PieceType.UNKNOWN, PieceType.CONTROL, PieceType.CONTROL]:
        raise ValueError("fairseq convention: the model's first three pieces must be its unknown piece and two "
                         f"control pieces (<unk>, <s>, </s>), got {[p for p, _ in pieces[:3]]!r}; they are replaced "
                         "by <s>, <pad>, </s>, <unk>")
    for name in _FAIRSEQ_HEAD + ("<mask>",):
        if name in {p for p, _ in pieces[3:]}:
            raise ValueError(f"fairseq convention: the model already has a piece {name!r} past its first three")
    head_pieces = [(n, 0.0) for n in _FAIRSEQ_HEAD]
    head_types = [PieceType.CONTROL, PieceType.CONTROL, PieceType.CONTROL, PieceType.UNKNOWN]
    return (head_pieces + pieces[3:] + [("<mask>", 0.0)], head_types + types[3:] + [PieceType.CONTROL], 3)


def tokenizer_from_model(model: ModelProto | str | os.PathLike[str], convention: str = "plain"):
    """The :class:`~tokenforge.tokenizer.Tokenizer` that encodes as the SentencePiece model
    (module docstring); `model` is a :class:`ModelProto` or the path of a ``.model`` file.

    Raises:
        OSError: the file cannot be read.
        ValueError: not a model file, an unknown convention, a WORD/CHAR model,
            ``treat_whitespace_as_suffix``, or a model the fairseq layout does not fit.
    """
    from tokenforge.tokenizer.added_vocabulary import AddedToken
    from tokenforge.tokenizer.tokenizer import Tokenizer

    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {CONVENTIONS}, got {convention!r}")
    m = model if isinstance(model, ModelProto) else ModelProto.load(os.fspath(model))
    ts = m.trainer_spec
    if ts.treat_whitespace_as_suffix:
        raise ValueError("treat_whitespace_as_suffix has no tokenizer.json equivalent")
    pieces, types, unk = _layout(m, convention)
    if convention == "fairseq":
        return _xlm_roberta(m, pieces, types)
    byte_fallback = bool(ts.byte_fallback)
    unigram = ts.model_type == ModelType.UNIGRAM
    if unigram:
        top = max([_FLT_MIN] + [s for (_, s), t in zip(pieces, types) if t == PieceType.NORMAL])
        pieces = [(p, len(p.encode("utf-8")) * top - 0.1 if t == PieceType.USER_DEFINED else s)
                  for (p, s), t in zip(pieces, types)]
        tok = Tokenizer(Unigram(pieces, unk, byte_fallback))
    elif ts.model_type == ModelType.BPE:
        vocab = {}
        for i, (p, _) in enumerate(pieces):
            vocab.setdefault(p, i)
        merges = bpe_merges(pieces, {i for i, t in enumerate(types) if t == PieceType.NORMAL})
        tok = Tokenizer(BPE(vocab, merges, unk_token=pieces[unk][0], fuse_unk=True, byte_fallback=byte_fallback))
    else:
        kind = ModelType(ts.model_type).name if ts.model_type in set(ModelType) else ts.model_type
        raise ValueError(f"SentencePiece model type {kind} has no tokenizer.json model")
    tok.normalizer = _normalizer(m)
    tok.decoder = _decoder(m, byte_fallback)
    added = []
    for (p, _), t in zip(pieces, types):
        if t in (PieceType.CONTROL, PieceType.UNKNOWN):
            added.append(AddedToken(p, normalized=False, special=True))
        elif t == PieceType.USER_DEFINED and not unigram:
            added.append(AddedToken(p, normalized=False, special=False))
    tok.add_tokens(added)
    if convention == "fairseq-spm":
        tok.post_processor = _xlm_roberta_template()
    return tok


def _xlm_roberta_template() -> TemplateProcessing:
    return TemplateProcessing(
        [_special("<s>"), _seq("A"), _special("</s>")],
        [_special("<s>"), _seq("A"), _special("</s>"), _special("</s>"), _seq("B"), _special("</s>")],
        {"<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]}, "</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]}})


def _xlm_roberta(model: ModelProto, pieces: list[tuple[str, float]], types: list[int]):
    """transformers' XLMRobertaTokenizer over `pieces` and their `types` (already in the fairseq
    layout): see the module docstring.  As transformers' ``SentencePieceExtractor``, the model's
    CONTROL pieces are special added tokens and its USER_DEFINED pieces non-special ones (both
    matched in the raw text, each keeping its vocab id), after the four head tokens and
    ``<mask>``."""
    from tokenforge.pre_tokenizers import Metaspace, Sequence, WhitespaceSplit
    from tokenforge.tokenizer.added_vocabulary import AddedToken
    from tokenforge.tokenizer.tokenizer import Tokenizer

    tok = Tokenizer(Unigram(pieces, 3, False))
    charsmap = model.normalizer_spec.precompiled_charsmap
    if charsmap:
        tok.normalizer = normalizers.Precompiled(base64.b64encode(bytes(charsmap)).decode("ascii"))
    tok.pre_tokenizer = Sequence([WhitespaceSplit(), Metaspace(SPACE, "always")])
    tok.decoder = decoders.Metaspace(SPACE, "always")
    tok.add_tokens([AddedToken(p, normalized=False, special=True) for p in (*_FAIRSEQ_HEAD, "<mask>")])
    tok.add_tokens([AddedToken(p, normalized=False, special=t == PieceType.CONTROL)
                    for (p, _), t in zip(pieces[4:-1], types[4:-1])
                    if t in (PieceType.CONTROL, PieceType.USER_DEFINED)])
    tok.post_processor = _xlm_roberta_template()
    return tok


def _special(name: str) -> dict:
    return {"SpecialToken": {"id": name, "type_id": 0}}


def _seq(name: str) -> dict:
    return {"Sequence": {"id": name, "type_id": 0}}
