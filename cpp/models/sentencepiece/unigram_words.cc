// Unigram::encode by words, through a per-thread cache of word segmentations.
//
// Why a cached segmentation may be reused although sentencepiece sums scores in float
// from the start of the text: inside a word every path starts from the same total P (no
// edge crosses the word's first point), so in exact arithmetic the best path does not
// depend on P.  In float, each addition along a path is off by at most u = 2^-24 times the
// magnitude M it works at, so a candidate reached after k additions is within k * u * M
// of its exact value, and a comparison whose exact margin exceeds the sum of both errors
// comes out as in exact arithmetic.  word_entry() runs the word's Viterbi in double from
// P = 0 and records the smallest margin between the winner and the runner-up at every
// point of the word (any point: off-path totals feed later comparisons), the most
// additions behind a candidate and the largest |candidate|; from these follows the
// largest |P| for which every decision is safe and no total can pass the ±1e5 that makes
// sentencepiece rebase its scores.  Within that bound the float Viterbi from P picks
// exactly the cached path, and replaying its float additions from P gives the same total
// bit for bit; outside it (near-ties, huge totals) the word is segmented in place by
// encode_span, exactly as before.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/thread_cache.h"
#include "models/sentencepiece/unigram_word_cache.h"
#include "models/sentencepiece/unigram.h"
#include "normalize/spm_normalizer.h"
#include "common/byte_hash.h"

