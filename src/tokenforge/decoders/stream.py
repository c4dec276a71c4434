"""DecodeStream: decode ids one at a time, yielding text once it is complete.

As `tokenizers.decoders.DecodeStream`: the ids seen so far are kept from a prefix index; each
step decodes `ids[prefix:]`, and returns the new text past the previous decode only when it
grew and does not end in U+FFFD (an incomplete character), then moves the prefix forward.

Example:
    >>> class T:  # any object with decode(ids, skip_special_tokens=...)
    ...     def decode(self, ids, skip_special_tokens=False): return "".join(map(chr, ids))
    >>> s = DecodeStream(); s.step(T(), 104), s.step(T(), 105)
    ('h', 'i')
"""

from __future__ import annotations


class DecodeStream:
    """Incremental decoding (module docstring)."""

    def __init__(self, skip_special_tokens: bool = False) -> None:
        self.skip_special_tokens = skip_special_tokens
        self.ids: list[int] = []
        self.prefix = ""
        self.prefix_index = 0

    def step(self, tokenizer, id: int) -> str | None:
        """The text that `id` completes, or None while it is incomplete.

        Raises:
            ValueError: `id` is not in the vocabulary (tokenforge's `decode` raises where
                `tokenizers` drops it); the stream is left as it was before the call, so the
                next step goes on as if `id` had not been given.  Also when the decoded text
                no longer starts with what was returned (tokenizers errors there too).
        """
        self.ids.append(id)
        try:
            string = tokenizer.decode(self.ids, skip_special_tokens=self.skip_special_tokens)
        except ValueError:
            self.ids.pop()
            raise
        if len(string) > len(self.prefix) and not string.endswith("\ufffd"):
            if not string.startswith(self.prefix):
                raise ValueError("DecodeStream: the decoded text no longer starts with what was returned")
            new_text = string[len(self.prefix):]
            new_prefix_index = len(self.ids) - self.prefix_index
            self.ids = self.ids[self.prefix_index:]
            self.prefix = tokenizer.decode(self.ids, skip_special_tokens=self.skip_special_tokens)
            self.prefix_index = new_prefix_index
            return new_text
        return None
