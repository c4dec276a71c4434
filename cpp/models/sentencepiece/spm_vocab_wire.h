// read_model_pieces: the fast path for loading a SentencePiece .model file, reading the
// repeated `pieces` field of the ModelProto (field 1: SentencePiece messages of piece,
// score, type) in one pass and keeping the bytes of every other top-level field (in file
// order) for the Python parser, which then only sees a few hundred bytes.
//
// Only well-formed files of the usual shape take this path: anything it does not fully
// understand (a truncated field, a wrong wire type, an unknown field inside a piece, a
// piece that is not UTF-8, groups) makes it answer false, and the caller falls back to
// the complete parser, which reports the precise error.  O(size of the file).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/sentencepiece/spm_vocab.h"

namespace tf::spm {

bool read_model_pieces(std::string_view data, std::vector<SpmPieceSpec>* pieces, std::string* rest);

}  // namespace tf::spm
