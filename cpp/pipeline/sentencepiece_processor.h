// SentencePieceProcessor: a SentencePiece model end to end — normalize, segment with the
// BPE or Unigram model (CHAR and WORD models: look up each character or word), then turn
// the model's tokens into output pieces the way
// sentencepiece's PopulateSentencePieceText does (a run of unknown characters becomes
// one <unk>, or with byte_fallback one <0xXX> piece per UTF-8 byte) — and back: decode
// ids or pieces to text.
//
// Thread-safe after load(): every method is const and keeps its scratch space local.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "models/sentencepiece/sentencepiece_bpe.h"
#include "models/sentencepiece/spm_cuts.h"
#include "models/sentencepiece/spm_vocab.h"
#include "models/sentencepiece/unigram.h"
#include "normalize/spm_normalizer.h"

namespace tf::spm {

struct SpmModelSpec {
  std::vector<SpmPieceSpec> pieces;
  int model_type = 1;  // TrainerSpec.ModelType: 1 UNIGRAM, 2 BPE, 3 WORD, 4 CHAR
  bool byte_fallback = false;
  std::string unk_surface = " \xE2\x81\x87 ";
  std::string precompiled_charsmap;
  SpmNormalizerOptions normalizer;
  bool has_denormalizer = false;
  std::string denormalizer_charsmap;
  SpmNormalizerOptions denormalizer;
};

// One output piece: its id and the bytes [begin, end) of the normalized text it stands
// for.  Byte-fallback pieces of one character share that character's span; all but the
// last have `partial` set (sentencepiece gives them an empty surface).
struct SpmPiece {
  int32_t id;
  uint32_t begin;
  uint32_t end;
  bool partial;
};

// Where each piece of a decode went, as sentencepiece's decoded SentencePieceText shows it:
// piece i covers raw[bounds[2i], bounds[2i + 1]).  `raw` is the text before the
// denormalizer (the decoded text itself when the model has none); a control piece and
// all but the last byte piece of a character cover nothing.
struct SpmDecodeSpans {
  std::string raw;
  std::vector<uint32_t> bounds;
};

// How to segment: the best segmentation, or a sample.
struct SpmSampling {
  bool enabled = false;
  int nbest_size = -1;  // Unigram: < 0 samples the whole lattice, > 1 samples the n best
  float alpha = 0.1f;   // Unigram: smoothing theta; BPE: dropout probability
  uint64_t seed = 0;
};

class SentencePieceProcessor {
 public:
  bool load(SpmModelSpec spec, std::string* error);

  const SpmVocab& vocab() const { return vocab_; }
  bool is_bpe() const { return is_bpe_; }
  int model_type() const { return model_type_; }

  // Offsets into a text and into its normalized form are 32-bit (SpmPiece, the lattice,
  // norm_to_orig): a text, or a normalized text, longer than this is refused.
  static constexpr size_t kMaxTextBytes = 0xFFFFFFFFu;

  // Each of these returns false and sets *error on a text over kMaxTextBytes.
  bool normalize(std::string_view text, std::string* out, std::vector<uint32_t>* norm_to_orig,
                 std::string* error) const;
  // Segments already-normalized text into output pieces (appended to *out); false (and
  // *error set) on a text too long to sample (UnigramLattice::kMaxBytes).
  bool encode_normalized(std::string_view normalized, const SpmSampling& sampling, std::vector<SpmPiece>* out,
                         std::string* error) const;
  // Normalizes and segments; fills *normalized (and *norm_to_orig if not null).
  bool encode(std::string_view text, const SpmSampling& sampling, std::vector<SpmPiece>* out,
              std::string* normalized, std::vector<uint32_t>* norm_to_orig, std::string* error) const;
  // Ids only, the fast path.
  bool encode_ids(std::string_view text, std::vector<int32_t>* ids, std::string* error) const;

