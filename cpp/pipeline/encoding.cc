#include "pipeline/encoding.h"

#include <algorithm>
#include <unordered_set>

#include "pretokenize/piece_splitter.h"
#include "pretokenize/scan_util.h"

namespace tf {

using byte_level::ByteLevelBpe;
using byte_level::ByteLevelCache;
using byte_level::ShortTokenIndex;
using byte_level::kNoToken;

namespace {

// Sinks receive the ids of each piece: one keeps them, the other only counts.
struct CollectSink {
  std::vector<uint32_t>* out;
  ByteLevelCache* cache;
  bool piece(const ByteLevelBpe& m, const uint8_t* p, size_t n) { return m.encode_piece(p, n, out, cache); }
  // A piece of 1..15 bytes that is no token, with key k and h = ShortTokenIndex::hash(k).
  bool short_nontoken(const ByteLevelBpe& m, const uint8_t* p, size_t n, ShortTokenIndex::Key k, uint64_t h) {
    return m.encode_short_nontoken_keyed(p, n, k, h, out, cache);
  }
  bool long_piece(const ByteLevelBpe& m, const uint8_t* p, size_t n, uint64_t h) {
    return m.encode_long(p, n, h, out, cache);
  }
  void token(uint32_t id) { out->push_back(id); }
  void special(uint32_t id, const uint8_t*) { out->push_back(id); }
  void piece_end(const uint8_t*) {}
};

// Collects ids in a small vector and moves them to an IdBuffer in blocks.  For a text that
// arrives in chunks (encode_prefix) it also keeps the last place up to `limit` where the
// text may be cut: the end of a special token, or of a piece with no space on either side
// of it that ends in [from, limit] (only near the limit: the branch on every piece's
// neighbours is hard to predict).  (Not a sink of its own: a fourth instantiation of
// encode_segment made the compiler inline less of the o200k scanner into the others.)
struct BufferSink {
  static constexpr size_t kBlock = 8192;  // ids moved to the buffer at a time (at least)
  // Cuts are kept up to `limit` in [text, end) when it is not 0.
  BufferSink(IdBuffer* b, ByteLevelCache* c, const uint8_t* t = nullptr, const uint8_t* e = nullptr, uintptr_t l = 0,
             uintptr_t f = 0)
      : buffer(b), cache(c), text(t), end(e), limit(l), from(f), cut_ids(b->size()) {
    block.reserve(kBlock + 1024);
  }
  IdBuffer* buffer;
  ByteLevelCache* cache;
  std::vector<uint32_t> block;
  const uint8_t* text;
  const uint8_t* end;
  uintptr_t limit;          // 0: no cuts kept
  uintptr_t from;           // piece ends before it are not tested
  size_t cut = 0, cut_ids;  // the last cut, and the ids before it
  bool piece(const ByteLevelBpe& m, const uint8_t* p, size_t n) {
    bool ok = m.encode_piece(p, n, &block, cache);
    if (block.size() >= kBlock) flush();
    return ok;
  }
  bool short_nontoken(const ByteLevelBpe& m, const uint8_t* p, size_t n, ShortTokenIndex::Key k, uint64_t h) {
    bool ok = m.encode_short_nontoken_keyed(p, n, k, h, &block, cache);
    if (block.size() >= kBlock) flush();
    return ok;
  }
  bool long_piece(const ByteLevelBpe& m, const uint8_t* p, size_t n, uint64_t h) {
    bool ok = m.encode_long(p, n, h, &block, cache);
    if (block.size() >= kBlock) flush();
    return ok;
  }
  void token(uint32_t id) {
    block.push_back(id);
    if (block.size() >= kBlock) flush();
  }
  // A special token is whole once found: nothing that follows can change it.
  void special(uint32_t id, const uint8_t* e) {
    block.push_back(id);
    if (reinterpret_cast<uintptr_t>(e) <= limit) cut_at(e);
  }
  void piece_end(const uint8_t* e) {
    if (reinterpret_cast<uintptr_t>(e) - from <= limit - from && !space_at(e) && !space_at(character_before(e)))
      cut_at(e);
  }
  void flush() {
    buffer->append(block.data(), block.size());
    block.clear();
  }
  void cut_at(const uint8_t* e) {
    cut = static_cast<size_t>(e - text);
    cut_ids = buffer->size() + block.size();
  }
  bool space_at(const uint8_t* c) const {
    int len;
    return scan::class_at(c, end, &len) == kSpace;
  }
  const uint8_t* character_before(const uint8_t* e) const {
    const uint8_t* c = e - 1;
    while (c > text && (*c & 0xC0) == 0x80) --c;
    return c;
  }
};

// Counts the ids of each piece, encoded into a scratch vector (a count path of its own,
// answering from the piece cache's stored lengths, did not pay: benchmarks/README.md).
struct CountSink {
  ByteLevelCache* cache;
  size_t n = 0;
  std::vector<uint32_t> scratch;
  template <typename Encode>
  bool counted(Encode encode) {
    scratch.clear();
    if (!encode()) return false;
    n += scratch.size();
    return true;
  }
  bool piece(const ByteLevelBpe& m, const uint8_t* p, size_t len) {
    return counted([&] { return m.encode_piece(p, len, &scratch, cache); });
  }
  bool short_nontoken(const ByteLevelBpe& m, const uint8_t* p, size_t len, ShortTokenIndex::Key k, uint64_t h) {
    return counted([&] { return m.encode_short_nontoken_keyed(p, len, k, h, &scratch, cache); });
  }
  bool long_piece(const ByteLevelBpe& m, const uint8_t* p, size_t len, uint64_t h) {
    return counted([&] { return m.encode_long(p, len, h, &scratch, cache); });
  }
  void token(uint32_t) { ++n; }
  void special(uint32_t, const uint8_t*) { ++n; }
  void piece_end(const uint8_t*) {}
  size_t total() const { return n; }
};

// Merging indexes a piece's bytes with 32-bit positions.
constexpr uint64_t kMaxPiece = 0xFFFFFFFFull;

std::string too_long(size_t n) {
  return "a piece of " + std::to_string(n) + " bytes is longer than the 4 GiB a piece may have";
}

std::string unencodable(const uint8_t* p, size_t n) {
  static const char* hex = "0123456789abcdef";
  std::string s = "cannot encode piece of ";
  s += std::to_string(n);
  s += " bytes: it holds a byte that is not a token (";
  for (size_t i = 0; i < n && i < 16; ++i) {
    s += "\\x";
    s += hex[p[i] >> 4];
    s += hex[p[i] & 15];
  }
  s += n > 16 ? "...)" : ")";
  return s;
}

}  // namespace

bool Encoding::build(std::vector<std::pair<std::string, uint32_t>> ranks,
                     std::vector<std::pair<std::string, uint32_t>> specials, int pattern, std::string* error) {
  if (pattern > kLastSplitPattern) {
    *error = "unknown split pattern " + std::to_string(pattern);
    return false;
  }
  if (!model_.build(std::move(ranks), error)) return false;
  // Several special strings may share one id (o200k_harmony's <|endofprompt|> and
  // <|reserved_200018|>): the matcher finds each of them, and the id decodes to the first
  // one given (tiktoken's choice there; elsewhere its choice follows its hash order).
  std::vector<std::pair<std::string, uint32_t>> decoded;
  decoded.reserve(specials.size());
  std::unordered_set<uint32_t> seen;
  for (const auto& s : specials) {
    if (seen.insert(s.second).second) decoded.push_back(s);
  }
  if (!specials_.build(std::move(decoded), error)) {
    *error = "special tokens: " + *error;
    return false;
  }
  all_specials_ = SpecialMatcher(std::move(specials));
  has_scanner_ = pattern >= 0;
  pattern_ = pattern < 0 ? SplitPattern::kGpt2 : static_cast<SplitPattern>(pattern);
  return true;
}

// Most pieces are tokens of at most 15 bytes, answered by one probe of the model's short
// index (see ShortTokenIndex).  That index is several MB, so its probes miss the L2 cache:
// the splitter (PieceSplitter) runs kAhead pieces ahead of the lookups and each piece's
// bucket is prefetched as it is split off, so that several misses are in flight at once
// instead of one after another.  Other pieces take the model's general path.
template <typename Sink>
bool Encoding::encode_segment(const uint8_t* p, const uint8_t* end, Sink& sink, std::string* error) const {
  return with_scanner(pattern_, [&](auto next_piece) {
    const ShortTokenIndex& index = model_.short_index();
    // A power of two; 32 beat 16 and 64 no better (benchmarks/README.md).
    constexpr size_t kAhead = 32;
    struct Ahead {
      const uint8_t* p;
      size_t n;
      ShortTokenIndex::Key key;  // n <= kMaxLen
      uint64_t h;                // n <= kMaxLen: ShortTokenIndex::hash(key); longer: hash_bytes
    };
    Ahead ring[kAhead];
    size_t read = 0, written = 0;
    scan::PieceSplitter<decltype(next_piece)> pieces(pattern_, p, end, next_piece);
    while (true) {
      for (; written - read < kAhead && !pieces.done(); ++written) {
        const uint8_t* q = pieces.next();
        Ahead& a = ring[written % kAhead];
        a.p = p;
        a.n = static_cast<size_t>(q - p);
        if (a.n <= ShortTokenIndex::kMaxLen) {
          a.key = ShortTokenIndex::key(p, a.n, end);
          a.h = ShortTokenIndex::hash(a.key);
          index.prefetch_bucket(index.bucket_of_hash(a.h));
          // The piece's entry in the short merge cache, which short_nontoken probes on an
          // index miss, is loaded ahead too, whatever the piece: most pieces are tokens
          // and do not need it, but a branch to pick the others cost more than the loads.
          sink.cache->shorts().prefetch(a.h);
        } else if (a.n < kMaxPiece) {
          a.h = hash_bytes(p, a.n);
          model_.prefetch_long(a.h, sink.cache);
        }
        p = q;
      }
      if (read == written) return true;
      const Ahead& a = ring[read++ % kAhead];
      if (a.n <= ShortTokenIndex::kMaxLen) {
        uint32_t id = index.find_in(a.key, index.bucket_of_hash(a.h));
        if (id != kNoToken) {
          sink.token(id);
          sink.piece_end(a.p + a.n);
          continue;
        }
        if (!sink.short_nontoken(model_, a.p, a.n, a.key, a.h)) {
          *error = unencodable(a.p, a.n);
          return false;
        }
      } else if (a.n >= kMaxPiece) {
        return encode_one_piece(a.p, a.n, sink, error);  // the error
      } else if (!sink.long_piece(model_, a.p, a.n, a.h)) {
        *error = unencodable(a.p, a.n);
        return false;
      }
      sink.piece_end(a.p + a.n);
    }
  });
}

// A segment cut into the stretches of cut_ first (see set_cut), each split on its own.  Out
// of line: the callers' own path (no cut) stays as it was without one.
template <typename Sink>
__attribute__((noinline)) bool Encoding::encode_stretches(const uint8_t* p, const uint8_t* end, Sink& sink,
                                                          std::string* error) const {
  while (p < end) {
    const uint8_t* q = cut_->stretch_end(p, end);
    if (!encode_segment(p, q, sink, error)) return false;
    p = q;
  }
  return true;
}

template <typename Sink>
bool Encoding::encode_one_piece(const uint8_t* p, size_t n, Sink& sink, std::string* error) const {
  if (n >= kMaxPiece) {
    *error = too_long(n);
    return false;
  }
  if (!sink.piece(model_, p, n)) {
    *error = unencodable(p, n);
    return false;
  }
  return true;
}

template <typename Sink>
bool Encoding::encode_with_specials(std::string_view text, const SpecialMatcher& allowed, Sink& sink,
                                    std::string* error) const {
  const uint8_t* s = reinterpret_cast<const uint8_t*>(text.data());
  size_t n = text.size(), start = 0;
  while (true) {
    SpecialMatcher::Match m = allowed.find(s, n, start);
    size_t stop = m.found ? m.pos : n;
    if (!(cut_ == nullptr ? encode_segment(s + start, s + stop, sink, error)
                          : encode_stretches(s + start, s + stop, sink, error)))
      return false;
    if (!m.found) return true;
    start = m.pos + m.len;
    sink.special(m.id, s + start);
  }
}

bool Encoding::encode_ordinary(std::string_view text, std::vector<uint32_t>* out, std::string* error) const {
  CollectSink sink{out, &model_.cache()};
  const uint8_t* s = reinterpret_cast<const uint8_t*>(text.data());
  return cut_ == nullptr ? encode_segment(s, s + text.size(), sink, error)
                         : encode_stretches(s, s + text.size(), sink, error);
}

bool Encoding::encode(std::string_view text, const SpecialMatcher& allowed, std::vector<uint32_t>* out,
                      std::string* error) const {
  CollectSink sink{out, &model_.cache()};
  return encode_with_specials(text, allowed, sink, error);
}

bool Encoding::encode_to_buffer(std::string_view text, const SpecialMatcher& allowed, IdBuffer* out,
                                std::string* error) const {
  BufferSink sink(out, &model_.cache());
  out->reserve(out->size() + text.size() / 5 + 16);
  bool ok = encode_with_specials(text, allowed, sink, error);
  sink.flush();
  return ok;
}

// The whole text is encoded as by encode() (the same fast path), and the ids up to the
// last safe cut kept.  The cut must not move when more text follows: the text after
// `limit` may still change (a special token longer than the margin reaches no further
// back than limit), and a piece boundary with no space beside it stays a boundary
// whatever follows (the patterns' look-ahead is only at the end of a run of spaces).
// Piece boundaries are tested in the last kCutWindow bytes before the limit; text with
// none there (words and spaces only) is encoded again, testing all of them.
bool Encoding::encode_prefix(std::string_view text, const SpecialMatcher& allowed, IdBuffer* out,
                             size_t* consumed, std::string* error) const {
  constexpr size_t kCutWindow = 4096;
  *consumed = 0;
  const size_t n = text.size(), margin = std::max(kStreamMargin, allowed.max_length());
  if (!has_scanner_ || n <= margin) return true;
  const uint8_t* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t before = out->size(), limit = n - margin;
  for (size_t window : {std::min(kCutWindow, limit), limit}) {
    BufferSink sink(out, &model_.cache(), s, s + n, reinterpret_cast<uintptr_t>(s + limit),
                    reinterpret_cast<uintptr_t>(s + (limit - window)));
    if (!encode_with_specials(text, allowed, sink, error)) return false;
    sink.flush();
    if (sink.cut > 0 || window == limit) {
      out->truncate(sink.cut_ids);
      *consumed = sink.cut;
      return true;
    }
    out->truncate(before);
  }
  return true;
}

bool Encoding::count(std::string_view text, const SpecialMatcher& allowed, size_t* n, std::string* error) const {
  CountSink sink{&model_.cache(), 0, {}};
  bool ok = encode_with_specials(text, allowed, sink, error);
  *n = sink.total();
  return ok;
}

bool Encoding::encode_pieces(const std::vector<std::string_view>& pieces, std::vector<uint32_t>* out,
                             std::string* error) const {
  for (std::string_view piece : pieces) {
    if (!encode_single_piece(piece, out, error)) return false;
  }
  return true;
}

bool Encoding::encode_single_piece(std::string_view piece, std::vector<uint32_t>* out, std::string* error) const {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(piece.data());
  if (piece.empty()) return true;
  if (piece.size() >= kMaxPiece) {
    *error = too_long(piece.size());
    return false;
  }
  if (!model_.encode_piece(p, piece.size(), out, &model_.cache())) {
    *error = unencodable(p, piece.size());
    return false;
  }
  return true;
}

bool Encoding::token_bytes(uint32_t id, std::string_view* bytes) const {
  if (model_.vocab().has(id)) {
    *bytes = model_.vocab().bytes(id);
    return true;
  }
  if (specials_.has(id)) {
    *bytes = specials_.bytes(id);
    return true;
  }
  return false;
}

long Encoding::decode(const uint32_t* ids, size_t n, std::string* out) const {
  for (size_t i = 0; i < n; ++i) {
    std::string_view b;
    if (!token_bytes(ids[i], &b)) return static_cast<long>(i);
    out->append(b.data(), b.size());
  }
  return -1;
}

uint32_t Encoding::max_token_value() const {
  uint32_t m = model_.vocab().id_bound();
  m = std::max(m, specials_.id_bound());
  return m == 0 ? 0 : m - 1;
}

}  // namespace tf
