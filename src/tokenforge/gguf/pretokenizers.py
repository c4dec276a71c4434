"""llama.cpp's pre-tokenizers: which split regexes each ``tokenizer.ggml.pre`` name runs.

A byte-level BPE GGUF (``tokenizer.ggml.model = "gpt2"``) names its pre-tokenizer in
``tokenizer.ggml.pre``.  llama.cpp maps every name it knows to a pre-tokenizer type and
each type to a list of regexes applied one after the other: the first cuts the text, each
next one cuts every piece made so far, and text between two matches stays a piece of its
own (Hugging Face's ``Split(..., behavior="Isolated")``, which :mod:`.split` implements).
The tables below are facts from llama.cpp's ``src/llama-vocab.cpp`` (``llama_vocab::impl::load``
and ``llm_tokenizer_bpe``): the names, the regexes, and the per-type defaults
(``add_bos``, ``ignore_merges``).

Where llama.cpp rewrote a model's own regex for its C++ regex engine (``(?i:'s|...)``
spelled ``'[sS]|...``) and kept the model's ``tokenizer.json`` regex in a comment, we run
the original: the model's own tokenizer (and the reference ids in llama.cpp's test
vocabularies, made with ``transformers``) uses it.  The two spellings differ only on an
apostrophe followed by U+017F LATIN SMALL LETTER LONG S, which ``(?i:s)`` matches.

What this module leaves out: pre-tokenizers llama.cpp implements in custom C++ rather than
regexes (``kimi-k2``, ``afmoe``) and the SentencePiece-style BPE types (``gemma4``,
``sarvam-moe``, ``whitespace``), which byte-level BPE cannot run: :func:`pre_tokenizer`
raises a ``ValueError`` naming them.

Example:
    >>> p = pre_tokenizer("qwen2")
    >>> p.type, len(p.regexes), p.ignore_merges
    ('qwen2', 1, False)
    >>> pre_tokenizer("no-such-pre")
    Traceback (most recent call last):
    ...
    ValueError: unknown tokenizer.ggml.pre 'no-such-pre' (llama.cpp knows 90 names; see tokenforge.gguf.pretokenizers.PRE_NAMES)
"""

from __future__ import annotations

import dataclasses

from tokenforge import patterns

# ---- regexes, as llama.cpp spells them (C escapes undone) ----

_CONTRACTIONS_CI = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"
_GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"
_LLAMA3 = _CONTRACTIONS_CI + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
_QWEN2 = _CONTRACTIONS_CI + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
_CJK = "[一-龥ࠀ-一가-퟿]+"
_HAN_KANA = "[一-龥぀-ゟ゠-ヿ]+"
_ASCII_PUNCT_WORD = "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+"  # C-string escapes, as llama.cpp
_PORO = r" ?[^(\s|.,!?…。，、।۔،)]+"
_O200K_LOOKAHEAD = (
    r"[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+" + _CONTRACTIONS_CI + "?"
    r"|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*" + _CONTRACTIONS_CI + "?"
    r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_O200K_CLASSES_CI = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+" + _CONTRACTIONS_CI + "?"
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*" + _CONTRACTIONS_CI + "?"
    r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_TEKKEN_ORIGINAL = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"
    r"|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_DEEPSEEK_LLM_LETTERS = (
    "\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-\u1f7dᾀ-ᾴᾶ-ᾼ\u1fbeῂ-ῄ"
    "ῆ-ῌῐ-\u1fd3ῖ-\u1fdbῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤ\u2126ℨ\u212a-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+"
)


def _original(rest: str) -> str:
    """A model's own regex: llama.cpp's with the case-insensitive contractions group."""
    return r"(?i:'s|'t|'re|'ve|'m|'ll|'d)" + rest


@dataclasses.dataclass(frozen=True)
class PreTokenizer:
    """One llama.cpp pre-tokenizer type.

    Attributes:
        type: the type's name (llama.cpp's ``LLAMA_VOCAB_PRE_TYPE_*``, lower-cased).
        llama_cpp_regexes: the regexes as llama.cpp applies them, in order.
        regexes: the regexes tokenforge runs: llama.cpp's, or the model's original where
            llama.cpp notes one (they split alike but on ``'ſ``).
        ignore_merges: a piece that is a whole token becomes that token (llama.cpp's default
            for the type; a file cannot override it).
        add_bos: llama.cpp's default for ``add_bos_token`` when the file does not say.
        supported: False where llama.cpp runs custom C++, not these regexes.
    """

    type: str
    llama_cpp_regexes: tuple[str, ...]
    regexes: tuple[str, ...]
    ignore_merges: bool = False
    add_bos: bool = False
    supported: bool = True