namespace tf::spm {

namespace {

uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

}  // namespace

// The total after `count` <unk> edges from `total`, each preceded by sentencepiece's rebase
// check: a tight loop of its own, so the sum stays in a register.
float Unigram::add_unknowns(float total, float unk, uint32_t count) {
  // While 16 more additions cannot carry |total| past the rebase threshold (each moves it by
  // at most |unk| plus a rounding far below the slack here), the check is skipped: the
  // same float sums, with only the addition's latency in the loop.  (NaN or infinite
  // scores fail the test and take the checked loop.)
  constexpr uint32_t kBlock = 16;
  const float reach = static_cast<float>(kBlock) * std::fabs(unk) * 1.01f + 1.0f;
  while (count >= kBlock && std::fabs(total) + reach < kScoreReset) {
    for (uint32_t k = 0; k < kBlock; ++k) total += unk;
    count -= kBlock;
  }
  for (uint32_t k = 0; k < count; ++k) {
    if (total < -kScoreReset || total > kScoreReset) total = 0.0f;
    total += unk;
  }
  return total;
}

void Unigram::word_entry(const uint8_t* s, size_t n, std::vector<uint32_t>* entry) const {
  struct Cell {
    double best = 0.0, second = 0.0;
    int32_t id = -1, start = -1;
    float score = 0.0f;   // the float score of the winning edge
    uint32_t count = 0;   // additions behind the best total
    bool second_set = false;
  };
  thread_local std::vector<Cell> tls_cells;
  std::vector<Cell>& cells = pinned(tls_cells);
  cells.assign(n + 1, Cell());
  cells[0].start = 0;
  double max_abs = 0.0;
  uint32_t max_count = 0;
  auto offer = [&](size_t from, size_t to, int32_t id, float score) {
    const double candidate = cells[from].best + static_cast<double>(score);
    const uint32_t count = cells[from].count + 1;
    max_abs = std::max(max_abs, std::fabs(candidate));
    max_count = std::max(max_count, count);
    Cell& t = cells[to];
    if (t.start < 0) {
      t.best = candidate;
      t.start = static_cast<int32_t>(from);
      t.id = id;
      t.score = score;
      t.count = count;
    } else if (candidate > t.best) {
      t.second = t.best;
      t.second_set = true;
      t.best = candidate;
      t.start = static_cast<int32_t>(from);
      t.id = id;
      t.score = score;
      t.count = count;
    } else if (!t.second_set || candidate > t.second) {
      t.second = candidate;
      t.second_set = true;
    }
  };
  // The same edges as encode_span.
  for (size_t start = 0; start < n;) {
    const size_t mblen = std::min(spm_char_len(s[start]), n - start);
    for_each_edge(s, n, start, mblen, [&](size_t end, int32_t id, float score) { offer(start, end, id, score); });
    start += mblen;
  }
  double margin = std::numeric_limits<double>::infinity();
  for (size_t i = 1; i <= n; ++i) {
    if (cells[i].second_set) margin = std::min(margin, cells[i].best - cells[i].second);
  }
  // margin > 2 * max_count * u * (|P| + max_abs), with a factor 2 to spare and an absolute
  // allowance for the double arithmetic here.
  constexpr double u = 1.0 / 16777216.0;
  const double per_unit = 4.0 * max_count * u;
  // The margins above are themselves double sums, each off by at most max_count * 2^-53 * max_abs.
  const double double_error = 2.0 * max_count * std::ldexp(max_abs, -53) + 1e-9;
  double limit = (margin - double_error) / per_unit - max_abs;
  limit = std::min(limit, static_cast<double>(kScoreReset) - max_abs - 16.0);
  if (!(limit >= 0.0)) limit = -1.0;  // also catches NaN
  limit = std::min(limit, 1e30);
  entry->clear();
  entry->push_back(float_bits(static_cast<float>(limit)));
  for (size_t end = n; end > 0;) {
    const Cell& c = cells[end];
    entry->push_back(static_cast<uint32_t>(c.id) | static_cast<uint32_t>(end - static_cast<size_t>(c.start)) << 24);
    entry->push_back(float_bits(c.score));
    end = static_cast<size_t>(c.start);
  }
  // Reverse the (id | length, score) pairs into text order.
  const size_t k = (entry->size() - 1) / 2;
  for (size_t i = 0; i < k / 2; ++i) {
    std::swap((*entry)[1 + 2 * i], (*entry)[1 + 2 * (k - 1 - i)]);
    std::swap((*entry)[2 + 2 * i], (*entry)[2 + 2 * (k - 1 - i)]);
  }
}

namespace {

// encode()'s output: tokens with offsets.
struct TokenSink {
  std::vector<SpmToken>* out;
  uint32_t base;
  bool merge_unknown;
  void piece(int32_t id, uint32_t begin, uint32_t end) { push_token(out, id, base + begin, base + end); }
  void unknown(int32_t unk, uint32_t begin, uint32_t end) { push_token(out, unk, base + begin, base + end); }
  // The pieces of a cached word starting at `at`, each score added to `total` in turn.
  float replay(const uint32_t* p, size_t k, uint32_t at, float total) {
    at += base;
    for (size_t i = 0; i < k; ++i) {
      const uint32_t length = p[2 * i] >> 24;
      push_token(out, static_cast<int32_t>(p[2 * i] & 0xFFFFFF), at, at + length);
      at += length;
      total = total + float_from_bits(p[2 * i + 1]);
    }
    return total;
  }
};

// encode_ids()'s output: ids only, unknown text as one <unk> per run or as its bytes
// (byte fallback), exactly what SentencePieceProcessor::populate makes of the tokens.
// Written through a raw pointer into a buffer that only grows, so the replay of a
// cached word is a loop without calls (a call would spill the running float total, whose
// addition chain is the loop's critical path).
class IdSink {
 public:
  static constexpr bool merge_unknown = true;
  IdSink(const uint8_t* s, const SpmVocab* vocab, bool byte_fallback, std::vector<int32_t>* buf)
      : s_(s), vocab_(vocab), byte_fallback_(byte_fallback), unk_(vocab->unk_id()),
        unk24_(static_cast<uint32_t>(vocab->unk_id()) & 0xFFFFFF), buf_(buf) {}
  void reserve(size_t k) {
    if (used_ + k > buf_->size()) buf_->resize(std::max(2 * buf_->size(), used_ + k + 1024));
  }
  void unknown(int32_t, uint32_t begin, uint32_t end) {
    if (byte_fallback_) {
      reserve(end - begin);
      int32_t* o = buf_->data() + used_;
      for (uint32_t b = begin; b < end; ++b) *o++ = vocab_->byte_id(s_[b]);
      used_ += end - begin;
    } else if (!prev_unk_) {
      reserve(1);
      (*buf_)[used_++] = unk_;
    }
    prev_unk_ = true;
  }
  void piece(int32_t id, uint32_t begin, uint32_t end) {
    if (vocab_->is_unknown(id)) {
      unknown(id, begin, end);
      return;
    }
    reserve(1);
    (*buf_)[used_++] = id;
    prev_unk_ = false;
  }
  float replay(const uint32_t* p, size_t k, uint32_t at, float total) {
    reserve(k);
    int32_t* o = buf_->data() + used_;
    uint32_t any_unknown = 0;
    for (size_t i = 0; i < k; ++i) {
      const uint32_t id = p[2 * i] & 0xFFFFFF;
      o[i] = static_cast<int32_t>(id);
      any_unknown |= id == unk24_;
      total = total + float_from_bits(p[2 * i + 1]);
    }
    if (any_unknown) {
      // A character no one-character piece covers: <unk> inside the word, which merges
      // with its neighbours; emit piece by piece (the total above stands).
      for (size_t i = 0; i < k; ++i) {
        const uint32_t id = p[2 * i] & 0xFFFFFF, length = p[2 * i] >> 24;
        if (id == unk24_) unknown(unk_, at, at + length);
        else piece(static_cast<int32_t>(id), at, at + length);
        at += length;
      }
    } else if (k > 0) {
      used_ += k;
      prev_unk_ = false;
    }
    return total;
  }
  void finish(std::vector<int32_t>* ids) const { ids->insert(ids->end(), buf_->data(), buf_->data() + used_); }

