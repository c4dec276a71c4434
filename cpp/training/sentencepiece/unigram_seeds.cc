// UnigramTrainer::make_seeds: the seed pieces, frequent substrings of the words (step 1 of
// unigram_trainer.h).
//
// spm_train takes the inner nodes of a suffix tree of the whole text; here the substrings are
// found level by level: a string of length L is counted only if its first L-1 characters were
// seen at least twice (weighted by word counts), and it is a seed if it is seen at least
// twice, is followed by two different things (a suffix-tree inner node: "informati",
// always followed by "o", is left to "information"), and is a valid piece.  "Different"
// as in spm_train 0.2.3, whose suffix array holds the UTF-8 bytes of whole sentences, each
// ended by NUL: two followers differ if their first bytes differ (so "é" and "è", both
// 0xC3..., are one follower), and at the end of a word the followers are NUL if the word
// ends a sentence and the next words' first bytes ("▁", 0xE2, unless
// treat_whitespace_as_suffix), from the word table's WordEnds (a word without them counts
// its end as one follower of its own).  Strings are
// identified by a 64-bit rolling hash; ranking is by count * length, then code points.
//
// Memory: per position of the words a hash (8 bytes) and an "alive" byte (its string of the
// previous level was repeated); a level's strings are counted in parts of the hash space
// (each part's map holds about max(kPartStrings, positions / 8) strings, its size guessed as
// at most 4 x the previous level's), and the best candidates are trimmed
// to seed_size whenever they pass 1.5 * seed_size.
// Threads: the extension of a level splits the words; the parts go to the threads in turn
// (each position's alive byte is written by the one thread that owns its part).  The seeds
// are the same for any number of threads: the ranking is a total order.
#include <algorithm>
#include <cmath>
#include <thread>

#include "common/u64_map.h"
#include "training/sentencepiece/unigram_trainer.h"
#include "training/sentencepiece/word_table.h"

