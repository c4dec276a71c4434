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
#include <atomic>
#include <memory>
#include <thread>

#include "common/parallel.h"
#include "pipeline/sentencepiece_processor.h"

namespace tf::spm {

bool SentencePieceProcessor::encodes_in_parts() const {
  if (!cut_rule_.usable()) return false;
  if (model_type_ == kBpe) return bpe_.splits_words();
  return model_type_ == kUnigram && unigram_.encodes_parts();
}

namespace {

// The calling thread's buffers for the parts of a long text, kept between calls (with
// their capacity) so a long encode does not touch megabytes of new memory each time.
struct PartsScratch {
  std::vector<std::vector<SpmToken>> tokens;  // final tokens per part
  std::vector<UnigramPart> ahead;              // Unigram parts before settling
  std::vector<std::string> normalized_parts;
  std::string normalized;
  std::vector<std::vector<int32_t>> ids;  // ids per part
};

PartsScratch& parts_scratch() {
  thread_local PartsScratch scratch;
  return pinned(scratch);
}

}  // namespace

size_t SentencePieceProcessor::segment_in_parts(std::string_view normalized, size_t parts, int threads,
                                                bool merge_unknown, const PartDone& done,
                                                std::vector<std::vector<SpmToken>>* tokens) const {
  const std::vector<size_t> cuts = cut_points(normalized, parts);
  std::vector<size_t> bounds{0};
  bounds.insert(bounds.end(), cuts.begin(), cuts.end());
  bounds.push_back(normalized.size());
  const size_t count = bounds.size() - 1;
  auto part = [&](size_t k) { return normalized.substr(bounds[k], bounds[k + 1] - bounds[k]); };
  if (tokens->size() < count) tokens->resize(count);
  for (size_t k = 0; k < count; ++k) (*tokens)[k].clear();
  if (model_type_ == kBpe) {
    parallel_for(count, threads, [&](size_t k) {
      // With `done` the tokens are consumed at once: a per-worker buffer holds them.
      thread_local std::vector<SpmToken> tls;
      std::vector<SpmToken>& out = done ? pinned(tls) : (*tokens)[k];
      out.clear();
      bpe_.encode(part(k), static_cast<uint32_t>(bounds[k]), &out, 0.0, nullptr, merge_unknown);
      if (done) done(k, &out);
    });
    return count;
  }
  // The calling thread settles each part, in order, as soon as it and those before it are
  // encoded, and encodes parts itself while none is ready: the serial settling (a Viterbi
  // for the few words whose cached segmentation may not hold) overlaps the other threads'
  // encoding instead of following it.
  std::vector<UnigramPart>& ahead = parts_scratch().ahead;
  if (ahead.size() < count) ahead.resize(count);
  std::unique_ptr<std::atomic<bool>[]> encoded(new std::atomic<bool>[count]);
  for (size_t k = 0; k < count; ++k) encoded[k].store(false, std::memory_order_relaxed);
  std::atomic<size_t> next{0};
  size_t settled = 0;
  float total = 0.0f;
  auto encode = [&](size_t k) {
    unigram_.encode_part(part(k), static_cast<uint32_t>(bounds[k]), merge_unknown, &ahead[k]);
    encoded[k].store(true, std::memory_order_release);
  };
  auto settle_ready = [&]() {
    for (; settled < count && encoded[settled].load(std::memory_order_acquire); ++settled) {
      total = unigram_.settle_part(part(settled), static_cast<uint32_t>(bounds[settled]), ahead[settled], total,
                                   &(*tokens)[settled]);
    }
  };
  const std::thread::id caller = std::this_thread::get_id();
  const size_t t = std::min<size_t>(static_cast<size_t>(std::max(1, threads)), count);
  parallel_for(t, static_cast<int>(t), [&](size_t) {
    size_t k;
    if (std::this_thread::get_id() != caller) {
      while ((k = next.fetch_add(1, std::memory_order_relaxed)) < count) encode(k);
      return;
    }
    while (settled < count) {
      if (encoded[settled].load(std::memory_order_acquire)) {
        settle_ready();
      } else if ((k = next.fetch_add(1, std::memory_order_relaxed)) < count) {
        encode(k);
      } else {
        std::this_thread::yield();  // the last parts, on other threads
      }
    }
  });
  settle_ready();  // every part is encoded by now (the caller may have run no worker)
  if (done) parallel_for(count, threads, [&](size_t k) { done(k, &(*tokens)[k]); });
  return count;
}

bool SentencePieceProcessor::normalize_in_parts(std::string_view text, size_t parts, int threads,
                                                std::string* normalized, std::string* error) const {
  if (too_long(text.size(), "a text", error)) return false;
  const std::vector<size_t> cuts = normalizer_.input_cut_points(text, parts);
  if (cuts.empty()) return normalize(text, normalized, nullptr, error);
  std::vector<size_t> bounds{0};
  bounds.insert(bounds.end(), cuts.begin(), cuts.end());
  bounds.push_back(text.size());
  const size_t count = bounds.size() - 1;
  std::vector<std::string>& done = parts_scratch().normalized_parts;
  if (done.size() < count) done.resize(count);
  parallel_for(count, threads, [&](size_t k) {
    normalizer_.normalize_part(text.substr(bounds[k], bounds[k + 1] - bounds[k]), k == 0, k + 1 == count, &done[k]);
  });
  size_t size = 0;
  for (size_t k = 0; k < count; ++k) size += done[k].size();
  normalized->clear();
  normalized->reserve(size);
  for (size_t k = 0; k < count; ++k) normalized->append(done[k]);
  return !too_long(normalized->size(), "a normalized text", error);
}

bool SentencePieceProcessor::encode_ids(std::string_view text, std::vector<int32_t>* ids, size_t parts,
                                        int threads, std::string* error) const {
  if (parts < 2 || threads < 2 || !encodes_in_parts()) return encode_ids(text, ids, error);
  PartsScratch& scratch = parts_scratch();
  std::string& normalized = scratch.normalized;
  if (!normalize_in_parts(text, parts, threads, &normalized, error)) return false;
  // Each part's ids are made on the pool as soon as its tokens are final.
  std::vector<std::vector<int32_t>>& part_ids = scratch.ids;
  if (part_ids.size() < parts) part_ids.resize(parts);  // there are at most `parts` parts
  const size_t count = segment_in_parts(normalized, parts, threads, /*merge_unknown=*/true,
                                        [&](size_t k, std::vector<SpmToken>* t) {
                                          part_ids[k].clear();
                                          append_ids(*t, normalized, &part_ids[k]);
                                        },
                                        &scratch.tokens);
  size_t size = ids->size();
  for (size_t k = 0; k < count; ++k) size += part_ids[k].size();
  ids->reserve(size);
  const int32_t unk = vocab_.unk_id();
  for (size_t k = 0; k < count; ++k) {
    const std::vector<int32_t>& p = part_ids[k];
    // A run of unknown text across a cut is one <unk> (without byte fallback, <unk> ids come
    // only from unknown text).
    const bool joined = !byte_fallback_ && !ids->empty() && !p.empty() && ids->back() == unk && p.front() == unk;
    ids->insert(ids->end(), p.begin() + (joined ? 1 : 0), p.end());
  }
  return true;
}

bool SentencePieceProcessor::encode(std::string_view text, const SpmSampling& sampling, std::vector<SpmPiece>* out,
                                    std::string* normalized, std::vector<uint32_t>* norm_to_orig, size_t parts,
                                    int threads, std::string* error) const {
  if (sampling.enabled || parts < 2 || threads < 2 || !encodes_in_parts()) {
    return encode(text, sampling, out, normalized, norm_to_orig, error);
  }
  const bool ok = norm_to_orig != nullptr ? normalize(text, normalized, norm_to_orig, error)  // (offsets: one thread)
                                          : normalize_in_parts(text, parts, threads, normalized, error);
  if (!ok) return false;
  std::vector<std::vector<SpmToken>>& parts_tokens = parts_scratch().tokens;
  const size_t count = segment_in_parts(*normalized, parts, threads, /*merge_unknown=*/false, nullptr, &parts_tokens);
  std::vector<SpmToken> tokens;
  for (size_t k = 0; k < count; ++k) tokens.insert(tokens.end(), parts_tokens[k].begin(), parts_tokens[k].end());
  populate(tokens, *normalized, out);
  return true;
}

}  // namespace tf::spm