def _pre(type_: str, llama_cpp: list[str], original: list[str] | None = None, **flags: bool) -> PreTokenizer:
    return PreTokenizer(type_, tuple(llama_cpp), tuple(original or llama_cpp), **flags)


_LLAMA3_ORIG = patterns.LLAMA3  # the Llama 3 tokenizer.json regex (tokenforge runs it natively)
_QWEN2_ORIG = _original(r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_STARCODER = [r"\p{N}", _GPT2]

# type -> pre-tokenizer (llm_tokenizer_bpe's switch over the pre type).
PRE_TYPES: dict[str, PreTokenizer] = {p.type: p for p in [
    _pre("default", [r"[\p{P}\$\+<=>\^~\|]+", _GPT2, r"\p{N}+", "[0-9][0-9][0-9]"]),
    _pre("llama3", [_LLAMA3], [_LLAMA3_ORIG], ignore_merges=True, add_bos=True),
    _pre("jais2", [_LLAMA3.replace(r"|\s+(?!\S)|\s+", "") + r"|\s{512}(?!\S)|\s{256}(?!\S)|\s{128}(?!\S)|\s{64}(?!\S)"
                   r"|\s{32}(?!\S)|\s{16}(?!\S)|\s{8}(?!\S)|\s{4}(?!\S)|\s{1,2}(?!\S)|\s{1}"],
         [_original(r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s{512}(?!\S)"
                    r"|\s{256}(?!\S)|\s{128}(?!\S)|\s{64}(?!\S)|\s{32}(?!\S)|\s{16}(?!\S)|\s{8}(?!\S)|\s{4}(?!\S)"
                    r"|\s{1,2}(?!\S)|\s{1}")]),
    _pre("dbrx", [_LLAMA3]),
    _pre("smaug", [_LLAMA3]),
    _pre("deepseek_llm", ["[\r\n]", _DEEPSEEK_LLM_LETTERS, r"\s?[!-/:-~！-／：-～‘-‟　-。]+", r"\s+$", _CJK, r"\p{N}+"]),
    _pre("deepseek3_llm", [r"\p{N}{1,3}", _HAN_KANA, _ASCII_PUNCT_WORD + r"|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+"
                           r"| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"]),
    _pre("spark2_5", [r"\p{N}{1,3}", _HAN_KANA, _ASCII_PUNCT_WORD + r"|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+"
                      r"| ?[\p{P}\p{S}]+|[\r\n]|\s+(?!\S)|\s+", r"\p{N}"]),
    _pre("youtu", ["[가-힣ㄱ-ㆎ]+|[！…“”‘’—：；，、-〿︰-﹏]+|[ㄅ-ㄯ]+|" + _HAN_KANA,
                   _O200K_CLASSES_CI.replace(r"\p{N}{1,3}", r"\p{N}")], ignore_merges=True),
    _pre("deepseek_coder", ["[\r\n]", r"\s?\p{L}+", r"\s?\p{P}+", _CJK, r"\p{N}"]),
    _pre("falcon", [r"[\p{P}\$\+<=>\^~\|`]+", _GPT2, "[0-9][0-9][0-9]"]),
    _pre("starcoder", _STARCODER),
    _pre("gpt2", [_GPT2]),
    _pre("qwen2", [_QWEN2], [_QWEN2_ORIG]),
    _pre("qwen35", [_CONTRACTIONS_CI + r"|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"
                    r"|\s*[\r\n]+|\s+(?!\S)|\s+"],
         [_original(r"|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")]),
    _pre("poro", [_PORO]),
    _pre("chatglm4", [_LLAMA3]),
    _pre("viking", [_PORO, r"\p{N}"]),
    _pre("tekken", [_O200K_LOOKAHEAD.replace(_CONTRACTIONS_CI + "?", "").replace(r"\p{N}{1,3}", r"\p{N}")],
         [_TEKKEN_ORIGINAL], ignore_merges=True, add_bos=True),
    _pre("chameleon", ["<sentinel:[0-9]+>", "(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z", r"([\t\n]|    |  )", r"\p{N}",
                       r"[\p{P}!-/:-@\[-`{-~]", _GPT2], add_bos=True),
    _pre("gpt4o", [_O200K_LOOKAHEAD], [patterns.O200K]),
    _pre("granite_emb_multi", [_O200K_LOOKAHEAD.replace(r"(?=[\p{L}])", r"(?=[\p{L}\p{M}])")], ignore_merges=True),
    _pre("tiny_aya", [r"\d{1,3}(?=(?:\d{3})*\b)", _O200K_CLASSES_CI], [r"\d{1,3}(?=(?:\d{3})*\b)", patterns.O200K]),
    _pre("kimi_k2", [r"\p{Han}+"], supported=False),
    _pre("superbpe", [r"\p{N}+", r"(?=(\d{3})+(?!\d))"]),
    _pre("bailingmoe", [r"'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
                        r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+"],
         [r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+"]),
    _pre("seed_coder", [_CONTRACTIONS_CI + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}| ?[^\s\p{L}\p{N}\r\n]+|\s*[\r\n]+"
                        r"|\s+(?!\S)|\s+"],
         [_original(r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}| ?[^\s\p{L}\p{N}\r\n]+|\s*[\r\n]+|\s+(?!\S)|\s+")]),
    _pre("ufakzeka", [r"[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"]),
    _pre("grok_2", [_QWEN2], [_QWEN2_ORIG]),
    _pre("afmoe", [r"\p{AFMoE_digits}"], supported=False),
    _pre("laguna", [r"[^\n]+|[\n]+", _QWEN2]),
    _pre("exaone_moe", [_CONTRACTIONS_CI + r"|[^\r\n\p{L}\p{N}]?(?:\p{L}\p{M}*(?: \p{L}\p{M}*)*)+|\p{N}"
                        r"| ?[^\s\p{L}\p{N}]+[\r\n/]?|\s*[\r\n]|\s+(?!\S)|\s+"],
         [_original(r"|[^\r\n\p{L}\p{N}]?(?:\p{L}\p{M}*(?: \p{L}\p{M}*)*)+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]?"
                    r"|\s*[\r\n]|\s+(?!\S)|\s+")]),
    _pre("gemma4", [r"[^\n]+|[\n]+"], supported=False),
    _pre("sarvam_moe", [r"[^\n]+|[\n]+"], supported=False),
    _pre("minicpm5", [r"\p{N}{1,3}", _CONTRACTIONS_CI + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}+| ?[^\s\p{L}\p{N}]+[\r\n]*"
                      r"|\s*[\r\n]+|\s+(?!\S)|\s+"],
         [r"\p{N}{1,3}", _original(r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}+| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")],
         ignore_merges=True),
    _pre("whitespace", [r"\S+"], supported=False),
]}

# Types that share another type's regexes in llama.cpp's switch.
for _alias, _same in [
    ("hunyuan_dense", "deepseek3_llm"), ("joyai_llm", "deepseek3_llm"), ("hy_v4", "deepseek3_llm"),
    ("refact", "starcoder"), ("command_r", "starcoder"), ("smollm", "starcoder"), ("codeshell", "starcoder"),
    ("exaone", "starcoder"), ("minerva", "starcoder"), ("mellum2", "starcoder"),
    ("mpt", "gpt2"), ("olmo", "gpt2"), ("jais", "gpt2"), ("trillion", "gpt2"), ("granite_docling", "gpt2"),
    ("stablelm2", "qwen2"), ("hunyuan", "qwen2"), ("solar_open", "qwen2"),
    ("bloom", "poro"), ("gpt3_finnish", "poro"), ("minimax_m2", "gpt4o"),
]:
    PRE_TYPES[_alias] = dataclasses.replace(PRE_TYPES[_same], type=_alias, ignore_merges=False, add_bos=False)

# tokenizer.ggml.pre name -> (type, overrides of the type's defaults) (llama_vocab::impl::load).
PRE_NAMES: dict[str, tuple[str, dict[str, bool]]] = {}
for _type, _names, _flags in [
    ("default", ["default"], {}),
    ("minicpm5", ["minicpm5"], {"ignore_merges": True}),
    ("llama3", ["llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2",
                "jina-v5-nano"], {}),
    ("deepseek_llm", ["deepseek-llm"], {}),
    ("deepseek_coder", ["deepseek-coder"], {}),
    ("deepseek3_llm", ["deepseek-v3"], {}),
    ("spark2_5", ["spark2_5"], {}),
    ("youtu", ["youtu"], {}),
    ("falcon", ["falcon"], {}),
    ("mpt", ["mpt"], {}),
    ("starcoder", ["starcoder"], {}),
    ("gpt2", ["gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum",
              "modern-bert", "jina-v1-en", "jina-v2-code", "roberta-bpe", "exaone4"], {}),
    ("jais2", ["jais-2"], {}),
    ("gemma4", ["gemma4", "granite-embed-multi-311m"], {}),
    ("sarvam_moe", ["sarvam-moe"], {}),
    ("whitespace", ["whitespace"], {}),
    ("refact", ["refact"], {}),
    ("command_r", ["command-r"], {}),
    ("qwen2", ["qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "megrez"], {}),
    ("qwen35", ["qwen35"], {}),
    ("stablelm2", ["stablelm2"], {}),
    ("olmo", ["olmo"], {}),
    ("dbrx", ["dbrx"], {}),
    ("smaug", ["smaug-bpe"], {}),
    ("poro", ["poro-chat"], {}),
    ("chatglm4", ["glm4", "chatglm-bpe"], {}),
    ("viking", ["viking"], {}),
    ("jais", ["jais"], {}),
    ("tekken", ["tekken"], {}),
    ("smollm", ["smollm"], {}),
    ("codeshell", ["codeshell"], {}),
    ("bloom", ["bloom"], {}),
    ("gpt3_finnish", ["gpt3-finnish"], {}),
    ("exaone", ["exaone"], {}),
    ("exaone_moe", ["exaone-moe"], {}),
    ("chameleon", ["chameleon"], {}),
    ("minerva", ["minerva-7b"], {}),
    ("gpt4o", ["gpt-4o", "llama4", "kanana2", "talkie"], {}),
    ("granite_emb_multi", ["granite-embed-multi-97m"], {}),
    ("tiny_aya", ["tiny_aya", "cohere2moe"], {}),
    ("superbpe", ["superbpe"], {}),
    ("trillion", ["trillion"], {}),
    ("granite_docling", ["granite-docling"], {}),
    ("bailingmoe", ["bailingmoe", "bailingmoe2", "llada-moe"], {}),
    ("seed_coder", ["seed-coder"], {}),
    ("hunyuan", ["hunyuan"], {}),
    ("hunyuan_dense", ["hunyuan-dense"], {}),
    ("hy_v4", ["hy_v4"], {}),
    ("joyai_llm", ["joyai-llm"], {}),
    ("kimi_k2", ["kimi-k2"], {}),
    ("ufakzeka", ["ufakzeka"], {}),
    ("grok_2", ["grok-2"], {}),
    ("afmoe", ["afmoe"], {}),
    ("laguna", ["laguna"], {}),
    ("minimax_m2", ["minimax-m2"], {}),
    ("solar_open", ["solar-open"], {}),
    ("mellum2", ["mellum2"], {}),
]:
    for _name in _names:
        PRE_NAMES[_name] = (_type, _flags)


def pre_tokenizer(name: str | None) -> PreTokenizer:
    """The pre-tokenizer llama.cpp runs for a ``tokenizer.ggml.pre`` value.

    Args:
        name: the file's ``tokenizer.ggml.pre``; None or ``""`` means ``default``, as in
            llama.cpp (which warns that quality will suffer).

    Returns:
        The :class:`PreTokenizer` (its ``type`` is llama.cpp's type, not the name).

    Raises:
        ValueError: a name llama.cpp does not know, or one whose splitting is custom C++
            (see the module docstring).

    >>> pre_tokenizer("llama-bpe").type, pre_tokenizer("llama-bpe").add_bos
    ('llama3', True)
    """
    key = name or "default"
    if key not in PRE_NAMES:
        raise ValueError(f"unknown tokenizer.ggml.pre {name!r} (llama.cpp knows {len(PRE_NAMES)} names;"
                         " see tokenforge.gguf.pretokenizers.PRE_NAMES)")
    type_, flags = PRE_NAMES[key]
    pre = PRE_TYPES[type_]
    if not pre.supported:
        raise ValueError(f"tokenizer.ggml.pre {name!r} (llama.cpp type {type_!r}) is not yet supported: llama.cpp"
                         " splits it with custom code or runs it as SentencePiece-style BPE")
    return dataclasses.replace(pre, **flags) if flags else pre
