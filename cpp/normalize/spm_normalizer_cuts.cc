// SpmNormalizer's input cuts: where a long input may be cut so that its parts, normalized
// on their own (normalize_part), concatenate to the normalization of the whole.
//
// The normalizer rewrites the input one match at a time (a USER_DEFINED piece, a charsmap
// key, or one character), and its only state is whether the last output ended in a space
// (remove_extra_whitespaces), besides the start (leading spaces, dummy prefix) and the end
// (trailing spaces, dummy suffix).  A cut before byte `at` is allowed when:
//   - the bytes before and at `at` are ASCII, and the pair (at-1, at) occurs consecutively
//     in no charsmap key and no USER_DEFINED piece: no match crosses the cut;
//   - the pair (at-2, at-1) occurs in none either: the match that ends at the cut is the
//     single character at-1, so its output is known: it must be non-empty and hold no
//     space (ascii_cut_after_).  Then the state after it is "no space just put", which is
//     where the next part starts, and the left part ends in a non-space, so the trimming
//     of trailing spaces and the dummy suffix belong to the last part alone, and the
//     leading-space handling and the dummy prefix to the first.
// The byte pairs of the keys come from a walk of the whole charsmap trie, made on the first
// call (build_key_pairs): it costs a few tens of milliseconds, too much for every load.
#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "normalize/spm_normalizer.h"

namespace tf::spm {

void SpmNormalizer::prepare_cuts(const std::vector<std::string_view>& user_defined_pieces) {
  key_pairs_.clear();
  key_pairs_once_ = std::make_shared<std::once_flag>();
  user_pairs_.assign(256 * 256 / 64, 0);
  for (std::string_view piece : user_defined_pieces) {
    for (size_t i = 1; i < piece.size(); ++i) {
      const unsigned a = static_cast<uint8_t>(piece[i - 1]), b = static_cast<uint8_t>(piece[i]);
      user_pairs_[(a << 8 | b) >> 6] |= uint64_t{1} << (b & 63);
    }
  }
  for (unsigned c = 0; c < 128; ++c) {
    const uint8_t byte = static_cast<uint8_t>(c);
    const std::string_view out = normalize_prefix(&byte, 1).first;
    ascii_cut_after_[c] = c != ' ' && !out.empty() && out.find(' ') == std::string_view::npos;
  }
}

namespace {

// The byte pairs of a charsmap's keys: a depth-first walk of the trie, which darts-clone
// stores as a graph whose nodes may be shared by several keys, so each (node, byte that
// led to it) is expanded once.  Empty when the walk does not end as a trie of this size
// would (a corrupt blob): then no cuts.
std::vector<uint64_t> charsmap_pairs(const DartsView& trie) {
  std::vector<uint64_t> pairs(256 * 256 / 64, 0);
  bool hit;
  std::vector<std::pair<int64_t, int>> stack{{trie.walk(nullptr, 0, &hit), -1}};
  std::unordered_set<uint64_t> seen;
  while (!stack.empty()) {
    const auto [node, prev] = stack.back();
    stack.pop_back();
    if (!seen.insert(static_cast<uint64_t>(node) << 9 | static_cast<uint64_t>(prev + 1)).second) continue;
    if (seen.size() > 64 * trie.units() + 65536) return {};
    for (unsigned b = 0; b < 256; ++b) {
      bool leaf;
      const int64_t child = trie.step(node, static_cast<uint8_t>(b), &leaf);
      if (child < 0) continue;
      if (prev >= 0) pairs[(static_cast<unsigned>(prev) << 8 | b) >> 6] |= uint64_t{1} << (b & 63);
      stack.emplace_back(child, static_cast<int>(b));
    }
  }
  return pairs;
}

}  // namespace

void SpmNormalizer::build_key_pairs() const {
  if (user_pairs_.empty()) return;  // prepare_cuts was not called: no cuts
  if (trie_.empty()) {
    key_pairs_ = user_pairs_;
    return;
  }
  // The walk costs tens of milliseconds, so its result is kept per charsmap for the
  // process: every processor loaded from the same model shares it.
  // (The hash finds the entry; the trie itself is compared.)
  static std::mutex mutex;
  static std::unordered_map<uint64_t, std::vector<std::pair<DartsView, std::vector<uint64_t>>>> by_charsmap;
  std::vector<uint64_t> pairs;
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (const auto& [trie, known] : by_charsmap[charsmap_hash_]) {
      if (trie == trie_) pairs = known;
    }
  }
  if (pairs.empty()) {
    pairs = charsmap_pairs(trie_);
    if (pairs.empty()) return;
    std::lock_guard<std::mutex> lock(mutex);
    by_charsmap[charsmap_hash_].emplace_back(trie_, pairs);
  }
  for (size_t i = 0; i < pairs.size(); ++i) pairs[i] |= user_pairs_[i];
  key_pairs_ = std::move(pairs);
}

bool SpmNormalizer::can_cut_input(const uint8_t* s, size_t n, size_t at) const {
  if (at == 0 || at >= n || key_pairs_.empty()) return false;
  const uint8_t a = s[at - 1], b = s[at];
  if (a >= 0x80 || b >= 0x80 || !ascii_cut_after_[a] || in_key_(a, b)) return false;
  return at < 2 || !in_key_(s[at - 2], a);
}

std::vector<size_t> SpmNormalizer::input_cut_points(std::string_view text, size_t parts) const {
  std::vector<size_t> cuts;
  const uint8_t* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  if (parts < 2 || n < 2) return cuts;
  std::call_once(*key_pairs_once_, [this] { build_key_pairs(); });
  if (key_pairs_.empty()) return cuts;
  const size_t step = n / parts;
  for (size_t k = 1; k < parts && step > 0; ++k) {
    for (size_t at = k * step, stop = std::min(n, (k + 1) * step); at < stop; ++at) {
      if (can_cut_input(s, n, at)) {
        cuts.push_back(at);
        break;
      }
    }
  }
  return cuts;
}

}  // namespace tf::spm
