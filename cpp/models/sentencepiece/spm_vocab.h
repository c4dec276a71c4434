// SpmVocab: the pieces of a SentencePiece model (ModelProto.pieces) with their scores and
// types, and the lookups both SentencePiece models share.
//
// As in sentencepiece, NORMAL, USER_DEFINED and UNUSED pieces are "matchable" (text can
// turn into them) while UNKNOWN, CONTROL and BYTE pieces are reserved; piece_to_id looks in
// the reserved pieces first and answers unk_id() for text that is no piece.  USER_DEFINED
// pieces also go into a trie for the longest-prefix match that keeps them whole.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/piece_trie.h"
#include "common/byte_hash.h"

namespace tf::spm {

enum class SpmType : uint8_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

struct SpmPieceSpec {
  std::string text;
  float score = 0.0f;
  uint8_t type = 1;
};

struct SpmVocabOptions {
  bool bpe = false;            // BPE: a piece text may appear once across all types
  bool byte_fallback = false;  // BYTE pieces allowed (all 256 required); <unk> optional
};

// PieceIndex: piece text -> id over strings the vocabulary owns, by open addressing on
// hash_bytes (an 8-byte slot: hash tag and id).  Building the models looks up every
// prefix and suffix of every piece, which std::unordered_map made the bulk of loading.
class PieceIndex {
 public:
  void reset(size_t capacity) {
    size_t n = 16;
    while (n < capacity * 2) n <<= 1;
    slots_.assign(n, kEmpty);
    mask_ = n - 1;
  }
  int32_t find(std::string_view text, const std::vector<SpmPieceSpec>& pieces) const {
    if (slots_.empty()) return -1;
    const uint64_t h = hash_bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size());
    const uint32_t tag = static_cast<uint32_t>(h >> 32);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const uint64_t s = slots_[i];
      if (s == kEmpty) return -1;
      const int32_t id = static_cast<int32_t>(static_cast<uint32_t>(s));
      if (static_cast<uint32_t>(s >> 32) == tag && pieces[id].text == text) return id;
    }
  }
  // Adds text -> id unless the text is already there (then false).
  bool insert(std::string_view text, int32_t id, const std::vector<SpmPieceSpec>& pieces) {
    const uint64_t h = hash_bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size());
    const uint32_t tag = static_cast<uint32_t>(h >> 32);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const uint64_t s = slots_[i];
      if (s == kEmpty) {
        slots_[i] = (static_cast<uint64_t>(tag) << 32) | static_cast<uint32_t>(id);
        return true;
      }
      const int32_t other = static_cast<int32_t>(static_cast<uint32_t>(s));
      if (static_cast<uint32_t>(s >> 32) == tag && pieces[other].text == text) return false;
    }
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  std::vector<uint64_t> slots_;
  size_t mask_ = 0;
};

class SpmVocab {
 public:
  // Fails as sentencepiece 0.2.3 does: an empty, too long (>= 8000 bytes), NUL-containing
  // or duplicate piece, an unknown type, several UNKNOWN pieces or none (without byte
  // fallback), a misnamed or unexpected BYTE piece, a NaN/Inf score (Unigram).
  bool build(std::vector<SpmPieceSpec> pieces, const SpmVocabOptions& options, std::string* error);

  int32_t size() const { return static_cast<int32_t>(pieces_.size()); }
  const std::string& piece(int32_t id) const { return pieces_[id].text; }
  float score(int32_t id) const { return pieces_[id].score; }
  SpmType type(int32_t id) const { return static_cast<SpmType>(types_[id]); }
  bool is(int32_t id, SpmType t) const { return id >= 0 && id < size() && type(id) == t; }
  bool is_unknown(int32_t id) const { return id < 0 || type(id) == SpmType::kUnknown; }

  // sentencepiece's PieceToId: reserved pieces, then matchable ones, else unk_id().
  int32_t piece_to_id(std::string_view text) const;
  // A matchable piece (NORMAL, USER_DEFINED, UNUSED) with this text, or -1.
  int32_t find_matchable(std::string_view text) const { return matchable_.find(text, pieces_); }
  // The UNKNOWN piece, or -1 (only a byte-fallback model may lack one).
  int32_t unk_id() const { return unk_id_; }
  // The id of the BYTE piece <0xXX> for b, or unk_id() when the model lacks it.
  int32_t byte_id(uint8_t b) const { return byte_ids_[b]; }
  // The byte a BYTE piece stands for, or -1.
  int byte_value(int32_t id) const { return (id >= 0 && id < size()) ? piece_byte_[id] : -1; }

  const PieceTrie& user_defined() const { return user_defined_; }
  bool has_unused() const { return has_unused_; }
  // The smallest score of a NORMAL piece (0 when none).
  float min_score() const { return min_score_; }

 private:
  std::vector<SpmPieceSpec> pieces_;
  std::vector<uint8_t> types_;  // id -> type, compact: the encoder checks it per token
  PieceIndex matchable_;
  PieceIndex reserved_;
  std::vector<int16_t> piece_byte_;
  int32_t byte_ids_[256] = {};
  int32_t unk_id_ = -1;
  PieceTrie user_defined_;
  bool has_unused_ = false;
  float min_score_ = 0.0f;
};

// A thread_local's address made opaque to the optimizer: in a shared library GCC would
// otherwise recompute it (a __tls_get_addr call) at each use inside hot loops.
template <typename T>
inline T& pinned(T& tls) {
  T* p = &tls;
#if defined(__GNUC__) || defined(__clang__)
  __asm__("" : "+r"(p));
#endif
  return *p;
}

// Length of the UTF-8 character starting with byte c, judged from c alone as sentencepiece
// does (1 for ASCII and stray continuation bytes, else 2, 3 or 4).
// (Computed, not looked up: in the character-stepping loops the table load sat on the
// critical path.)
inline size_t spm_char_len(uint8_t c) {
  return size_t{1} + (c >= 0xC0) + (c >= 0xE0) + (c >= 0xF0);
}

}  // namespace tf::spm
