// BpeTrainer: learns byte-level BPE merges from counted words, with HF tokenizers'
// BpeTrainer's exact choice of merges.
//
// Algorithm (Sennrich et al. 2016, "Neural Machine Translation of Rare Words with Subword
// Units", with the incremental bookkeeping of HF tokenizers' trainer):
//   * every distinct word is stored once, weighted by its count, as a run of symbols in one
//     flat array; a merged symbol keeps its length at its second and last unit (boundary
//     tags), so its neighbours are found in O(1) and merging never moves memory;
//   * pair -> count, and for each pair the list of positions where it occurs;
//   * a max-heap of (count, pair) with lazy updates: a popped entry whose count is stale is
//     pushed back with the current count (sifted down from the top in place).
// Memory per pair on text of rare pieces (random lines, where most pairs occur once and are
// never merged): a pair created with a count under a floor (16 at first, halved as the best
// count falls) is only logged, 24 bytes written in order (skipped_pairs.h), and recorded
// when the best count reaches its floor (see skip_floor_ below); a recorded pair has a
// 24-byte record, 8-byte index slots (pair_index.h), a 16-byte position list header with
// one position inline (position_lists.h), and while the best count is above its own (up
// to 16), an 8-byte deferred entry instead of a 24-byte heap entry.  Units are 8 bytes.
// Large tables grow in place through mremap, on huge pages (big_vector.h).
// What costs time is reading units at the positions of a merge (random access into the
// largest table): merges prefetch them 16 positions ahead, and the likely next merge's
// first ones while the current merge's changes are applied.
// A merge visits only the positions of its pair, so training costs O(total occurrences
// touched), independent of word length (a 100 000-letter word costs no more per merge than
// many short ones).  Counts of neighbour pairs are gathered per step in arrays indexed by
// the neighbour's id and written to the index once per distinct pair.
//
// The rule HF uses, and so this trainer: the next merge is the pair with the highest count;
// among equal counts, the pair (left id, right id) that is smallest, comparing left ids
// first.  Ids 0-255 are the single bytes in GPT-2's byte order (the order of the code points
// HF's ByteLevel maps them to) and id 256 + k is the k-th new token.  Training stops at
// `vocab_size` tokens, or when the best count is below max(1, min_frequency).
//
// Two merges can build the same byte string (a+bc and ab+c); HF then reuses the existing id,
// records the merge anyway and keeps going until the vocabulary is full.  This trainer does
// the same, including HF's word-level bookkeeping for pairs that gain occurrences twice; when
// two heap entries of the same pair tie, which one HF pops is unspecified (its heap order
// depends on hash-map iteration), and here the older entry goes first.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "training/byte_level/big_vector.h"
#include "training/byte_level/pair_index.h"
#include "training/byte_level/position_lists.h"
#include "training/byte_level/piece_map.h"
#include "training/byte_level/skipped_pairs.h"
#include "training/byte_level/token_table.h"

namespace tf::train {

// The single bytes in GPT-2's byte order: rank r -> byte, and byte -> rank.
struct ByteOrder {
  uint8_t byte_of_rank[256];
  uint32_t rank_of_byte[256];
  ByteOrder();
};

class BpeTrainer {
 public:
  BpeTrainer();

  // Adds `count` occurrences of the word `p[0..n)`.  Call before train(); false if the
  // corpus has more than 4 billion distinct bytes.
  bool add_word(const uint8_t* p, size_t n, uint64_t count);
  bool add_words(const PieceMap& words);

  // Learns merges until there are `vocab_size` tokens; `done` counts merges as they happen.
  // `word_level` merges every pair the slow way HF does (scanning whole words), and
  // `skip_floor` sets the first floor of rare pairs that are logged instead of recorded
  // (0 or 1: none); the result is the same whatever they are, which the tests check.
  void train(uint32_t vocab_size, uint64_t min_frequency, std::atomic<uint32_t>* done, bool word_level = false,
             int64_t skip_floor = kSkipFloor);

  // minbpe's rule instead of HF's: among equal counts the pair seen first in the text (the
  // smallest live position; add words in the order the text first shows them), and every
  // merge makes a new id, even when its bytes repeat a token.  Set before train().
  void set_first_seen(bool on) { first_seen_ = on; }

  // id -> token bytes.
  const std::vector<std::string>& tokens() const { return tokens_.tokens(); }
  // The merges in order: the pair merged and the id it produced.
  const std::vector<std::pair<uint32_t, uint32_t>>& merges() const { return merges_; }
  const std::vector<uint32_t>& merge_ids() const { return merge_ids_; }
  size_t num_words() const { return num_words_; }
  size_t num_units() const { return units_.size(); }
  size_t num_pairs() const { return pairs_.size(); }
  size_t heap_capacity() const { return heap_.capacity(); }
  // The training text's size in bytes and in tokens as segmented by the merges so far.
  std::pair<uint64_t, uint64_t> text_size() const;

 private:
  struct PairRecord {
    int64_t count;
    uint32_t a, b;       // the pair
    uint32_t step : 31;  // the last step that added occurrences
    uint32_t multi : 1;  // gained occurrences in two steps: merge it word by word, as HF does
    uint32_t list;       // positions added in that step
  };
  struct Entry {
    int64_t count;
    uint32_t a, b, list;
    uint32_t rec;  // the pair's record (fills the padding: a pop needs no index probe)
  };
  static_assert(sizeof(Entry) == 24, "rec fills what would be padding");

