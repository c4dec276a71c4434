// trie_chunk_merge: tiktoken's merge order (lowest rank first, leftmost on ties) for one
// chunk of at most kMaxTrieChunk bytes of a long piece, with the TokenTrie for every lookup.
//
// The same quadratic scan as ByteLevelBpe::merge_short (each step takes the minimum over
// all positions, a vectorized loop; nothing is shifted), but a part is a trie node, and
// the rank of joining it with the next part is a walk from that node along the next part's
// bytes instead of a hash lookup of the joined bytes.  The key of position i is
// rank << 8 | i, so one minimum is the lowest rank at its leftmost position; when a merge
// makes no join of lower rank, the next merge of the same rank is found by looking right,
// at most 16 positions (runs and periods merge whole rounds of one rank without a scan
// each; where a rank repeats far apart, as on random spaces and tabs, the look stays short).  The walk of a
// join is kept (token or not) and goes on along the added bytes when its right part grows,
// so the left part is not walked again (runs of whitespace gain most); the walks of two
// single bytes come with their token from the trie's pair table, so a merge never walks
// the part it makes (the walk was on every merge's chain).
// A scan also takes the second smallest key, the next merge without a scan when the merge
// of the smallest wrote only larger keys and left it in place (on random letters a large
// share of the merges).  The keys a merge writes
// reach the key array only after the next scan, which takes them from registers: the
// scan of the other keys does not wait for the merge's trie walks, and it can be one
// vectorized pass (both smallest keys) without loads meeting stores still in flight
// (figures: benchmarks/README.md).  A walk is kept with its node's base (TokenTrie::Walk),
// so each step is one load, and a step has no branch: most walks on random letters
// end in no token, at the first or the second byte, which the walk loop mispredicted
// (the same steps with branches were no faster than the two-load walk before).
// Chunks of at most 63 bytes keep their part starts in one 64-bit word instead (a
// neighbour is a bit scan, not a load each merge waits for), and chunks of at most 64
// bytes take their minimum with four scalar running minimums (see scalar_min); longer ones
// keep the minimum of each block of 16 keys and refresh only the blocks merges changed.
// O(n^2 / vector width + merges * part length) per chunk.  Exact for any vocabulary; its
// pure-Python reference is bpe_merge in reference/bpe.py (the same merge order), and
// bpe_merge_second_smallest there for the scans it skips.
//
// On x86-64 CPUs with AVX2 and BMI2 a second build of the same code runs (see
// trie_chunk_merge.cc): eight keys a vector, and bit scans without flags.
//
// Trade-off: on random letters (chunks of 15-30 bytes, each new) the walks stay in cache
// where the hash lookups missed, and runs cut into chunks of 64-256 bytes merge faster
// than with them; but it needs the trie, built on first use, so only the chunks of long
// pieces take it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/byte_level/vocab/token_trie.h"

namespace tf::byte_level {

constexpr size_t kMaxTrieChunk = 256;

// Appends the ids of chunk [p, p + n) (2 <= n <= kMaxTrieChunk, every byte a token).
void trie_chunk_merge(const TokenTrie& trie, const uint8_t* p, size_t n, std::vector<uint32_t>* out);

// Which build of the merge runs (see trie_chunk_merge.cc): 0 the baseline one, 1 the one
// for AVX2 and BMI2.  The best the CPU has unless set lower; set_trie_merge_level (a test
// hook, so both are tested on one machine) clamps to that and returns the level before.
int trie_merge_level();
int set_trie_merge_level(int level);

}  // namespace tf::byte_level
