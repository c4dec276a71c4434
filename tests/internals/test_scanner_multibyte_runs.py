"""The scanners' fast paths for text in other scripts (cpp/pretokenize/scan_util.h run2 and
run3, the cl100k scanner's entry for words of three-byte letters,
ascii_splitter.cc's early exit on windows that start with non-ASCII) against the regexes
and tiktoken.

run2 skips runs of two-byte characters of a scanner's letter sets (cl100k's letters,
o200k's upper and lower case sets) with a bitmap each: Cyrillic, Greek, Hebrew and Arabic
words, next to two-byte marks, digits, symbols, punctuation and spaces.
run3 skips runs of three-byte characters whose class is Lm or Lo (and, for o200k's case
runs, M) with a bitmap; it must stop exactly where the class changes, so the texts here mix
those characters with their three-byte neighbours of every other class: kana voicing marks
(Mn) and their spacing forms (Sk), the prolonged sound mark (Lm), the katakana middle dot
(Po), fullwidth capitals and small letters (Lu, Ll), fullwidth and Roman numerals (Nd, Nl),
the ideographic space (White_Space), Devanagari and Thai vowel signs (Mc, Mn), an enclosing
mark (Me), private use and noncharacters, and CJK punctuation.  Around them: ASCII words,
spaces, apostrophe contractions, newlines, two-byte letters of both cases and combining
marks, and four-byte ideographs, since each run's end hands over to the general path.
Texts are short and long (runs cross the splitter's 64-byte windows and the 4-byte loads
near the end of the text).
"""

from __future__ import annotations

import functools
import random

import pytest
import regex
from _scanners import PATTERNS, regex_ends
from _tiktoken_refs import pair
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokenforge import _native


THREE_BYTE = list(
    "中文字漢語한국어ひらがなカタカナ"  # Lo: ideographs, Hangul, kana
    "\u3099\u309a"  # combining voicing marks (Mn)
    "\u309b\u309c"  # their spacing forms (Sk: neither letter nor mark)
    "\u309d\u309e\u30fc\u3005"  # iteration marks, prolonged sound mark (Lm)
    "\u30fb\u3001\u3002\u300c\u300d"  # katakana middle dot, CJK punctuation (Po, Ps, Pe)
    "\uff21\uff22\uff41\uff42"  # fullwidth capitals and small letters (Lu, Ll)
    "\u1e9e\u1f88\u1f80\u2c00\u2c30"  # three-byte Lu, Lt, Ll
    "\uff10\uff19\u2160\u2170\u3007"  # fullwidth digits (Nd), Roman numerals, ideographic zero (Nl)
    "\u3000\u2028\u2003"  # ideographic space, line separator, em space (White_Space)
    "\u0915\u093e\u093f\u0941\u094d"  # Devanagari letter, vowel signs (Mc, Mn), virama
    "\u0e01\u0e31\u0e34\u0e48"  # Thai letter and marks (Mn)
    "\u20dd\u1ab0"  # enclosing mark (Me), combining mark (Mn)
    "\ue000\ufffd\ufffe\u2028"  # private use, replacement character, noncharacter
    "\u0800\u0fff\u1000\uffef"  # the ends of the three-byte range
)
TWO_BYTE = list(
    "приветПРИВЕТ"  # Cyrillic Ll, Lu
    "αβΩΣςἀ"  # Greek Ll, Lu
    "אבגبتث"  # Hebrew and Arabic letters (Lo)
    "\u00aa\u00ba\u00b5\u02b0\u02c6\u01c5\u01c8"  # ordinal indicators (Lo), micro sign (Ll), modifier letters (Lm), titlecase (Lt)
    "\u0301\u0308\u0483\u064e\u05b4"  # combining marks (Mn)
    "\u0660\u0669\u00b2\u00bd"  # Arabic-Indic digits (Nd), superscript two, one half (No)
    "\u00a0\u0085"  # no-break space, next line (White_Space)
    "\u00d7\u00ad\u037e\u055d\u00a7\u07ff\u0080"  # symbols, soft hyphen, punctuation, the range's ends
)
OTHERS = list("aZ '\n\r\t.sSlLvVdD1") + ["'s", "'ll", "'T", "é", "É", "ж", "Ж", "\u017f", "𠀀", "😀"]
ALPHABET = THREE_BYTE + TWO_BYTE + OTHERS