  void count_initial_pairs();
  Entry take_first_seen(Entry top);
  uint32_t first_position(const Entry& e) const;
  void push(const Entry& e);
  Entry pop();
  void requeue_top(int64_t count);
  int64_t highest_deferred() const;
  void undefer(int64_t count);
  void merge_at(uint32_t pos, uint32_t a, uint32_t b, uint32_t r);
  void merge_words(uint32_t list, uint32_t a, uint32_t b, uint32_t r);
  void flush(uint32_t a, uint32_t b, uint32_t r, bool fresh);
  void lose(uint32_t a, uint32_t b, int64_t count);
  void grow_step_tables(size_t n);
  bool add_pair_occurrences(uint32_t a, uint32_t b, int64_t count, std::vector<uint32_t>* positions, bool is_new,
                            uint32_t* rec);

  static constexpr uint32_t kSentinel = 0xFFFFFFFFu;  // unit between two words
  static constexpr uint32_t kInside = 0xFFFFFFFEu;    // unit inside a merged symbol

  // Symbols of all words, one unit per byte, words separated by a kSentinel unit.  A
  // symbol's first unit holds its token id and the word's count; a symbol of two or more
  // units is kInside at the others, and its length in units is in `x` of its second and
  // last unit (so a one-unit symbol is recognised by the next unit not being kInside).
  // 8 bytes a unit and all a merge reads about a position in one cache line: the units are
  // the table merging reads at random, and a smaller one misses the cache less.  A word
  // counted more than 2^32 - 1 times is stored as several copies, which changes no pair
  // count and no merge.
  struct Unit {
    uint32_t id;
    uint32_t x;  // the count at a symbol's first unit, its span at its second and last
  };
  static_assert(sizeof(Unit) == 8, "two units to a 16-byte load");
  uint32_t span_at(uint32_t start) const {
    const Unit& next = units_[start + 1];  // every word ends with a sentinel
    return next.id == kInside ? next.x : 1;
  }
  // Starts loading what merging at `pos` reads: the units from pos - 1 to about pos + 2
  // (the left neighbour's last unit, the symbol, its span, the next symbol), which can
  // straddle two cache lines.
  void prefetch_around(uint32_t pos) const {
    __builtin_prefetch(&units_[pos - 1]);
    __builtin_prefetch(&units_[pos + 3]);
  }
  // The first unit of the symbol that ends just before `start` (not a sentinel).
  uint32_t start_before(uint32_t start) const {
    const Unit& prev = units_[start - 1];
    return prev.id == kInside ? start - prev.x : start - 1;
  }
  static constexpr uint64_t kMaxUnitCount = 0xFFFFFFFFu;
  BigVector<Unit> units_;
  BigVector<uint32_t> word_start_;  // the first unit of each word (copy), increasing
  size_t num_words_ = 0;            // distinct words of two or more bytes
  uint64_t total_bytes_ = 0, single_bytes_ = 0;  // all words; words of one byte

  TokenTable tokens_;
  std::vector<std::pair<uint32_t, uint32_t>> merges_;
  std::vector<uint32_t> merge_ids_;

  PairIndex index_;  // (a, b) -> index into pairs_
  BigVector<PairRecord> pairs_;
  struct KeyOf {
    const BigVector<PairRecord>* pairs;
    uint64_t operator()(uint32_t rec) const { return PairIndex::key((*pairs)[rec].a, (*pairs)[rec].b); }
  };
  KeyOf key_of() const { return KeyOf{&pairs_}; }
  uint32_t find(uint32_t a, uint32_t b) const { return index_.find(PairIndex::key(a, b), key_of()); }
  std::vector<uint32_t> gained_;  // records that gained occurrences this step
  PositionLists lists_;           // list id -> positions (unit indices)
  BigVector<Entry> heap_;
  // Entries of a small count c (1 <= c <= defer_max_) wait in deferred_[c] as (record,
  // list) until the heap's best count falls to c: on text of rare pieces most pairs occur
  // once or twice and are never merged, and keeping them out of the heap keeps it small.
  // Heap entries have counts above defer_max_ (or <= 0), so entries pop in the same total
  // order either way.
  struct Deferred {
    uint32_t rec, list;
  };
  static constexpr int64_t kDeferMax = 16;
  std::vector<BigVector<Deferred>> deferred_ = std::vector<BigVector<Deferred>>(kDeferMax + 1);
  int64_t defer_max_ = kDeferMax;
  size_t num_deferred_ = 0;
  uint32_t step_ = 0;
  bool first_seen_ = false;

  // Pairs created with a count below skip_floor_ get no record, only a line in skipped_
  // (skipped_pairs.h).  Exact because, as long as no merge has rebuilt an existing token,
  // every pair gains occurrences in one step only (the step that creates its newer token),
  // so its count can only fall afterwards and never reaches the floor again; merges come
  // in order of count, so none of them can be a skipped pair until the best count falls
  // below the floor.  Then (or at the first merge that rebuilds an existing token, after
  // which pairs can gain twice) restore_skipped gives the logged pairs the record, position
  // list and queue entry they would have had, and the floor is halved (or dropped).
  static constexpr int64_t kSkipFloor = 16;
  int64_t skip_floor_ = kSkipFloor;  // 0: nothing is skipped any more
  SkippedPairs skipped_;
  void skip_pair(uint32_t a, uint32_t b, int64_t count, std::vector<uint32_t>* positions);
  void restore_skipped(int64_t floor);

  // Per-step changes, indexed by the neighbour's id x: (x, a) and (b, x) lose occurrences,
  // (x, r) and (r, x) gain them at the listed positions.
  std::vector<int64_t> lost_left_, lost_right_, gain_left_, gain_right_;
  std::vector<std::vector<uint32_t>> gain_left_pos_, gain_right_pos_;
  std::vector<uint8_t> touched_left_, touched_right_;
  std::vector<uint32_t> touched_left_ids_, touched_right_ids_;
};

}  // namespace tf::train