 private:
  const uint8_t* s_;
  const SpmVocab* vocab_;
  bool byte_fallback_;
  int32_t unk_;
  uint32_t unk24_;  // unk_ as the cache stores it
  std::vector<int32_t>* buf_;
  size_t used_ = 0;
  bool prev_unk_ = false;
};

// This thread's buffers for encode() and encode_ids(), in one thread_local: in a shared
// library each thread_local costs a __tls_get_addr call per use, which
// showed on short lines when there were six.
struct UnigramScratch {
  std::vector<int32_t> ids;
  std::vector<Unigram::Segment> segments;
  std::vector<uint32_t> entry;
  std::vector<SpmToken> tokens;
  // The last cache thread_cache<UnigramWordCache>() gave on this thread, and its owner.  Every call
  // goes through here, so the pointer stays valid: a cache is only dropped inside a call
  // for another owner, which replaces the memo.
  uint64_t cache_owner = 0;
  UnigramWordCache* cache = nullptr;
  UnigramWordCache* word_cache(uint64_t owner) {
    if (owner != cache_owner) {
      cache = &thread_cache<UnigramWordCache>(owner);
      cache_owner = owner;
    }
    return cache;
  }
};

UnigramScratch& scratch() {
  thread_local UnigramScratch tls;
  return pinned(tls);
}

}  // namespace

UnigramWordCache& Unigram::thread_word_cache() const { return *scratch().word_cache(cache_owner_); }

void Unigram::cut_segments(const uint8_t* s, size_t n, std::vector<Segment>* out) const {
  std::vector<Segment>& segments = *out;
  segments.clear();
  auto add_word = [&](size_t begin, size_t end) {
    const uint64_t h = end - begin <= UnigramWordCache::kMaxWord ? hash_bytes(s + begin, end - begin) | 1 : 1;
    segments.emplace_back();
    Segment& g = segments.back();
    g.begin = static_cast<uint32_t>(begin);
    g.end = static_cast<uint32_t>(end);
    g.hash = h;
  };
  size_t start = 0;
  const bool split = splits_words_;
  const uint64_t* in_piece = in_piece_.data();
  const uint64_t* unknown3 = unknown3_.data();
  const uint64_t unknown_ascii[2] = {unknown_ascii_[0], unknown_ascii_[1]};
  constexpr uint32_t kSpaceWord = 0x2581 >> 6, kSpaceBit = 0x2581 & 63;
  // The run of unknown characters being read, kept in registers until it ends.
  bool in_run = false;
  uint32_t run_begin = 0, run_chars = 0;
  auto end_run = [&](size_t end) {
    segments.emplace_back();
    Segment& g = segments.back();
    g.begin = run_begin;
    g.end = static_cast<uint32_t>(end);
    g.hash = 0;
    g.chars = run_chars;
    in_run = false;
  };
  for (size_t i = 0; i < n;) {
    const uint8_t c = s[i];
    size_t len;
    // A character inside no piece has <unk> as its only edge, and none crosses it.
    bool unknown;
    if (c < 0x80) {
      len = 1;
      unknown = (unknown_ascii[c >> 6] >> (c & 63)) & 1;
      if (!unknown) {
        // Known ASCII characters neither cut nor end a word: on to the next byte that may.
        if (in_run) end_run(i);
        i = static_cast<size_t>(ascii_stops_.skip(s + i + 1, s + n, s) - s);
        continue;
      }
    } else if (c >= 0xE0 && c < 0xF0 && i + 3 <= n) {
      // 3-byte characters (CJK, ▁): one table word, no decoding (see unknown3_).
      len = 3;
      const uint32_t b1 = s[i + 1], b2 = s[i + 2];
      const bool continued = ((b1 & 0xC0) | ((b2 & 0xC0) >> 2)) == 0xA0;
      const uint32_t w = ((c & 0x0Fu) << 6) | (b1 & 0x3Fu);
      unknown = continued && ((unknown3[w] >> (b2 & 63)) & 1);
      if (!unknown && split && w == kSpaceWord && (b2 & 63) == kSpaceBit && continued) {
        if (in_run) end_run(i);
        if (i > start) add_word(start, i);
        start = i;
        i += 3;
        continue;
      }
    } else {
      len = std::min(spm_char_len(c), n - i);
      bool known = true;  // malformed: assume it is in some piece
      if (len == 2 && (s[i + 1] & 0xC0) == 0x80) {
        known = !((unknown2_[c & 0x1F] >> (s[i + 1] & 63)) & 1);
      } else if (len == 4 && utf8_char_len(s + i, 4) == 4) {
        const uint32_t cp = ((c & 0x07u) << 18) | ((s[i + 1] & 0x3Fu) << 12) | ((s[i + 2] & 0x3Fu) << 6) | (s[i + 3] & 0x3Fu);
        known = !cuts_at_unknown_ || ((in_piece[cp >> 6] >> (cp & 63)) & 1);
      }
      unknown = !known;
    }
    if (unknown) {
      if (i > start) add_word(start, i);  // (no run is open: a known character came since)
      if (!in_run) {
        in_run = true;
        run_begin = static_cast<uint32_t>(i);
        run_chars = 0;
      }
      ++run_chars;
      i += len;
      start = i;
      continue;
    }
    if (in_run) end_run(i);
    i += len;
  }
  if (in_run) end_run(n);
  if (n > start) add_word(start, n);

}

void Unigram::encode(std::string_view text, uint32_t base, std::vector<SpmToken>* out, bool merge_unknown) const {
  const uint8_t* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  if (!splits_words_ && !cuts_at_unknown_) {
    encode_span(s, n, 0.0f, base, out);
    return;
  }
  TokenSink sink{out, base, merge_unknown};
  emit(s, n, sink, &scratch());
}

void Unigram::encode_ids(std::string_view text, bool byte_fallback, std::vector<int32_t>* ids) const {
  const uint8_t* s = reinterpret_cast<const uint8_t*>(text.data());
  UnigramScratch& tmp = scratch();
  IdSink sink(s, vocab_, byte_fallback, &tmp.ids);
  if (!splits_words_ && !cuts_at_unknown_) {
    span(s, text.size(), 0.0f, 0, sink, &tmp);
  } else {
    emit(s, text.size(), sink, &tmp);
  }
  sink.finish(ids);
}

template <typename Sink>
void Unigram::emit(const uint8_t* s, size_t n, Sink& sink, void* scratch_buffers) const {
  UnigramScratch& tmp = *static_cast<UnigramScratch*>(scratch_buffers);
  // First the words and unknown characters with the hashes of the words, so the cache can
  // be prefetched a few words ahead; then each in turn.
  std::vector<Segment>& segments = tmp.segments;
  cut_segments(s, n, &segments);

  UnigramWordCache* cache = cache_words_ ? tmp.word_cache(cache_owner_) : nullptr;
  std::vector<uint32_t>& entry = tmp.entry;
  const float unk = unk_score();
  const int32_t unk_id = vocab_->unk_id();
  float total = 0.0f;
  constexpr size_t kAhead = 8;
  const size_t count = segments.size();
  for (size_t j = 0; j < count; ++j) {
    if (cache != nullptr) {
      if (j + kAhead < count && (segments[j + kAhead].hash & ~uint64_t{1}) != 0) cache->prefetch_slot(segments[j + kAhead].hash);
      if (j + kAhead / 2 < count && (segments[j + kAhead / 2].hash & ~uint64_t{1}) != 0) {
        cache->prefetch_record(segments[j + kAhead / 2].hash);
      }
    }
    const Segment& seg = segments[j];
    if (seg.hash == 0) {
      if (sink.merge_unknown) {
        sink.unknown(unk_id, seg.begin, seg.end);
        total = add_unknowns(total, unk, seg.chars);
        continue;
      }
      float t = total;
      for (uint32_t i = seg.begin; i < seg.end;) {
        const uint32_t len = static_cast<uint32_t>(std::min<size_t>(spm_char_len(s[i]), seg.end - i));
        if (t < -kScoreReset || t > kScoreReset) t = 0.0f;  // sentencepiece's rebase
        sink.unknown(unk_id, i, i + len);
        t = t + unk;
        i += len;
      }
      total = t;
      continue;
    }
    if (total < -kScoreReset || total > kScoreReset) total = 0.0f;  // sentencepiece's rebase, here exact
    // A word: no edge crosses either end.
    const uint8_t* w = s + seg.begin;
    const size_t wn = seg.end - seg.begin;
    if (cache == nullptr || wn > UnigramWordCache::kMaxWord) {
      total = span(w, wn, total, seg.begin, sink, &tmp);
      continue;
    }
    const uint32_t* record = cache->find(w, wn, seg.hash);
    if (record == nullptr) {
      word_entry(w, wn, &entry);
      record = cache->insert(w, wn, seg.hash, entry[0], entry.data() + 1, (entry.size() - 1) / 2);
    }
    if (!(std::fabs(total) <= float_from_bits(record[1]))) {
      total = span(w, wn, total, seg.begin, sink, &tmp);
      continue;
    }
    total = sink.replay(UnigramWordCache::pieces(record), UnigramWordCache::pieces_of(record), seg.begin, total);
  }
}

template <typename Sink>
float Unigram::span(const uint8_t* s, size_t n, float initial, uint32_t begin, Sink& sink, void* scratch_buffers) const {
  if constexpr (std::is_same_v<Sink, TokenSink>) return encode_span(s, n, initial, sink.base + begin, sink.out);
  std::vector<SpmToken>& tokens = static_cast<UnigramScratch*>(scratch_buffers)->tokens;
  tokens.clear();
  const float total = encode_span(s, n, initial, begin, &tokens);
  for (const SpmToken& t : tokens) sink.piece(t.id, t.begin, t.end);
  return total;
}

}  // namespace tf::spm
