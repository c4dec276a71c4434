"""tiktoken's allowed/disallowed special-token policy, case by case."""

from __future__ import annotations

import pytest
from _tiktoken_refs import ALL_ENCODINGS, pair

TEXTS = [
    "hello <|endoftext|> world",
    "<|endoftext|>",
    "<|endoftext|><|endoftext|>x<|fim_prefix|>",
    "a <|endofprompt|>\n\n <|fim_middle|>  ",
    "<|endoftext",
    "<<|endoftext|>>",
    "no specials at all",
    "<|start|>user<|message|>hi<|end|><|reserved_200018|><|fim_suffix|><|begin_of_text|><|eot_id|>",
]

POLICIES = [
    dict(allowed_special="all"),
    dict(allowed_special="all", disallowed_special=()),
    dict(disallowed_special=()),
    dict(allowed_special={"<|endoftext|>"}, disallowed_special=()),
    dict(allowed_special={"<|endoftext|>"}),
    dict(),
    dict(disallowed_special={"<|endoftext|>"}),
]


def outcome(fn):
    try:
        return fn()
    except ValueError as e:
        return ("ValueError", str(e))


@pytest.mark.parametrize("name", ALL_ENCODINGS)
@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("policy", POLICIES)
def test_policy_matches_tiktoken(name, text, policy):
    ours, ref = pair(name)
    policy = {k: (v if v == "all" or not v else {t for t in v if t in ref.special_tokens_set}) for k, v in policy.items()}
    want = outcome(lambda: ref.encode(text, **policy))
    assert outcome(lambda: ours.encode(text, **policy)) == want
    assert outcome(lambda: ours.encode_batch([text, text], **policy)) == outcome(lambda: ref.encode_batch([text, text], **policy))
    if not isinstance(want, tuple):
        assert list(ours.encode_to_numpy(text, **policy)) == list(ref.encode_to_numpy(text, **policy))


def test_single_token_round_trips():
    ours, ref = pair("cl100k_base")
    for t in ["hello", "<|endoftext|>", " world", b"\xff"]:
        assert ours.encode_single_token(t) == ref.encode_single_token(t)
    with pytest.raises(KeyError):
        ours.encode_single_token("definitely not one token")
    for i in [0, 100, 100257, 100276]:
        assert ours.decode_single_token_bytes(i) == ref.decode_single_token_bytes(i)
    assert ours.eot_token == ref.eot_token
    assert ours.n_vocab == ref.n_vocab and ours.max_token_value == ref.max_token_value
    assert ours.special_tokens_set == ref.special_tokens_set
    assert ours.token_byte_values() == ref.token_byte_values()
