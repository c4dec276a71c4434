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

#include "models/piece_trie.h"

namespace tf {

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
  int32_t find_matchable(std::string_view text) const {
    auto it = matchable_.find(text);
    return it == matchable_.end() ? -1 : it->second;
  }
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
  std::unordered_map<std::string_view, int32_t> matchable_;
  std::unordered_map<std::string_view, int32_t> reserved_;
  std::vector<int16_t> piece_byte_;
  int32_t byte_ids_[256] = {};
  int32_t unk_id_ = -1;
  PieceTrie user_defined_;
  bool has_unused_ = false;
  float min_score_ = 0.0f;
};

// Length of the UTF-8 character starting with byte c, judged from c alone as sentencepiece
// does (1 for ASCII and stray continuation bytes, else 2, 3 or 4).
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

inline size_t spm_char_len(uint8_t c) {
  static constexpr uint8_t kLen[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
  return kLen[c >> 4];
}

}  // namespace tf