@functools.lru_cache(maxsize=None)
def _regex_agrees_with_tiktoken(ch: str) -> bool:
    """`regex` runs a newer Unicode version than tiktoken; characters the two classify
    differently are left out of the comparison with `regex`."""
    from tokenforge._unicode_probe import tiktoken_classes

    classes = tiktoken_classes()
    return all((regex.match(p, ch) is not None) == (ord(ch) in members) for p, members in classes.items())


def check(text: str) -> None:
    text = "".join(ch for ch in text if _regex_agrees_with_tiktoken(ch))
    data = text.encode()
    for scanner in PATTERNS:
        got, _ = _native._split(int(scanner), data)
        assert got == regex_ends(scanner, text), (scanner, text)


def test_alphabet_is_mostly_comparable():
    kept = [ch for ch in ALPHABET if all(_regex_agrees_with_tiktoken(c) for c in ch)]
    assert len(kept) > 0.9 * len(ALPHABET)


def test_each_neighbour_after_a_run_of_each_length():
    runs = ["中", "カタカナ", "ー", "ゝ", "\u0915\u093e", "\u0e01\u0e31", "при", "П", "ПР", "ب", "e\u0301", "\u01c5"]
    for run in runs:
        for k in (1, 2, 5, 6, 21, 22):
            for ch in ALPHABET:
                for lead in ("", " ", "'", "A", "a", "、"):
                    check(lead + run * k + ch)
                    check(lead + run * k + ch + "中字")


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(ALPHABET), max_size=120).map("".join))
def test_hypothesis_mixed_scripts(text):
    check(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            st.lists(st.sampled_from(THREE_BYTE[:16] + ["ー"]), min_size=1, max_size=40).map("".join),
            st.lists(st.sampled_from(TWO_BYTE[:20]), min_size=1, max_size=40).map("".join),
            st.sampled_from(ALPHABET),
            st.text(alphabet="ab AB\n'", min_size=1, max_size=8),
        ),
        max_size=30,
    ).map("".join)
)
def test_hypothesis_long_runs_between_other_characters(text):
    check(text)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "r50k_base", "llama3"])
def test_ids_equal_to_tiktoken(name):
    """No `regex` in between: tiktoken's own split, all characters kept."""
    ours, ref = pair(name)
    rng = random.Random(5)
    for _ in range(300):
        n = rng.choice([1, 3, 10, 40, 200])
        weights = [rng.random() ** 3 for _ in ALPHABET]
        text = "".join(rng.choices(ALPHABET, weights=weights, k=n))
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text), text


# run2 tests two characters per 4-byte load and run3 two per 8-byte load, each with a
# shorter tail loop once fewer bytes remain: where a run stops relative to the end of the
# text decides which loop sees it.  Every prefix of these texts ends the text at each
# character of the run, so each stop falls at each distance from the end.
BOUNDARY_TEXTS = [
    " приветмир, Ωμέγα'sβ 12ж\u0301ЖЖa",
    "Привет—мир «тест» ПРИВЕТ'Ll ещё\u00a0раз",
    "日本語のテキスト、カタカナー\u3099ゝ。漢字'sかな 123 中文",
    " 한국어テキストпривет中\u0301文αβγ'd\u30fb字",
    "ab\u00e9\u00e8c ж日ж日жж日日 'ſ '\u017fx \u0915\u093e\u0915 \u0e01\u0e31\u0e01",
]


@pytest.mark.parametrize("text", BOUNDARY_TEXTS)
def test_runs_stop_at_every_distance_from_the_end(text):
    for k in range(1, len(text) + 1):
        check(text[:k])
        check(" " + text[:k])
        check(text[len(text) - k :])
