#include "models/sentencepiece/sentencepiece_bpe.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "common/piece_cache.h"
#include "common/thread_cache.h"
#include "normalize/spm_normalizer.h"
#include "common/byte_hash.h"

namespace tf::spm {

using namespace spm_bpe_detail;

bool SentencePieceBpe::build(const SpmVocab* vocab, std::string* error) {
  vocab_ = vocab;
  serial_ = new_cache_owner();
  const int32_t n = vocab->size();
  std::fill(std::begin(ascii_symbol_), std::end(ascii_symbol_), -1);
  char_symbols_.clear();
  symbol_len_.assign(n, 0);
  splits_words_ = !vocab->has_unused();
  for (int32_t id = 0; id < n; ++id) symbol_len_[id] = static_cast<uint32_t>(vocab->piece(id).size());
  std::fill(std::begin(user_first_bytes_), std::end(user_first_bytes_), 0);
  for (int32_t id = 0; id < n; ++id) {
    if (vocab->type(id) != SpmType::kUserDefined) continue;
    const uint8_t b = static_cast<uint8_t>(vocab->piece(id)[0]);
    user_first_bytes_[b >> 6] |= uint64_t{1} << (b & 63);
  }

  // Every character inside a matchable piece gets a symbol.
  for (int32_t id = 0; id < n; ++id) {
    if (vocab->find_matchable(vocab->piece(id)) != id) continue;
    const std::string& p = vocab->piece(id);
    const uint8_t* s = reinterpret_cast<const uint8_t*>(p.data());
    for (size_t i = 0; i < p.size();) {
      size_t len = std::min(spm_char_len(s[i]), p.size() - i);
      uint32_t key = pack_char(s + i, len);
      if (!char_symbols_.count(key)) {
        int32_t sym = vocab->find_matchable(std::string_view(p).substr(i, len));
        if (sym < 0) {
          sym = static_cast<int32_t>(symbol_len_.size());
          symbol_len_.push_back(static_cast<uint32_t>(len));
        }
        char_symbols_.emplace(key, sym);
        if (len == 1 && s[i] < 128) ascii_symbol_[s[i]] = sym;
      }
      i += len;
    }
  }

  // The symbols of well-formed BMP characters, directly by code point (-1: in no piece).
  bmp_symbol_.assign(0x10000, -1);
  for (const auto& [key, sym] : char_symbols_) {
    uint8_t b[4];
    size_t len = 0;
    for (uint32_t k = key; k != 0 && len < 4; k >>= 8) b[len++] = static_cast<uint8_t>(k);
    if (const uint32_t cp = bmp_code_point(b, len)) bmp_symbol_[cp] = sym;
  }

  // The same map as an open-addressing table for the encoder (key 0 is no character).
  size_t ccap = 16;
  while (ccap < char_symbols_.size() * 2) ccap <<= 1;
  char_slots_.assign(ccap, CharSlot{0, -1});
  char_mask_ = ccap - 1;
  for (const auto& [key, sym] : char_symbols_) {
    for (uint64_t h = mix64(key) & char_mask_;; h = (h + 1) & char_mask_) {
      if (char_slots_[h].key == 0) {
        char_slots_[h] = CharSlot{key, sym};
        break;
      }
    }
  }

  // Every two consecutive characters inside a matchable piece: text may be cut anywhere else.
  std::fill(std::begin(ascii_bigrams_), std::end(ascii_bigrams_), 0);
  std::vector<uint64_t> bigrams;
  for (int32_t id = 0; id < n; ++id) {
    const std::string& p = vocab->piece(id);
    if (vocab->find_matchable(p) != id) continue;
    const uint8_t* s = reinterpret_cast<const uint8_t*>(p.data());
    size_t prev = 0, prev_len = 0;
    for (size_t i = 0; i < p.size();) {
      size_t len = std::min(spm_char_len(s[i]), p.size() - i);
      if (i > 0) {
        if (prev_len == 1 && len == 1 && s[prev] < 128 && s[i] < 128) {
          size_t bit = s[prev] * 128u + s[i];
          ascii_bigrams_[bit >> 6] |= 1ull << (bit & 63);
        } else {
          bigrams.push_back(symbol_pair_key(char_symbol(s + prev, prev_len), char_symbol(s + i, len)));
        }
      }
      prev = i;
      prev_len = len;
      i += len;
    }
  }
  // Which symbols start or end some non-ASCII bigram: most characters of a large script
  // occur in no piece beside another, and these bits cut there without hashing the pair.
  bigram_left_.assign(symbol_len_.size() / 64 + 1, 0);
  bigram_right_.assign(symbol_len_.size() / 64 + 1, 0);
  for (uint64_t k : bigrams) {
    const uint32_t a = static_cast<uint32_t>(k >> 32), b = static_cast<uint32_t>(k);
    bigram_left_[a >> 6] |= uint64_t{1} << (a & 63);
    bigram_right_[b >> 6] |= uint64_t{1} << (b & 63);
  }
  size_t bcap = 16;
  while (bcap < bigrams.size() * 2) bcap <<= 1;
  bigram_slots_.assign(bcap, kEmpty);
  bigram_mask_ = bcap - 1;
  bigram_filter_.assign((1u << 18) / 64, 0);
  for (uint64_t k : bigrams) {
    uint32_t bit = static_cast<uint32_t>(mix64(k) >> 46);
    bigram_filter_[bit >> 6] |= 1ull << (bit & 63);
    for (uint64_t h = mix64(k) & bigram_mask_;; h = (h + 1) & bigram_mask_) {
      if (bigram_slots_[h] == k) break;
      if (bigram_slots_[h] == kEmpty) {
        bigram_slots_[h] = k;
        break;
      }
    }
  }

  // Every split of a matchable piece into two symbols is a pair that merges into it.
  std::vector<PairValue> entries;
  for (int32_t id = 0; id < n; ++id) {
    const std::string& p = vocab->piece(id);
    if (vocab->find_matchable(p) != id) continue;
    const uint8_t* s = reinterpret_cast<const uint8_t*>(p.data());
    size_t first = std::min(spm_char_len(s[0]), p.size());
    for (size_t k = first; k < p.size(); k += std::min(spm_char_len(s[k]), p.size() - k)) {
      int32_t left = k == first ? char_symbol(s, k) : vocab->find_matchable(std::string_view(p).substr(0, k));
      size_t rlen = std::min(spm_char_len(s[k]), p.size() - k);
      int32_t right = rlen == p.size() - k ? char_symbol(s + k, rlen) : vocab->find_matchable(std::string_view(p).substr(k));
      if (left < 0 || right < 0) continue;
      entries.push_back({(static_cast<uint64_t>(left) << 32) | static_cast<uint32_t>(right), id, vocab->score(id), 0});
    }
  }
  // Rank of each distinct score, best first (merge_long's buckets); NaN ranks last.
  std::vector<float> scores;
  for (const PairValue& e : entries) scores.push_back(e.score);
  auto better = [](float a, float b) { return std::isnan(b) ? !std::isnan(a) : a > b; };
  std::sort(scores.begin(), scores.end(), better);
  scores.erase(std::unique(scores.begin(), scores.end(), [](float a, float b) {
    return a == b || (std::isnan(a) && std::isnan(b));
  }), scores.end());
  rank_count_ = static_cast<uint32_t>(scores.size());
  for (PairValue& e : entries) {
    e.rank = static_cast<uint32_t>(std::lower_bound(scores.begin(), scores.end(), e.score, better) - scores.begin());
    if (e.rank >= rank_count_) e.rank = rank_count_ - 1;
  }
  size_t cap = 16;
  while (cap < entries.size() * 2) cap <<= 1;
  pairs_.assign(cap, PairValue{kEmpty, -1, 0.0f, 0});
  pair_mask_ = cap - 1;
  for (const PairValue& e : entries) {
    for (uint64_t h = mix64(e.key) & pair_mask_;; h = (h + 1) & pair_mask_) {
      if (pairs_[h].key == kEmpty) {
        pairs_[h] = e;
        break;
      }
    }
  }
  (void)error;
  return true;
}

void SentencePieceBpe::encode(std::string_view text, uint32_t base, std::vector<SpmToken>* out, double dropout,
                              std::mt19937_64* rng, bool merge_unknown) const {
  if (!splits_words_) {
    encode_word(text, base, out, dropout, rng);
    return;
  }
  PieceCache* cache = dropout <= 0.0 ? &thread_cache<PieceCache>(serial_) : nullptr;
  const uint8_t* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  const int32_t vocab_size = vocab_->size();
  const int32_t unk = vocab_->unk_id();
  // Words: cut between two characters that are consecutive in no piece (no merge can
  // ever join them), so each word is merged on its own.  Each character's symbol is
  // computed once: `sym`, `len` describe the character at i, the next word's first.
  size_t len = 0;
  int32_t sym = n > 0 ? symbol_at(s, n, &len) : -1;
  for (size_t i = 0; i < n;) {
    const size_t start = i;
    const int32_t first = sym;
    const size_t first_len = len;
    i += len;
    if (first >= 0) {
      size_t prev = start, prev_len = first_len;
      int32_t prev_sym = first;
      while (i < n) {
        sym = symbol_at(s + i, n - i, &len);
        bool join;
        if (prev_len == 1 && len == 1 && (s[prev] | s[i]) < 128) {
          const size_t bit = s[prev] * 128u + s[i];
          join = (ascii_bigrams_[bit >> 6] >> (bit & 63)) & 1;
        } else {
          join = joinable(prev_sym, sym);
        }
        if (!join) break;
        prev = i;
        prev_len = len;
        prev_sym = sym;
        i += len;
      }
    } else if (i < n) {
      sym = symbol_at(s + i, n - i, &len);  // a character in no piece is a word of its own
    }
    const uint32_t word_base = base + static_cast<uint32_t>(start);
    if (i - start == first_len) {  // one character: no merging to do
      // A character inside no piece (so inside no USER_DEFINED one either) is <unk>.  A
      // known one is its own piece, unless a USER_DEFINED piece (matched first, and
      // possibly shorter than the character) starts with the same byte.
      const bool unknown = first < 0 || first >= vocab_size;
      if (unknown || !((user_first_bytes_[s[start] >> 6] >> (s[start] & 63)) & 1)) {
        const uint32_t end = word_base + static_cast<uint32_t>(first_len);
        if (unknown && merge_unknown && !out->empty() && out->back().id == unk && out->back().end == word_base) {
          out->back().end = end;  // ids: adjacent <unk> tokens give one <unk> or the same bytes
          continue;
        }
        push_token(out, unknown ? unk : first, word_base, end);
        continue;
      }
    }
    const std::string_view word = text.substr(start, i - start);
    if (cache == nullptr || word.size() > PieceCache::kMaxPiece) {
      encode_word(word, word_base, out, dropout, rng);
      continue;
    }
    encode_cached(word, word_base, out, cache);
  }
}

// One word through the per-thread cache of merged words.
void SentencePieceBpe::encode_cached(std::string_view word, uint32_t word_base, std::vector<SpmToken>* out,
                                     PieceCache* cache) const {
  const uint8_t* w = reinterpret_cast<const uint8_t*>(word.data());
  const uint64_t h = hash_bytes(w, word.size());
  uint32_t count = 0;
  if (const uint32_t* hit = cache->find(w, word.size(), h, &count)) {
    if (out->capacity() < out->size() + count) out->reserve(std::max(2 * out->capacity(), out->size() + count));
    uint32_t pos = word_base;
    for (uint32_t k = 0; k < count; ++k) {
      const uint32_t len = symbol_len_[hit[k]];  // cached words hold no <unk>: lengths are the pieces'
      push_token(out, static_cast<int32_t>(hit[k]), pos, pos + len);
      pos += len;
    }
    return;
  }
  thread_local std::vector<uint32_t> ids;
  const size_t first = out->size();
  encode_word(word, word_base, out, 0.0, nullptr);
  ids.clear();
  for (size_t k = first; k < out->size(); ++k) {
    const SpmToken& t = (*out)[k];
    if (vocab_->is_unknown(t.id) || t.end - t.begin != symbol_len_[t.id]) return;  // not cacheable
    ids.push_back(static_cast<uint32_t>(t.id));
  }
  cache->insert(w, word.size(), h, ids.data(), ids.size());
}

// Merging for short words: scan the adjacent pairs for the best one each round (the
// heap costs more than it saves below a few dozen symbols).  Same order as the heap:
// highest score, then leftmost; a pair skipped by dropout stays skipped until one of its
// symbols changes.  Merged-away symbols are left with len == 0.
void SentencePieceBpe::merge_linear(Symbol* sy, size_t m, double dropout, std::mt19937_64* rng) const {
  struct Pair {
    float score;
    int32_t merged;  // -1: no pair
  };
  Pair pairs[kLinearMax];
  int32_t live[kLinearMax];  // indices of the symbols still standing
  size_t count = m;
  for (size_t i = 0; i < m; ++i) live[i] = static_cast<int32_t>(i);
  auto pair_of = [&](size_t k) {  // the pair live[k], live[k + 1]
    const Symbol& a = sy[live[k]];
    const Symbol& b = sy[live[k + 1]];
    if (a.frozen || b.frozen || a.sym < 0 || b.sym < 0) return Pair{0.0f, -1};
    const PairValue* pv = find_pair(a.sym, b.sym);
    return pv ? Pair{pv->score, pv->merged} : Pair{0.0f, -1};
  };
  for (size_t k = 0; k + 1 < count; ++k) pairs[k] = pair_of(k);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  while (count > 1) {
    size_t best = count;
    for (size_t k = 0; k + 1 < count; ++k) {
      if (pairs[k].merged >= 0 && (best == count || pairs[k].score > pairs[best].score)) best = k;
    }
    if (best == count) break;
    if (dropout > 0.0 && (dropout >= 1.0 || uniform(*rng) < dropout)) {
      pairs[best].merged = -1;
      continue;
    }
    Symbol& a = sy[live[best]];
    Symbol& b = sy[live[best + 1]];
    a.len += b.len;
    a.sym = pairs[best].merged;
    b.len = 0;
    for (size_t k = best + 1; k + 1 < count; ++k) {
      live[k] = live[k + 1];
      pairs[k] = pairs[k + 1];
    }
    --count;
    if (best + 1 < count) pairs[best] = pair_of(best);
    if (best > 0) pairs[best - 1] = pair_of(best - 1);
  }
}

void SentencePieceBpe::encode_word(std::string_view text, uint32_t base, std::vector<SpmToken>* out, double dropout,
                                   std::mt19937_64* rng) const {
  const uint8_t* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  if (n == 0) return;
  const PieceTrie& user = vocab_->user_defined();

  thread_local std::vector<Symbol> tls_symbols;
  std::vector<Symbol>& symbols = pinned(tls_symbols);
  symbols.clear();
  for (size_t i = 0; i < n;) {
    Symbol sy{-1, static_cast<int32_t>(symbols.size()) - 1, static_cast<int32_t>(symbols.size()) + 1,
              static_cast<uint32_t>(i), 0, false};
    int32_t uid;
    size_t len = user.empty() ? 0 : user.longest_prefix(s + i, n - i, &uid);
    if (len > 0) {
      sy.frozen = true;
      sy.sym = uid;
    } else {
      len = std::min(spm_char_len(s[i]), n - i);
      sy.sym = char_symbol(s + i, len);
    }
    sy.len = static_cast<uint32_t>(len);
    symbols.push_back(sy);
    i += len;
  }
  symbols.back().next = -1;

  if (symbols.size() <= kLinearMax && !vocab_->has_unused()) {
    merge_linear(symbols.data(), symbols.size(), dropout, rng);
    for (const Symbol& sy : symbols) {
      if (sy.len == 0) continue;
      int32_t id = sy.sym >= 0 && sy.sym < vocab_->size() ? sy.sym : vocab_->unk_id();
      push_token(out, id, base + sy.begin, base + sy.begin + sy.len);
    }
    return;
  }

  // Pieces an UNUSED merge was last formed from, for resegmentation: merged -> (left, right).
  std::unordered_map<int32_t, std::pair<int32_t, int32_t>> last_split;
  merge_long(symbols, dropout, rng, vocab_->has_unused() ? &last_split : nullptr);

  // Emit as sentencepiece 0.2.3 resegments: an UNUSED piece splits back into the pair it
  // was last formed from (at most 100 levels deep), or is <unk> if it was never formed;
  // text that is no mergeable piece is <unk>.
  auto emit = [&](auto&& self, int32_t sym, uint32_t begin, uint32_t len, int depth) -> void {
    int32_t id = sym >= 0 && sym < vocab_->size() ? sym : vocab_->unk_id();
    if (id >= 0 && id == sym && vocab_->type(sym) == SpmType::kUnused && depth <= kMaxResegmentDepth) {
      auto it = last_split.find(sym);
      if (it == last_split.end()) {
        id = vocab_->unk_id();
      } else {
        uint32_t left_len = symbol_len_[it->second.first];
        self(self, it->second.first, begin, left_len, depth + 1);
        self(self, it->second.second, begin + left_len, len - left_len, depth + 1);
        return;
      }
    }
    push_token(out, id, base + begin, base + begin + len);
  };
  for (int32_t i = 0; i >= 0; i = symbols[i].next) emit(emit, symbols[i].sym, symbols[i].begin, symbols[i].len, 0);
}

}  // namespace tf::spm
