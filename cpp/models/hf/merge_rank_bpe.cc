#include "models/hf/merge_rank_bpe.h"

#include <algorithm>
#include <cstring>

#include "common/byte_hash.h"
#include "common/inline.h"
#include "common/piece_cache.h"
#include "common/thread_cache.h"
#include "common/unicode/unicode.h"

namespace tf::hf {

namespace {

// The code points of a token's text (tokens are valid UTF-8: they come from Python strs).
std::vector<uint32_t> code_points(const std::string& s) {
  std::vector<uint32_t> out;
  const uint8_t* p = reinterpret_cast<const uint8_t*>(s.data());
  const uint8_t* end = p + s.size();
  while (p < end) {
    int len = 1;
    out.push_back(decode_utf8(p, end, &len));
    p += len;
  }
  return out;
}

constexpr size_t kShortWord = 48;  // symbols; longer words merge through the heap

// ASCII characters and ▁ (U+2581) get a bit matrix of joinable pairs (most boundaries in
// SentencePiece-style text are between these); other pairs are hashed.
constexpr uint32_t kSmall = 129;
inline int small_code(uint32_t cp) { return cp < 128 ? static_cast<int>(cp) : cp == 0x2581 ? 128 : -1; }

}  // namespace

bool MergeRankBpe::build(const std::vector<std::string>& tokens, const std::vector<Merge>& merges, int64_t unk_id,
                         bool fuse_unk, bool byte_fallback, std::string* error) {
  const size_t n = tokens.size();
  bmp_id_.assign(0x10000, kNone);
  for (uint32_t& b : byte_id_) b = kNone;
  for (size_t i = 0; i < n; ++i) {
    const std::string& t = tokens[i];
    if (t.empty()) continue;
    std::vector<uint32_t> cps = code_points(t);
    if (cps.size() == 1) {
      // A text listed twice keeps its first id, as a dict built from the vocab would not:
      // the caller passes each text once.
      if (cps[0] < 0x10000) {
        bmp_id_[cps[0]] = static_cast<uint32_t>(i);
      } else {
        astral_id_.set(cps[0], static_cast<uint32_t>(i));
      }
    }
    if (t.size() == 6 && t[0] == '<' && t[1] == '0' && t[2] == 'x' && t[5] == '>') {
      auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;  // tokenizers spells byte tokens in upper case only
      };
      const int hi = hex(t[3]), lo = hex(t[4]);
      if (hi >= 0 && lo >= 0) byte_id_[hi * 16 + lo] = static_cast<uint32_t>(i);
    }
  }
  byte_fallback_ = byte_fallback;
  if (byte_fallback) {
    // Every character without a token must spell out as byte tokens: tokenizers appends a
    // character that cannot after the byte tokens that follow it (a pending unknown token),
    // an order the word cutting would not keep.  An ASCII byte may lack its token when its
    // character has one (Gemma has no <0x09>: the tab is a token).
    for (int b = 0; b < 256; ++b) {
      if (byte_id_[b] == kNone && (b >= 0x80 || bmp_id_[b] == kNone)) {
        *error = "byte_fallback without a <0xXX> token for every byte a character without a token may need";
        return false;
      }
    }
  }
  has_unk_ = unk_id >= 0;
  if (has_unk_) {
    if (static_cast<size_t>(unk_id) >= n || tokens[unk_id].empty()) {
      *error = "the unknown token is not in the vocab";
      return false;
    }
    unk_id_ = static_cast<uint32_t>(unk_id);
    std::vector<uint32_t> cps = code_points(tokens[unk_id]);
    unk_first_ = cps.front();
    unk_last_ = cps.back();
  } else if (!byte_fallback) {
    *error = "neither an unknown token nor byte fallback";
    return false;
  }
  fuse_unk_ = fuse_unk;
  small_joinable_.assign((kSmall * kSmall + 63) / 64, 0);
  U64Map<uint8_t> joinable;  // the other (last, first) pairs
  packed_ = ranks_.init(n, merges.size());
  if (!packed_) wide_ranks_.reserve(merges.size());
  merged_.resize(merges.size());
  for (size_t r = 0; r < merges.size(); ++r) {
    const Merge& m = merges[r];
    if (m.left >= n || m.right >= n || m.merged >= n || tokens[m.left].empty() || tokens[m.right].empty()) {
      *error = "a merge names a token that is not in the vocab";
      return false;
    }
    // The last rank of a pair listed twice wins.
    if (packed_) {
      ranks_.set(m.left, m.right, static_cast<uint32_t>(r));
    } else {
      wide_ranks_.set(pack_pair(m.left, m.right), static_cast<uint32_t>(r));
    }
    merged_[r] = m.merged;
    const uint32_t last = code_points(tokens[m.left]).back();
    const uint32_t first = code_points(tokens[m.right]).front();
    const int a = small_code(last), b = small_code(first);
    if (a >= 0 && b >= 0) {
      const uint32_t bit = static_cast<uint32_t>(a) * kSmall + static_cast<uint32_t>(b);
      small_joinable_[bit >> 6] |= uint64_t{1} << (bit & 63);
    } else {
      joinable.set(pack_pair(last, first), 1);
    }
  }
  size_t bits = 64;
  while (bits < 32 * joinable.size()) bits *= 2;
  join_filter_.assign(bits / 64, 0);
  join_mask_ = bits - 1;
  joinable.for_each([&](uint64_t key, uint8_t) {
    const uint64_t b = join_hash(static_cast<uint32_t>(key >> 32), static_cast<uint32_t>(key)) & join_mask_;
    join_filter_[b >> 6] |= uint64_t{1} << (b & 63);
  });
  for (uint32_t c = 0; c < 128; ++c) ascii_info_[c] = char_info(c);
  owner_ = new_cache_owner();
  return true;
}

