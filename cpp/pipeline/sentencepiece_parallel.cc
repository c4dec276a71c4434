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

std::vector<std::vector<SpmToken>> SentencePieceProcessor::segment_in_parts(std::string_view normalized, size_t parts,
                                                                           int threads, bool merge_unknown,
                                                                           const PartDone& done) const {
  const std::vector<size_t> cuts = cut_points(normalized, parts);
  std::vector<size_t> bounds{0};
  bounds.insert(bounds.end(), cuts.begin(), cuts.end());
  bounds.push_back(normalized.size());
  const size_t count = bounds.size() - 1;
  auto part = [&](size_t k) { return normalized.substr(bounds[k], bounds[k + 1] - bounds[k]); };
  std::vector<std::vector<SpmToken>> tokens(count);
  if (model_type_ == kBpe) {
    parallel_for(count, threads, [&](size_t k) {
      bpe_.encode(part(k), static_cast<uint32_t>(bounds[k]), &tokens[k], 0.0, nullptr, merge_unknown);
      if (done) done(k, &tokens[k]);
    });
    return tokens;
  }
  std::vector<UnigramPart> ahead(count);
  parallel_for(count, threads, [&](size_t k) {
    unigram_.encode_part(part(k), static_cast<uint32_t>(bounds[k]), merge_unknown, &ahead[k]);
  });
  float total = 0.0f;
  for (size_t k = 0; k < count; ++k) {
    tokens[k].reserve(ahead[k].tokens.size() + ahead[k].tokens.size() / 32);
    total = unigram_.settle_part(part(k), static_cast<uint32_t>(bounds[k]), ahead[k], total, &tokens[k]);
    std::vector<SpmToken>().swap(ahead[k].tokens);  // settled: free it now
  }
  if (done) parallel_for(count, threads, [&](size_t k) { done(k, &tokens[k]); });
  return tokens;
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
  // Each part's ids are made on the pool as soon as its tokens are final.
  std::vector<std::vector<int32_t>> part_ids(parts);  // there are at most `parts` parts
  segment_in_parts(normalized, parts, threads, /*merge_unknown=*/true, [&](size_t k, std::vector<SpmToken>* t) {
    append_ids(*t, normalized, &part_ids[k]);
    std::vector<SpmToken>().swap(*t);
  });
  size_t size = ids->size();
  for (const auto& p : part_ids) size += p.size();
  ids->reserve(size);
  const int32_t unk = vocab_.unk_id();
  for (const auto& p : part_ids) {
    // A run of unknown text across a cut is one <unk> (without byte fallback, <unk> ids come
    // only from unknown text).
    const bool joined = !byte_fallback_ && !ids->empty() && !p.empty() && ids->back() == unk && p.front() == unk;
    ids->insert(ids->end(), p.begin() + (joined ? 1 : 0), p.end());
  }
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
  for (auto& part : segment_in_parts(*normalized, parts, threads, /*merge_unknown=*/false, nullptr)) {
    tokens.insert(tokens.end(), part.begin(), part.end());
  }
  populate(tokens, *normalized, out);
}

}  // namespace tf::spm
