// UnigramTrainer::make_seeds: the seed pieces, frequent substrings of the words (step 1 of
// unigram_trainer.h).
//
// spm_train takes the inner nodes of a suffix tree of the whole text; here the substrings are
// found level by level: a string of length L is counted only if its first L-1 characters were
// seen at least twice (weighted by word counts), and it is a seed if it is seen at least
// twice, is followed by more than one character (a suffix-tree inner node: "informati",
// always followed by "o", is left to "information"), and is a valid piece.  Strings are
// identified by a 64-bit rolling hash; ranking is by count * length, then code points.
//
// Memory: per position of the words a hash (8 bytes) and an "alive" bit (its string of the
// previous level was repeated); a level's strings are counted in parts of the hash space
// (each part's map holds about kPartStrings strings), and the best candidates are trimmed
// to seed_size whenever they pass 1.5 * seed_size.
#include <algorithm>
#include <cmath>

#include "common/u64_map.h"
#include "training/sentencepiece/unigram_trainer.h"

namespace tf::spm_train {

namespace {

constexpr uint64_t kHashSeed = 0x9E3779B97F4A7C15ull;
constexpr size_t kPartStrings = size_t{1} << 19;

uint64_t hash_step(uint64_t h, char32_t c) { return (h ^ (static_cast<uint64_t>(c) + 1)) * 0x100000001B3ull + 0x2545F491ull; }

// U64Map reserves the all-ones key.
uint64_t map_key(uint64_t h) { return h == ~0ull ? 0 : h; }

bool blocked(char32_t c) { return c == kUnknownMark || c == kBoundaryMark || c == 0; }

}  // namespace

void UnigramTrainer::make_seeds(const UnigramOptions& o) {
  struct Cand {
    uint64_t pos;    // the first occurrence, in chars_
    int64_t count;   // weighted by word counts
    char32_t next;   // the character after the first occurrence (kWordEnd at the end)
    bool branching;  // some occurrence is followed by something else
  };
  constexpr char32_t kWordEnd = 0xFFFFFFFF;
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
  std::vector<Scored> found;
  auto trim = [&](size_t keep) {
    if (found.size() <= keep) return;
    std::nth_element(found.begin(), found.begin() + static_cast<long>(keep), found.end(), better);
    found.resize(keep);
  };
  const size_t seed_size = std::max<size_t>(o.seed_size, 1);
  const size_t max_len = static_cast<size_t>(rules_.max_length);
  const size_t n_chars = chars_.size();
  // hash[i]: the hash of the current level's string at position i; alive[i]: it is counted.
  std::vector<uint64_t> hash(n_chars);
  std::vector<bool> alive(n_chars, true);
  for (size_t i = 0; i < n_chars; ++i) hash[i] = hash_step(kHashSeed, chars_[i]);
  size_t last_distinct = n_chars;
  for (size_t len = 2; len <= max_len; ++len) {
    // Extend every alive string by one character.
    size_t live = 0;
    for (size_t w = 0; w < word_count(); ++w) {
      const uint64_t b = starts_[w], e = starts_[w + 1];
      for (uint64_t i = b; i < e; ++i) {
        if (!alive[i]) continue;
        if (i + len > e || blocked(chars_[i + len - 1]) || (len == 2 && blocked(chars_[i]))) {
          alive[i] = false;
          continue;
        }
        hash[i] = hash_step(hash[i], chars_[i + len - 1]);
        ++live;
      }
    }
    if (live == 0) break;
    const size_t expected = std::min(live, 4 * last_distinct);
    const uint64_t parts = std::max<uint64_t>(1, (expected + kPartStrings - 1) / kPartStrings);
    size_t distinct = 0, repeated = 0;
    for (uint64_t part = 0; part < parts; ++part) {
      auto in_part = [&](uint64_t h) { return parts == 1 || (h >> 32) % parts == part; };
      U64Map<Cand> level;
      for (size_t w = 0; w < word_count(); ++w) {
        const uint64_t b = starts_[w], e = starts_[w + 1];
        for (uint64_t i = b; i < e; ++i) {
          if (!alive[i] || !in_part(hash[i])) continue;
          Cand& c = level.get_or_insert(map_key(hash[i]), Cand{i, 0, 0, false});
          const char32_t next = i + len < e ? chars_[i + len] : kWordEnd;
          if (c.count == 0) {
            c.next = next;
          } else if (c.next != next) {
            c.branching = true;
          }
          c.count += counts_[w];
        }
      }
      distinct += level.size();
      level.for_each([&](uint64_t, const Cand& c) {
        if (c.count < 2) return;
        ++repeated;
        if (c.branching && rules_.valid(chars_.data() + c.pos, len)) {
          found.push_back({c.count * static_cast<int64_t>(len), c.pos, static_cast<uint32_t>(len)});
          if (found.size() >= seed_size + seed_size / 2) trim(seed_size);
        }
      });
      // Only strings seen at least twice grow at the next level.
      for (size_t i = 0; i < n_chars; ++i)
        if (alive[i] && in_part(hash[i]) && level.find(map_key(hash[i]))->count < 2) alive[i] = false;
    }
    last_distinct = std::max<size_t>(distinct, 1);
    if (repeated == 0) break;
  }
  hash = std::vector<uint64_t>();
  alive = std::vector<bool>();
  trim(seed_size);
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