MergeRankBpe::Scratch& MergeRankBpe::scratch() const {
  thread_local Scratch s;
  // Looked up on every call, not kept: thread_cache frees the cache of an owner it evicts.
  s.cache = &thread_cache<PieceCache>(owner_);
  return s;
}

TF_ALWAYS_INLINE MergeRankBpe::CharInfo MergeRankBpe::char_info(uint32_t cp) const {
  uint32_t id = kNone;
  if (cp < 0x10000) {
    id = bmp_id_[cp];
  } else if (const uint32_t* v = astral_id_.find(cp)) {
    id = *v;
  }
  if (id != kNone) return {id, cp, cp};
  if (byte_fallback_) return {kBytes, '<', '>'};
  return {kUnk, unk_first_, unk_last_};
}

TF_ALWAYS_INLINE MergeRankBpe::CharInfo MergeRankBpe::char_at(const uint8_t* p, const uint8_t* end, int* len) const {
  if (*p < 0x80) {
    *len = 1;
    return ascii_info_[*p];
  }
  return char_info(decode_utf8(p, end, len));
}

TF_ALWAYS_INLINE bool MergeRankBpe::joinable(uint32_t last, uint32_t first) const {
  const int a = small_code(last), b = small_code(first);
  if (a >= 0 && b >= 0) {
    const uint32_t bit = static_cast<uint32_t>(a) * kSmall + static_cast<uint32_t>(b);
    return (small_joinable_[bit >> 6] >> (bit & 63)) & 1;
  }
  const uint64_t k = join_hash(last, first) & join_mask_;
  return (join_filter_[k >> 6] >> (k & 63)) & 1;
}

void MergeRankBpe::initial_symbols(std::string_view word, std::vector<Symbol>* syms) const {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(word.data());
  const uint8_t* end = p + word.size();
  Symbol unk{0, 0};
  bool pending = false;  // an unknown symbol not yet appended (fuse_unk extends it)
  while (p < end) {
    int len = 1;
    const CharInfo c = char_at(p, end, &len);
    if (c.id == kBytes) {
      for (int k = 0; k < len; ++k) syms->push_back({byte_id_[p[k]], 1});
    } else if (c.id == kUnk) {
      if (pending && fuse_unk_) {
        unk.len += len;
      } else {
        if (pending) syms->push_back(unk);
        unk = {unk_id_, static_cast<uint32_t>(len)};
        pending = true;
      }
    } else {
      if (pending) syms->push_back(unk);
      pending = false;
      syms->push_back({c.id, static_cast<uint32_t>(len)});
    }
    p += len;
  }
  if (pending) syms->push_back(unk);
}

