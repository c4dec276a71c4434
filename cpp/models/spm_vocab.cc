#include "models/spm_vocab.h"

#include <cfloat>
#include <cstdio>

namespace tf {

bool SpmVocab::build(std::vector<SpmPieceSpec> pieces, std::string* error) {
  pieces_ = std::move(pieces);
  matchable_.clear();
  reserved_.clear();
  matchable_.reserve(pieces_.size() * 2);
  piece_byte_.assign(pieces_.size(), -1);
  unk_id_ = -1;
  has_unused_ = false;
  min_score_ = FLT_MAX;
  max_score_ = FLT_MIN;
  std::vector<std::pair<std::string, int32_t>> user;
  for (size_t i = 0; i < pieces_.size(); ++i) {
    const SpmPieceSpec& p = pieces_[i];
    const int32_t id = static_cast<int32_t>(i);
    if (p.text.empty()) {
      *error = "piece " + std::to_string(i) + " is empty";
      return false;
    }
    if (p.type < 1 || p.type > 6) {
      *error = "piece " + std::to_string(i) + " has unknown type " + std::to_string(p.type);
      return false;
    }
    SpmType t = static_cast<SpmType>(p.type);
    bool matchable = t == SpmType::kNormal || t == SpmType::kUserDefined || t == SpmType::kUnused;
    auto& map = matchable ? matchable_ : reserved_;
    if (!map.emplace(std::string_view(p.text), id).second) {
      *error = "piece \"" + p.text + "\" is already defined";
      return false;
    }
    if (t == SpmType::kUserDefined) user.emplace_back(p.text, id);
    if (t == SpmType::kUnused) has_unused_ = true;
    if (t == SpmType::kNormal) {
      if (p.score < min_score_) min_score_ = p.score;
      if (p.score > max_score_) max_score_ = p.score;
    }
    if (t == SpmType::kUnknown) {
      if (unk_id_ >= 0) {
        *error = "unk is already defined";
        return false;
      }
      unk_id_ = id;
    }
  }
  if (unk_id_ < 0) {
    *error = "unk is not defined";
    return false;
  }
  if (min_score_ == FLT_MAX) min_score_ = 0.0f;
  if (max_score_ == FLT_MIN) max_score_ = 0.0f;
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof(name), "<0x%02X>", b);
    auto it = reserved_.find(std::string_view(name));
    bool ok = it != reserved_.end() && type(it->second) == SpmType::kByte;
    byte_ids_[b] = ok ? it->second : piece_to_id(name);
    if (ok) piece_byte_[it->second] = static_cast<int16_t>(b);
  }
  user_defined_.build(std::move(user));
  return true;
}

int32_t SpmVocab::piece_to_id(std::string_view text) const {
  auto it = reserved_.find(text);
  if (it != reserved_.end()) return it->second;
  auto jt = matchable_.find(text);
  if (jt != matchable_.end()) return jt->second;
  return unk_id_;
}

}  // namespace tf
