"""DecodeStream: decode ids one at a time, yielding text once it is complete.

As `tokenizers.decoders.DecodeStream`: the ids seen so far are kept from a prefix index; each
step decodes `ids[prefix:]`, and returns the new text past the previous decode only when it
grew and does not end in U+FFFD (an incomplete character), then moves the prefix forward.
A stream may start from ids already generated (a prompt): their text is never returned, and
the first step returns only what its ids add to it.

Example:
    >>> class T:  # any object with decode(ids, skip_special_tokens=...)
    ...     def decode(self, ids, skip_special_tokens=False): return "".join(map(chr, ids))
    >>> s = DecodeStream(); s.step(T(), 104), s.step(T(), 105)
    ('h', 'i')
    >>> DecodeStream([104, 105]).step(T(), [33, 33])
    '!!'
"""

from __future__ import annotations

import operator


def _ids(value, what: str) -> list[int]:
    """A list of ids from an int or a sequence of ints (TypeError otherwise, as tokenizers)."""
    try:
        return [operator.index(value)]
    except TypeError:
        pass
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{what} must be an integer or a list of integers, not {type(value).__name__}")
    try:
        return [operator.index(x) for x in value]
    except TypeError:
        raise TypeError(f"{what} must be an integer or a list of integers") from None


def _utf8_len(s: str) -> int:
    return len(s) if s.isascii() else len(s.encode("utf-8", "surrogatepass"))


class DecodeStream:
    """Incremental decoding (module docstring).

    Args:
        ids: ids already generated (a prompt) whose text the stream is not to return.
        skip_special_tokens: as in `Tokenizer.decode`.
    """

    def __init__(self, ids=None, skip_special_tokens: bool = False) -> None:
        self.skip_special_tokens = skip_special_tokens
        self.ids: list[int] = [] if ids is None else _ids(ids, "ids")
        self.prefix = ""
        self.prefix_index = 0

    def step(self, tokenizer, id) -> str | None:
        """The text that `id` (an id, or a list of ids) completes, or None while it is incomplete.

        Raises:
            TypeError: `id` is neither an int nor a list of ints.
            ValueError: an id that is not in the vocabulary (tokenforge's `decode` raises where
                `tokenizers` drops it); the stream is left as it was before the call, so the
                next step goes on as if `id` had not been given.  Also when the decoded text
                no longer starts with what was returned (tokenizers errors there too).
        """
        new = _ids(id, "id")
        if not self.prefix and self.ids:  # a stream started from ids: their text is the prefix
            prefix = tokenizer.decode(self.ids, skip_special_tokens=self.skip_special_tokens)
            if not prefix.endswith("\ufffd"):
                self.prefix, self.prefix_index = prefix, len(self.ids)
        before = len(self.ids)
        self.ids.extend(new)
        try:
            string = tokenizer.decode(self.ids, skip_special_tokens=self.skip_special_tokens)
        except ValueError:
            del self.ids[before:]
            raise
        # tokenizers compares lengths in UTF-8 bytes; equal to comparing characters when the
        # text starts with the prefix, and only then is the text returned.
        if not string.endswith("\ufffd") and _utf8_len(string) > _utf8_len(self.prefix):
            if not string.startswith(self.prefix):
                raise ValueError("DecodeStream: the decoded text no longer starts with what was returned")
            new_text = string[len(self.prefix):]
            new_prefix_index = len(self.ids) - self.prefix_index
            self.ids = self.ids[self.prefix_index:]
            self.prefix = tokenizer.decode(self.ids, skip_special_tokens=self.skip_special_tokens)
            self.prefix_index = new_prefix_index
            return new_text
        return None