// Lowest rank, leftmost first, by a scan over each adjacent pair's cached rank.  The first
// lookups are independent: their slots are prefetched together, so their cache misses overlap.
void MergeRankBpe::merge_short(std::vector<Symbol>* syms) const {
  std::vector<Symbol>& s = *syms;
  size_t n = s.size();
  uint32_t pair[kShortWord];  // rank of (s[i], s[i + 1]), kNoRank if none
  if (packed_) {
    for (size_t i = 0; i + 1 < n; ++i) ranks_.prefetch(s[i].id, s[i + 1].id);
  }
  // A found rank's merged token is read when the pair merges: start loading it now.
  auto lookup = [&](size_t i) {
    const uint32_t r = rank_of(s[i].id, s[i + 1].id);
    if (r != kNoRank) __builtin_prefetch(&merged_[r]);
    return r;
  };
  for (size_t i = 0; i + 1 < n; ++i) pair[i] = lookup(i);
  while (n > 1) {
    size_t best = 0;
    for (size_t i = 1; i + 1 < n; ++i) {
      if (pair[i] < pair[best]) best = i;
    }
    if (pair[best] == kNoRank) break;
    s[best].id = merged_[pair[best]];
    s[best].len += s[best + 1].len;
    for (size_t i = best + 1; i + 1 < n; ++i) {
      s[i] = s[i + 1];
      pair[i] = pair[i + 1];
    }
    --n;
    if (packed_) {  // both lookups' misses at once
      if (best + 1 < n) ranks_.prefetch(s[best].id, s[best + 1].id);
      if (best > 0) ranks_.prefetch(s[best - 1].id, s[best].id);
    }
    if (best + 1 < n) pair[best] = lookup(best);
    if (best > 0) pair[best - 1] = lookup(best - 1);
  }
  s.resize(n);
}

// tokenizers' Word::merge_all: a heap of (rank, position) over a linked list of symbols; an
// entry is stale once the pair at its position no longer makes its merged token.
void MergeRankBpe::merge_long(std::vector<Symbol>* syms) const {
  std::vector<Symbol>& s = *syms;
  const size_t n = s.size();
  std::vector<int64_t> prev(n), next(n);
  for (size_t i = 0; i < n; ++i) {
    prev[i] = static_cast<int64_t>(i) - 1;
    next[i] = i + 1 < n ? static_cast<int64_t>(i + 1) : -1;
  }
  struct Entry {
    uint64_t key;  // rank << 32 | position: the smallest is merged first
    uint32_t merged;
  };
  auto later = [](const Entry& a, const Entry& b) { return a.key > b.key; };
  std::vector<Entry> heap;
  auto push = [&](size_t pos, uint32_t rank) {
    if (rank == kNoRank) return;
    heap.push_back({(static_cast<uint64_t>(rank) << 32) | pos, merged_[rank]});
    std::push_heap(heap.begin(), heap.end(), later);
  };
  for (size_t i = 0; i + 1 < n; ++i) push(i, rank_of(s[i].id, s[i + 1].id));
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const Entry top = heap.back();
    heap.pop_back();
    const size_t pos = static_cast<uint32_t>(top.key);
    if (s[pos].len == 0 || next[pos] < 0) continue;
    const size_t right = static_cast<size_t>(next[pos]);
    // As tokenizers: stale unless the pair now there makes the same token (not: has the same rank).
    const uint32_t now = rank_of(s[pos].id, s[right].id);
    if (now == kNoRank || merged_[now] != top.merged) continue;
    s[pos].id = top.merged;
    s[pos].len += s[right].len;
    s[right].len = 0;
    next[pos] = next[right];
    if (next[right] >= 0) prev[next[right]] = static_cast<int64_t>(pos);
    if (prev[pos] >= 0) {
      const size_t l = static_cast<size_t>(prev[pos]);
      push(l, rank_of(s[l].id, s[pos].id));
    }
    if (next[pos] >= 0) push(pos, rank_of(s[pos].id, s[static_cast<size_t>(next[pos])].id));
  }
  s.erase(std::remove_if(s.begin(), s.end(), [](const Symbol& x) { return x.len == 0; }), s.end());
}

