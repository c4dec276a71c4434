// SentencePieceText and NBestSentencePieceText (sentencepiece.proto), the messages
// sentencepiece's encode/decode(out_type="serialized_proto") return, in protobuf's wire
// format as protobuf's C++ serializer writes the fields sentencepiece sets: in number order,
// each only when set (a byte piece that is not the last of its character has no surface;
// only n-best and scored samples have a score).  Linear in the output size.
//
// The readable reference, and the oracle of its property test, is
// src/tokenforge/formats/sentencepiece_text.py.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tf::spm {

// One piece of a SentencePieceText.
struct SpmTextPiece {
  std::string_view piece;
  uint32_t id;
  std::string_view surface;
  bool has_surface;
  uint32_t begin;
  uint32_t end;
};

// Appends a SentencePieceText (text, pieces, and the score when `score` is not null) to *out.
void write_spm_text(std::string_view text, const std::vector<SpmTextPiece>& pieces, const float* score,
                    std::string* out);

// Appends one SentencePieceText message (serialized) as an item of NBestSentencePieceText.
void write_spm_nbest_item(std::string_view message, std::string* out);

}  // namespace tf::spm
