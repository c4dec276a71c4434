// UnigramTrainer::make_seeds: the seed pieces, frequent substrings of the words (step 1 of
// unigram_trainer.h).
//
// spm_train takes the inner nodes of a suffix tree of the whole text; here the substrings are
// found level by level: a string of length L is counted only if its first L-1 characters were
// seen at least twice (weighted by word counts), and it is a seed if it is seen at least
// twice, is followed by more than one character (a suffix-tree inner node: "informati",
// always followed by "o", is left to "information"), and is a valid piece.  Strings are
// identified by a 64-bit rolling hash; ranking is by count * length, then code points.
// Memory: one hash per position of the words, and one level's candidates.
#include <algorithm>
#include <cmath>

#include "common/u64_map.h"
#include "training/sentencepiece/unigram_trainer.h"

namespace tf::spm_train {

namespace {

constexpr uint64_t kHashSeed = 0x9E3779B97F4A7C15ull;

uint64_t hash_step(uint64_t h, char32_t c) { return (h ^ (static_cast<uint64_t>(c) + 1)) * 0x100000001B3ull + 0x2545F491ull; }

// U64Map reserves the all-ones key.
uint64_t map_key(uint64_t h) { return h == ~0ull ? 0 : h; }

}  // namespace

void UnigramTrainer::make_seeds(const UnigramOptions& o) {
  struct Cand {
    int64_t count = 0;
    uint32_t word = 0, start = 0;
    char32_t next = 0;       // the character after the first occurrence (kWordEnd at the end)
    bool branching = false;  // some occurrence is followed by something else
  };
  constexpr char32_t kWordEnd = 0xFFFFFFFF;
  struct Scored {
    int64_t score;
    uint32_t word, start, len;
  };
  std::vector<Scored> found;
  U64Map<Cand> previous;  // the previous level's strings
  auto blocked = [](char32_t c) { return c == kUnknownMark || c == kBoundaryMark || c == 0; };
  const size_t max_len = static_cast<size_t>(rules_.max_length);
  // prefix_hash[starts_[w] + s]: the hash of word w's substring of the previous level's length at s.
  std::vector<uint64_t> prefix_hash(chars_.size());
  for (size_t i = 0; i < chars_.size(); ++i) prefix_hash[i] = hash_step(kHashSeed, chars_[i]);
  for (size_t len = 2; len <= max_len; ++len) {
    U64Map<Cand> level;
    for (uint32_t w = 0; w < word_count(); ++w) {
      const size_t size = word_size(w);
      if (size < len) continue;
      const char32_t* word_chars = word(w);
      uint64_t* hashes = prefix_hash.data() + starts_[w];
      for (uint32_t s = 0; s + len <= size; ++s) {
        const char32_t* p = word_chars + s;
        const uint64_t prefix = hashes[s];
        const uint64_t h = hash_step(prefix, p[len - 1]);
        hashes[s] = h;
        if (blocked(p[len - 1]) || (len == 2 && blocked(p[0]))) continue;
        if (len > 2) {
          const Cand* before = previous.find(map_key(prefix));
          if (before == nullptr || before->count < 2) continue;
        }
        Cand& c = level.get_or_insert(map_key(h));
        const char32_t next = s + len < size ? word_chars[s + len] : kWordEnd;
        if (c.count == 0) {
          c.word = w, c.start = s, c.next = next;
        } else if (c.next != next) {
          c.branching = true;
        }
        c.count += counts_[w];
      }
    }
    size_t repeated = 0;
    level.for_each([&](uint64_t, const Cand& c) {
      if (c.count < 2) return;
      ++repeated;
      if (c.branching && rules_.valid(word(c.word) + c.start, len))
        found.push_back({c.count * static_cast<int64_t>(len), c.word, c.start, static_cast<uint32_t>(len)});
    });
    previous = std::move(level);
    if (repeated == 0) break;
  }
  prefix_hash = std::vector<uint64_t>();
  previous = U64Map<Cand>();
  auto better = [this](const Scored& a, const Scored& b) {
    if (a.score != b.score) return a.score > b.score;
    const char32_t* wa = word(a.word) + a.start;
    const char32_t* wb = word(b.word) + b.start;
    return std::lexicographical_compare(wa, wa + a.len, wb, wb + b.len);
  };
  if (found.size() > o.seed_size) {
    std::nth_element(found.begin(), found.begin() + static_cast<long>(o.seed_size), found.end(), better);
    found.resize(o.seed_size);
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
    const char32_t* p = word(f.word) + f.start;
    pieces_.push_back({std::vector<char32_t>(p, p + f.len), static_cast<double>(f.score)});
    total += static_cast<double>(f.score);
  }
  const double log_total = std::log(total);
  for (Piece& p : pieces_) p.score = std::log(std::max(p.score, 1.0)) - log_total;
}

}  // namespace tf::spm_train