void MergeRankBpe::encode_word(std::string_view word, uint64_t h, uint32_t base, std::vector<HfToken>* out,
                               Scratch& scratch) const {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(word.data());
  PieceCache& cache = *static_cast<PieceCache*>(scratch.cache);
  uint32_t count = 0;
  if (const uint32_t* hit = cache.find(p, word.size(), h, &count)) {  // (id, length) pairs
    for (uint32_t k = 0; k < count; k += 2) {
      out->push_back({hit[k], base, base + hit[k + 1]});
      base += hit[k + 1];
    }
    return;
  }
  std::vector<Symbol>& syms = scratch.syms;
  std::vector<uint32_t>& packed = scratch.packed;
  syms.clear();
  initial_symbols(word, &syms);
  if (syms.size() <= kShortWord) {
    merge_short(&syms);
  } else {
    merge_long(&syms);
  }
  packed.clear();
  for (const Symbol& x : syms) {
    out->push_back({x.id, base, base + x.len});
    base += x.len;
    packed.push_back(x.id);
    packed.push_back(x.len);
  }
  cache.insert(p, word.size(), h, packed.data(), packed.size());
}

// Cuts the text into words first, then encodes them with the word cache's slot of a word a
// few ahead already loading (a cold slot is a cache miss per word otherwise).  The cuts are
// found in two passes: the characters first, then each boundary's join filter bit, whose word
// is loaded a few boundaries ahead (in a large vocabulary the filter outgrows the cache, and
// a miss per character, one after another, was most of the time on text with few spaces).
void MergeRankBpe::encode(std::string_view text, uint32_t base, std::vector<HfToken>* out, Scratch& scratch) const {
  const uint8_t* s = reinterpret_cast<const uint8_t*>(text.data());
  const uint8_t* end = s + text.size();
  const uint8_t* p = s;
  std::vector<uint32_t>& cuts = scratch.cuts;
  std::vector<CharAt>& chars = scratch.chars;
  cuts.clear();
  if (chars.size() < text.size()) chars.resize(text.size());
  size_t m = 0;
  while (p < end) {  // fields written in place (a whole struct copied in stalled on its parts' stores)
    int len = 1;
    const CharInfo c = char_at(p, end, &len);
    CharAt& r = chars[m++];
    r.at = static_cast<uint32_t>(p - s);
    r.first = c.first;
    r.last = c.last;
    r.unk = c.id == kUnk;
    p += len;
  }
  constexpr size_t kFilterAhead = 16;
  auto prefetch_filter = [&](size_t i) {  // the filter word of the boundary before chars[i]
    if (small_code(chars[i - 1].last) < 0 || small_code(chars[i].first) < 0) {
      const uint64_t k = join_hash(chars[i - 1].last, chars[i].first) & join_mask_;
      __builtin_prefetch(&join_filter_[k >> 6]);
    }
  };
  for (size_t i = 1; i < m && i <= kFilterAhead; ++i) prefetch_filter(i);
  if (m > 0) cuts.push_back(0);
  for (size_t i = 1; i < m; ++i) {
    if (i + kFilterAhead < m) prefetch_filter(i + kFilterAhead);
    const CharAt& a = chars[i - 1];
    const CharAt& b = chars[i];
    if (!joinable(a.last, b.first) && !(b.unk && a.unk && fuse_unk_)) cuts.push_back(b.at);
  }
  const size_t words = cuts.size();
  cuts.push_back(static_cast<uint32_t>(text.size()));
  constexpr size_t kAhead = 4;
  const PieceCache& cache = *static_cast<const PieceCache*>(scratch.cache);
  uint64_t hashes[kAhead];
  auto hash_of = [&](size_t w) { return hash_bytes(s + cuts[w], cuts[w + 1] - cuts[w]); };
  for (size_t w = 0; w < words && w < kAhead; ++w) {
    hashes[w] = hash_of(w);
    cache.prefetch(hashes[w]);
  }
  for (size_t w = 0; w < words; ++w) {
    const uint64_t h = hashes[w % kAhead];
    if (w + kAhead < words) {
      hashes[w % kAhead] = hash_of(w + kAhead);
      cache.prefetch(hashes[w % kAhead]);
    }
    encode_word(std::string_view(reinterpret_cast<const char*>(s + cuts[w]), cuts[w + 1] - cuts[w]), h,
                base + cuts[w], out, scratch);
  }
}

}  // namespace tf::hf