  // One long text on up to `threads` threads (sentencepiece_parallel.cc): the whole text is
  // normalized, cut into up to `parts` parts where no piece crosses (SpmCutRule), and the
  // parts are segmented on the pool; the result is the one-thread encode's.  Sampling,
  // WORD/CHAR models and models that cannot be cut take the one-thread path.  The same
  // limits as the one-thread calls (false and *error on a text over kMaxTextBytes).
  bool encodes_in_parts() const;
  bool encode_ids(std::string_view text, std::vector<int32_t>* ids, size_t parts, int threads,
                  std::string* error) const;
  bool encode(std::string_view text, const SpmSampling& sampling, std::vector<SpmPiece>* out,
              std::string* normalized, std::vector<uint32_t>* norm_to_orig, size_t parts, int threads,
              std::string* error) const;
  // normalize(text) with the input cut (SpmNormalizer::input_cut_points) into up to
  // `parts` parts normalized on the pool.
  bool normalize_in_parts(std::string_view text, size_t parts, int threads, std::string* normalized,
                          std::string* error) const;
  std::vector<size_t> input_cut_points(std::string_view text, size_t parts) const {
    return normalizer_.input_cut_points(text, parts);
  }
  // Where encode_ids(text, ids, parts, threads) cuts the normalized text (byte offsets).
  std::vector<size_t> cut_points(std::string_view normalized, size_t parts) const {
    return encodes_in_parts() ? cut_rule_.cut_points(normalized, parts, normalizer_.output_is_utf8())
                              : std::vector<size_t>();
  }

  // The n best segmentations with their scores (Unigram only; fails for BPE).
  bool nbest(std::string_view text, int nbest_size, std::vector<std::vector<SpmPiece>>* out,
             std::vector<float>* scores, std::string* normalized, std::string* error) const;
  // sentencepiece's SampleEncodeAndScore (Unigram only): with `wor`, up to num_samples
  // distinct segmentations drawn without replacement, each scored with the log of its
  // inclusion probability (0 for the best path when include_best); without, num_samples
  // independent draws scored with their log probability.  Fails where sentencepiece does
  // (BPE, include_best without wor, num_samples < 1, nothing to return).
  bool sample_encode_and_score(std::string_view text, int num_samples, float alpha, bool wor, bool include_best,
                               uint64_t seed, std::vector<std::vector<SpmPiece>>* out, std::vector<float>* scores,
                               std::string* normalized, std::string* error) const;
  // Entropy of the segmentation distribution at `alpha` (Unigram only).
  bool entropy(std::string_view text, float alpha, float* out, std::string* error) const;

  // Decodes ids (all must be < vocab size) or pieces; text for an id / a piece follows
  // sentencepiece's Decode.  With `spans`, also where each piece went.
  bool decode_ids(const int32_t* ids, size_t n, std::string* out, std::string* error,
                  SpmDecodeSpans* spans = nullptr) const;
  bool decode_pieces(const std::vector<std::string_view>& pieces, std::string* out, std::string* error,
                     SpmDecodeSpans* spans = nullptr) const;

 private:
  void populate(const std::vector<SpmToken>& tokens, std::string_view normalized, std::vector<SpmPiece>* out) const;
  // populate() for ids only, appended to *ids.
  void append_ids(const std::vector<SpmToken>& tokens, std::string_view normalized, std::vector<int32_t>* ids) const;
  // The tokens of segment(normalized) (with merge_unknown as SentencePieceBpe/Unigram take
  // it), made part by part on the pool; returns the number of parts.  With `done`, it is
  // called on the pool with k and part k's tokens once they are final (BPE then leaves
  // (*tokens)[k] empty); without, part k's tokens are (*tokens)[k] (resized as needed).
  using PartDone = std::function<void(size_t, std::vector<SpmToken>*)>;
  size_t segment_in_parts(std::string_view normalized, size_t parts, int threads, bool merge_unknown,
                          const PartDone& done, std::vector<std::vector<SpmToken>>* tokens) const;
  // The best (only, for WORD and CHAR) segmentation into the model's tokens.
  void segment(std::string_view normalized, std::vector<SpmToken>* tokens) const;
  std::string model_name() const {
    static const char* const kNames[] = {"?", "UNIGRAM", "BPE", "WORD", "CHAR"};
    return kNames[model_type_ >= 1 && model_type_ <= 4 ? model_type_ : 0];
  }
  static constexpr int kUnigram = 1, kBpe = 2, kWord = 3, kChar = 4;
  // False (and *error set) if `text` or its normalized form is longer than kMaxTextBytes.
  static bool too_long(size_t bytes, const char* what, std::string* error);
  bool decode_impl(const std::vector<std::pair<std::string_view, int32_t>>& pieces, std::string* out,
                   std::string* error, SpmDecodeSpans* spans) const;

  SpmVocab vocab_;
  SpmNormalizer normalizer_;
  std::unique_ptr<SpmNormalizer> denormalizer_;
  SpmCutRule cut_rule_;
  SentencePieceBpe bpe_;
  Unigram unigram_;
  bool is_bpe_ = false;
  int model_type_ = kUnigram;
  bool byte_fallback_ = false;
  std::string unk_surface_;
  SpmNormalizerOptions options_;
};

}  // namespace tf::spm
