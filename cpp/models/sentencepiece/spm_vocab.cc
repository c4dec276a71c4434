#include "models/sentencepiece/spm_vocab.h"

#include <cfloat>
#include <cmath>
#include <cstdio>

namespace tf::spm {

bool SpmVocab::build(std::vector<SpmPieceSpec> pieces, const SpmVocabOptions& options, std::string* error) {
  pieces_ = std::move(pieces);
  types_.resize(pieces_.size());
  for (size_t i = 0; i < pieces_.size(); ++i) types_[i] = pieces_[i].type;
  size_t reserved_count = 0;
  for (const SpmPieceSpec& p : pieces_) {
    reserved_count += p.type == static_cast<uint8_t>(SpmType::kUnknown) || p.type == static_cast<uint8_t>(SpmType::kControl) ||
                      p.type == static_cast<uint8_t>(SpmType::kByte);
  }
  matchable_.reset(pieces_.size());
  reserved_.reset(reserved_count);
  piece_byte_.assign(pieces_.size(), -1);
  unk_id_ = -1;
  has_unused_ = false;
  min_score_ = FLT_MAX;
  std::vector<std::pair<std::string, int32_t>> user;
  bool byte_found[256] = {};
  auto fail = [&](std::string message) {
    *error = std::move(message);
    return false;
  };
  // The checks and messages of sentencepiece 0.2.3 (ModelInterface::InitializePieces).
  for (size_t i = 0; i < pieces_.size(); ++i) {
    const SpmPieceSpec& p = pieces_[i];
    const int32_t id = static_cast<int32_t>(i);
    if (p.text.size() >= 8000) return fail("piece " + std::to_string(i) + " is too long.");
    if (p.text.empty()) return fail("piece " + std::to_string(i) + " is empty: piece must not be empty.");
    if (p.type < 1 || p.type > 6) return fail("piece " + std::to_string(i) + " has unknown type " + std::to_string(p.type));
    SpmType t = static_cast<SpmType>(p.type);
    if (p.text == std::string_view("\0", 1) && t == SpmType::kUnused) continue;  // a placeholder id
    if (p.text.find('\0') != std::string::npos) return fail("piece must not include null character.");
    if (!options.bpe && (std::isnan(p.score) || std::isinf(p.score))) return fail("score is NaN or Inf.");
    bool matchable = t == SpmType::kNormal || t == SpmType::kUserDefined || t == SpmType::kUnused;
    auto& map = matchable ? matchable_ : reserved_;
    // BPE models keep every piece in one map, so a text may not repeat across types either.
    const auto& other = matchable ? reserved_ : matchable_;
    if (!map.insert(p.text, id, pieces_) || (options.bpe && other.find(p.text, pieces_) >= 0)) {
      return fail(p.text + " is already defined.");
    }
    if (t == SpmType::kUserDefined) user.emplace_back(p.text, id);
    if (t == SpmType::kUnused) has_unused_ = true;
    if (t == SpmType::kNormal && p.score < min_score_) min_score_ = p.score;
    if (t == SpmType::kUnknown) {
      if (unk_id_ >= 0) return fail("unk is already defined.");
      unk_id_ = id;
    }
    if (t == SpmType::kByte) {
      if (!options.byte_fallback) return fail("byte piece " + p.text + " is found although `byte_fallback` is false.");
      unsigned value = 0;
      char tail = 0;
      if (p.text.size() != 6 || std::sscanf(p.text.c_str(), "<0x%2X%c", &value, &tail) != 2 || tail != '>') {
        return fail("byte piece " + p.text + " is invalid.");
      }
      char canonical[8];
      std::snprintf(canonical, sizeof(canonical), "<0x%02X>", value);
      if (p.text != canonical) return fail("byte piece " + p.text + " is invalid.");
      byte_found[value] = true;
      piece_byte_[id] = static_cast<int16_t>(value);
    }
  }
  if (unk_id_ < 0 && !options.byte_fallback) return fail("unk is not defined.");
  if (options.byte_fallback) {
    for (bool found : byte_found) {
      if (!found) return fail("there are not 256 byte pieces although `byte_fallback` is true.");
    }
  }
  if (min_score_ == FLT_MAX) min_score_ = 0.0f;
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof(name), "<0x%02X>", b);
    byte_ids_[b] = piece_to_id(name);
  }
  user_defined_.build(std::move(user));
  return true;
}

int32_t SpmVocab::piece_to_id(std::string_view text) const {
  const int32_t reserved = reserved_.find(text, pieces_);
  if (reserved >= 0) return reserved;
  const int32_t matchable = matchable_.find(text, pieces_);
  if (matchable >= 0) return matchable;
  return unk_id_;
}

}  // namespace tf::spm
