"""Tests of the native encoder's internal strategies, one file per fast path (character
atoms, character merges, joins by id, the ASCII triple filter, safe cuts, the trie and
backtracking merges of long pieces, the ASCII splitter and the scanners' multi-byte runs):
each drives its path's edge cases and checks the result against tiktoken or against the
path's plain-Python oracle in tokenforge.reference.fast_paths.  Behaviour seen from the
API (short pieces, long pieces, non-ASCII text, adversarial inputs) is tested under
tests/parity/ and tests/property/."""