namespace tf::spm_train {

namespace {

constexpr uint64_t kHashSeed = 0x9E3779B97F4A7C15ull;
constexpr size_t kPartStrings = size_t{1} << 19;

uint64_t hash_step(uint64_t h, char32_t c) { return (h ^ (static_cast<uint64_t>(c) + 1)) * 0x100000001B3ull + 0x2545F491ull; }

// U64Map reserves the all-ones key.
uint64_t map_key(uint64_t h) { return h == ~0ull ? 0 : h; }

bool blocked(char32_t c) { return c == kUnknownMark || c == kBoundaryMark || c == 0; }

// The first byte of c in UTF-8: what tells followers apart (see above).
uint32_t first_byte(char32_t c) {
  if (c < 0x80) return c;
  if (c < 0x800) return 0xC0 | (c >> 6);
  if (c < 0x10000) return 0xE0 | (c >> 12);
  return 0xF0 | (c >> 18);
}

}  // namespace

void UnigramTrainer::make_seeds(const UnigramOptions& o) {
  struct Cand {
    uint64_t pos;    // the first occurrence, in chars_
    int64_t count;   // weighted by word counts
    uint32_t next;   // the first byte after the first occurrence (kWordEnd: an unknown word end)
    bool branching;  // some occurrence is followed by something else
  };
  constexpr uint32_t kWordEnd = 0xFFFFFFFF;  // a word's end whose followers are unknown
  constexpr uint32_t kSentenceEnd = 0;       // spm_train's sentence boundary
  struct Scored {
    int64_t score;
    uint64_t pos;
    uint32_t len;
  };
  auto better = [this](const Scored& a, const Scored& b) {
    if (a.score != b.score) return a.score > b.score;
    const char32_t* wa = chars_.data() + a.pos;
    const char32_t* wb = chars_.data() + b.pos;
    return std::lexicographical_compare(wa, wa + a.len, wb, wb + b.len);
  };
  using Found = std::vector<Scored>;
  const size_t seed_size = std::max<size_t>(o.seed_size, 1);
  auto trim = [&](Found* found, size_t keep) {
    if (found->size() <= keep) return;
    std::nth_element(found->begin(), found->begin() + static_cast<long>(keep), found->end(), better);
    found->resize(keep);
  };
  const auto threads = static_cast<size_t>(threads_);
  std::vector<Found> found_by(threads);  // each thread's best candidates
  const size_t max_len = static_cast<size_t>(rules_.max_length);
  const size_t n_chars = chars_.size();
  // hash[i]: the hash of the current level's string at position i; alive[i]: it is counted.
  std::vector<uint64_t> hash(n_chars);
  std::vector<uint8_t> alive(n_chars, 1);
  for (size_t i = 0; i < n_chars; ++i) hash[i] = hash_step(kHashSeed, chars_[i]);
  // A part's map holds about part_strings strings: at least kPartStrings, and up to an eighth
  // of the positions (then the maps take less than the per-position arrays and a level is at
  // most about 8 parts, each a scan of the positions).
  const size_t part_strings = std::max(kPartStrings, n_chars / 8);
  size_t last_distinct = alphabet_.size() + 1;  // distinct strings of the previous level
  for (size_t len = 2; len <= max_len; ++len) {
    // Extend every alive string by one character (words split over threads).
    std::vector<size_t> live_by(threads, 0);
    run_parts(word_count(), [&](size_t wb, size_t we, int t) {
      size_t live = 0;
      for (size_t w = wb; w < we; ++w) {
        const uint64_t b = starts_[w], e = starts_[w + 1];
        for (uint64_t i = b; i < e; ++i) {
          if (!alive[i]) continue;
          if (i + len > e || blocked(chars_[i + len - 1]) || (len == 2 && blocked(chars_[i]))) {
            alive[i] = 0;
            continue;
          }
          hash[i] = hash_step(hash[i], chars_[i + len - 1]);
          ++live;
        }
      }
      live_by[static_cast<size_t>(t)] = live;
    });
    size_t live = 0;
    for (size_t x : live_by) live += x;
    if (live == 0) break;
    // Count the strings, a part of the hash space at a time; threads take parts in turn.
    const size_t expected = std::min(live, 4 * last_distinct);
    uint64_t parts = std::max<uint64_t>(1, (expected + part_strings - 1) / part_strings);
    if (live >= kPartStrings / 8) parts = std::max<uint64_t>(parts, threads);
    std::vector<size_t> distinct_by(threads, 0), repeated_by(threads, 0);
    auto count_parts = [&](size_t t) {
      Found& found = found_by[t];
      for (uint64_t part = t; part < parts; part += threads) {
        auto in_part = [&](uint64_t h) { return parts == 1 || (((h >> 32) * parts) >> 32) == part; };
        U64Map<Cand> level;
        for (size_t w = 0; w < word_count(); ++w) {
          const uint64_t b = starts_[w], e = starts_[w + 1];
          for (uint64_t i = b; i < e; ++i) {
            if (!in_part(hash[i]) || !alive[i]) continue;  // only this part's alive bytes are read
            Cand& c = level.get_or_insert(map_key(hash[i]), Cand{i, 0, 0, false});
            uint32_t next = kWordEnd;
            if (i + len < e) {
              next = first_byte(chars_[i + len]);
            } else if (const WordEnds ends = ends_[w]; ends != 0) {
              next = (ends & kEndsSentence) ? kSentenceEnd : (ends & 0xFF);
              if ((ends & kSeveralNext) || ((ends & kEndsSentence) && (ends & kBeforeWord))) c.branching = true;
            }
            if (c.count == 0) {
              c.next = next;
            } else if (c.next != next) {
              c.branching = true;
            }
            c.count += counts_[w];
          }
        }
        distinct_by[t] += level.size();
        level.for_each([&](uint64_t, const Cand& c) {
          if (c.count < 2) return;
          ++repeated_by[t];
          if (c.branching && rules_.valid(chars_.data() + c.pos, len)) {
            found.push_back({c.count * static_cast<int64_t>(len), c.pos, static_cast<uint32_t>(len)});
            if (found.size() >= seed_size + seed_size / 2) trim(&found, seed_size);
          }
        });
        // Only strings seen at least twice grow at the next level.
        for (size_t i = 0; i < n_chars; ++i)
          if (in_part(hash[i]) && alive[i] && level.find(map_key(hash[i]))->count < 2) alive[i] = 0;
      }
    };
    if (parts == 1) {
      count_parts(0);
    } else {
      std::vector<std::thread> pool;
      for (size_t t = 1; t < threads; ++t) pool.emplace_back(count_parts, t);
      count_parts(0);
      for (auto& th : pool) th.join();
    }
    size_t distinct = 0, repeated = 0;
    for (size_t t = 0; t < threads; ++t) distinct += distinct_by[t], repeated += repeated_by[t];
    last_distinct = std::max<size_t>(distinct, 1);
    if (repeated == 0) break;
  }
  hash = std::vector<uint64_t>();
  alive = std::vector<uint8_t>();
  Found found;
  for (Found& f : found_by) {
    found.insert(found.end(), f.begin(), f.end());
    f = Found();
    trim(&found, seed_size);
  }
  std::sort(found.begin(), found.end(), better);
  pieces_.clear();
  pieces_.reserve(alphabet_.size() + found.size());
  double total = 0;
  for (const auto& [c, n] : alphabet_) {
    pieces_.push_back({{c}, static_cast<double>(n)});
    total += static_cast<double>(n);
  }
  for (const Scored& f : found) {
    const char32_t* p = chars_.data() + f.pos;
    pieces_.push_back({std::vector<char32_t>(p, p + f.len), static_cast<double>(f.score)});
    total += static_cast<double>(f.score);
  }
  const double log_total = std::log(total);
  for (Piece& p : pieces_) p.score = std::log(std::max(p.score, 1.0)) - log_total;
}

}  // namespace tf::spm_train
