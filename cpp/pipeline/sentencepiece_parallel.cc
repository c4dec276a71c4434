// SentencePieceProcessor on one long text with several threads: normalize the text in
// parts cut where no normalizer match crosses and the state between matches is known
// (SpmNormalizer::input_cut_points; only the first part gets the leading-space handling
// and the dummy prefix, only the last the trailing ones), cut the normalized text again
// where no piece crosses (SpmCutRule), segment those parts on the pool, and join them.  BPE parts join as they are
// (the model itself cuts its text into words at those points); Unigram parts are settled in
// order (Unigram::settle_part) so the float total sentencepiece carries along the text is
// the whole text's.  Output ids and pieces then come from the joined tokens exactly as for
// one thread.  Sampling keeps one thread: its random draws follow the text from its start.
#include <algorithm>

#include "common/parallel.h"
#include "pipeline/sentencepiece_processor.h"

namespace tf::spm {

bool SentencePieceProcessor::encodes_in_parts() const {
  if (!cut_rule_.usable()) return false;
  if (model_type_ == kBpe) return bpe_.splits_words();
  return model_type_ == kUnigram && unigram_.encodes_parts();
}

void SentencePieceProcessor::segment_in_parts(std::string_view normalized, size_t parts, int threads,
                                              bool merge_unknown, std::vector<SpmToken>* tokens) const {
  const std::vector<size_t> cuts = cut_points(normalized, parts);
  std::vector<size_t> bounds{0};
  bounds.insert(bounds.end(), cuts.begin(), cuts.end());
  bounds.push_back(normalized.size());
  const size_t count = bounds.size() - 1;
  auto part = [&](size_t k) { return normalized.substr(bounds[k], bounds[k + 1] - bounds[k]); };
  if (model_type_ == kBpe) {
    std::vector<std::vector<SpmToken>> done(count);
    parallel_for(count, threads, [&](size_t k) {
      bpe_.encode(part(k), static_cast<uint32_t>(bounds[k]), &done[k], 0.0, nullptr, merge_unknown);
    });
    size_t total = tokens->size();
    for (const auto& d : done) total += d.size();
    tokens->reserve(total);
    for (const auto& d : done) tokens->insert(tokens->end(), d.begin(), d.end());
    return;
  }
  std::vector<UnigramPart> done(count);
  parallel_for(count, threads, [&](size_t k) {
    unigram_.encode_part(part(k), static_cast<uint32_t>(bounds[k]), merge_unknown, &done[k]);
  });
  size_t total_tokens = tokens->size();
  for (const auto& d : done) total_tokens += d.tokens.size();
  tokens->reserve(total_tokens + total_tokens / 64);
  float total = 0.0f;
  for (size_t k = 0; k < count; ++k) {
    total = unigram_.settle_part(part(k), static_cast<uint32_t>(bounds[k]), done[k], total, tokens);
    std::vector<SpmToken>().swap(done[k].tokens);  // settled: free it now
  }
}

void SentencePieceProcessor::normalize_in_parts(std::string_view text, size_t parts, int threads,
                                                std::string* normalized) const {
  const std::vector<size_t> cuts = normalizer_.input_cut_points(text, parts);
  if (cuts.empty()) {
    normalizer_.normalize(text, normalized, nullptr);
    return;
  }
  std::vector<size_t> bounds{0};
  bounds.insert(bounds.end(), cuts.begin(), cuts.end());
  bounds.push_back(text.size());
  const size_t count = bounds.size() - 1;
  std::vector<std::string> done(count);
  parallel_for(count, threads, [&](size_t k) {
    normalizer_.normalize_part(text.substr(bounds[k], bounds[k + 1] - bounds[k]), k == 0, k + 1 == count, &done[k]);
  });
  size_t size = 0;
  for (const auto& d : done) size += d.size();
  normalized->clear();
  normalized->reserve(size);
  for (const auto& d : done) normalized->append(d);
}

void SentencePieceProcessor::encode_ids(std::string_view text, std::vector<int32_t>* ids, size_t parts,
                                        int threads) const {
  if (parts < 2 || threads < 2 || !encodes_in_parts()) {
    encode_ids(text, ids);
    return;
  }
  std::string normalized;
  normalize_in_parts(text, parts, threads, &normalized);
  std::vector<SpmToken> tokens;
  segment_in_parts(normalized, parts, threads, /*merge_unknown=*/true, &tokens);
  append_ids(tokens, normalized, ids);
}

void SentencePieceProcessor::encode(std::string_view text, const SpmSampling& sampling, std::vector<SpmPiece>* out,
                                    std::string* normalized, std::vector<uint32_t>* norm_to_orig, size_t parts,
                                    int threads) const {
  if (sampling.enabled || parts < 2 || threads < 2 || !encodes_in_parts()) {
    encode(text, sampling, out, normalized, norm_to_orig);
    return;
  }
  if (norm_to_orig != nullptr) {
    normalizer_.normalize(text, normalized, norm_to_orig);  // (offsets: one thread)
  } else {
    normalize_in_parts(text, parts, threads, normalized);
  }
  std::vector<SpmToken> tokens;
  segment_in_parts(*normalized, parts, threads, /*merge_unknown=*/false, &tokens);
  populate(tokens, *normalized, out);
}

}  // namespace tf::spm
