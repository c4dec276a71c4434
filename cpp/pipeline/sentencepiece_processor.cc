#include "pipeline/sentencepiece_processor.h"

#include <algorithm>
#include <cmath>

#include "models/sentencepiece/unigram_lattice.h"

namespace tf::spm {

namespace {

constexpr std::string_view kSpace = "\xE2\x96\x81";
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

void append_unescaped(std::string_view piece, std::string* out) {
  for (size_t i = 0; i < piece.size();) {
    if (piece.compare(i, 3, kSpace) == 0) {
      out->push_back(' ');
      i += 3;
    } else {
      out->push_back(piece[i++]);
    }
  }
}

// Per-thread scratch is kept between calls; one that grew past this for a large text is
// freed when the call ends, so that one huge text does not pin its size in every thread.
constexpr size_t kKeepScratchBytes = size_t{16} << 20;

template <typename T>
struct TrimOnExit {
  T& scratch;
  ~TrimOnExit() {
    if (scratch.capacity() * sizeof(typename T::value_type) > kKeepScratchBytes) T().swap(scratch);
  }
};

}  // namespace

bool SentencePieceProcessor::load(SpmModelSpec spec, std::string* error) {
  if (spec.model_type < 1 || spec.model_type > 4) {
    *error = "unsupported model type " + std::to_string(spec.model_type);
    return false;
  }
  model_type_ = spec.model_type;
  SpmVocabOptions vocab_options;
  vocab_options.bpe = spec.model_type == 2;
  vocab_options.byte_fallback = spec.byte_fallback;
  if (!vocab_.build(std::move(spec.pieces), vocab_options, error)) return false;
  is_bpe_ = spec.model_type == 2;
  byte_fallback_ = spec.byte_fallback;
  unk_surface_ = std::move(spec.unk_surface);
  options_ = spec.normalizer;
  if (!normalizer_.init(spec.precompiled_charsmap, spec.normalizer, error)) return false;
  normalizer_.set_user_defined(&vocab_.user_defined());
  std::vector<std::string_view> user_pieces;
  for (int32_t id = 0; id < vocab_.size(); ++id) {
    if (vocab_.type(id) == SpmType::kUserDefined) user_pieces.emplace_back(vocab_.piece(id));
  }
  normalizer_.prepare_cuts(user_pieces);
  denormalizer_.reset();
  if (spec.has_denormalizer && !spec.denormalizer_charsmap.empty()) {
    denormalizer_ = std::make_unique<SpmNormalizer>();
    if (!denormalizer_->init(spec.denormalizer_charsmap, spec.denormalizer, error)) return false;
  }
  cut_rule_.build(vocab_);
  if (model_type_ == kWord || model_type_ == kChar) return true;  // segmented by the vocabulary alone
  return is_bpe_ ? bpe_.build(&vocab_, error) : unigram_.build(&vocab_, error);
}

void SentencePieceProcessor::segment(std::string_view normalized, std::vector<SpmToken>* tokens) const {
  const uint8_t* s = reinterpret_cast<const uint8_t*>(normalized.data());
  const size_t n = normalized.size();
  switch (model_type_) {
    case kBpe:
      bpe_.encode(normalized, 0, tokens, 0.0, nullptr);
      return;
    case kUnigram:
      unigram_.encode(normalized, 0, tokens);
      return;
    case kChar:
      // One character per piece, or the longest USER_DEFINED piece (sentencepiece's CHAR model).
      for (size_t i = 0; i < n;) {
        int32_t id = -1;
        size_t len = vocab_.user_defined().empty() ? 0 : vocab_.user_defined().longest_prefix(s + i, n - i, &id);
        if (len == 0) len = std::min(spm_char_len(s[i]), n - i);
        push_token(tokens, vocab_.piece_to_id(normalized.substr(i, len)), static_cast<uint32_t>(i),
                   static_cast<uint32_t>(i + len));
        i += len;
      }
      return;
    default:
      // WORD: one piece per word, a word starting at the text's start and at each ▁
      // (sentencepiece's SplitIntoWords), or <unk>.
      for (size_t i = 0, start = 0; i <= n;) {
        const size_t len = i < n ? std::min(spm_char_len(s[i]), n - i) : 0;
        const bool cut = i == n || (i > start && normalized.compare(i, 3, "\xE2\x96\x81") == 0);
        if (cut) {
          if (i > start) {
            push_token(tokens, vocab_.piece_to_id(normalized.substr(start, i - start)), static_cast<uint32_t>(start),
                       static_cast<uint32_t>(i));
          }
          start = i;
        }
        if (i == n) break;
        i += len;
      }
      return;
  }
}

void SentencePieceProcessor::populate(const std::vector<SpmToken>& tokens, std::string_view normalized,
                                      std::vector<SpmPiece>* out) const {
  const int32_t unk = vocab_.unk_id();
  bool prev_unk = false;
  for (const SpmToken& t : tokens) {
    const bool is_unk = vocab_.is_unknown(t.id);
    if (is_unk && byte_fallback_) {
      for (uint32_t b = t.begin; b < t.end; ++b) {
        out->push_back({vocab_.byte_id(static_cast<uint8_t>(normalized[b])), t.begin, t.end, b + 1 < t.end});
      }
    } else if (is_unk && prev_unk) {
      out->back().end = t.end;  // a run of unknown characters is one <unk>
    } else {
      out->push_back({is_unk ? unk : t.id, t.begin, t.end, false});
    }
    prev_unk = is_unk;
  }
}

bool SentencePieceProcessor::encode_normalized(std::string_view normalized, const SpmSampling& sampling,
                                               std::vector<SpmPiece>* out, std::string* error) const {
  thread_local std::vector<SpmToken> tls_tokens;
  std::vector<SpmToken>& tokens = pinned(tls_tokens);
  TrimOnExit<std::vector<SpmToken>> trim_tokens{tokens};
  tokens.clear();
  if (normalized.empty()) return true;
  if (!sampling.enabled || model_type_ == kWord || model_type_ == kChar) {
    segment(normalized, &tokens);
  } else {
    std::mt19937_64 rng(sampling.seed);
    if (is_bpe_) {
      bpe_.encode(normalized, 0, &tokens, sampling.alpha, &rng);
    } else if (sampling.nbest_size == 0 || sampling.nbest_size == 1) {
      unigram_.encode(normalized, 0, &tokens);
    } else {
      UnigramLattice lattice;
      if (!lattice.build(unigram_, normalized, error)) return false;
      UnigramLattice::Path path;
      if (sampling.nbest_size < 0) {
        path = lattice.sample(sampling.alpha, rng);
      } else {
        auto nbests = lattice.nbest(static_cast<size_t>(std::min(sampling.nbest_size, 1024)));
        // Draw one of the n best with probability softmax(alpha * score).
        double top = -INFINITY;
        for (auto& nb : nbests) top = std::max(top, static_cast<double>(sampling.alpha) * nb.second);
        std::vector<double> probs;
        for (auto& nb : nbests) probs.push_back(std::exp(static_cast<double>(sampling.alpha) * nb.second - top));
        std::discrete_distribution<size_t> pick(probs.begin(), probs.end());
        if (!nbests.empty()) path = std::move(nbests[pick(rng)].first);
      }
      for (int32_t i : path) {
        const auto& nd = lattice.node(i);
        tokens.push_back({nd.id, nd.begin, nd.end});
      }
    }
  }
  populate(tokens, normalized, out);
  return true;
}

bool SentencePieceProcessor::too_long(size_t bytes, const char* what, std::string* error) {
  if (bytes <= kMaxTextBytes) return false;
  *error = std::string(what) + " of " + std::to_string(bytes) + " bytes is longer than the " +
           std::to_string(kMaxTextBytes) + " bytes a SentencePiece text may have (offsets are 32-bit)";
  return true;
}

bool SentencePieceProcessor::normalize(std::string_view text, std::string* out, std::vector<uint32_t>* norm_to_orig,
                                       std::string* error) const {
  if (too_long(text.size(), "a text", error)) return false;
  normalizer_.normalize(text, out, norm_to_orig);
  return !too_long(out->size(), "a normalized text", error);
}

bool SentencePieceProcessor::encode(std::string_view text, const SpmSampling& sampling, std::vector<SpmPiece>* out,
                                    std::string* normalized, std::vector<uint32_t>* norm_to_orig,
                                    std::string* error) const {
  if (!normalize(text, normalized, norm_to_orig, error)) return false;
  return encode_normalized(*normalized, sampling, out, error);
}

bool SentencePieceProcessor::encode_ids(std::string_view text, std::vector<int32_t>* ids, std::string* error) const {
  if (too_long(text.size(), "a text", error)) return false;
  thread_local std::string tls_normalized;
  TrimOnExit<std::string> trim_normalized{pinned(tls_normalized)};
  const std::string_view normalized = normalizer_.normalize_view(text, &pinned(tls_normalized));
  if (too_long(normalized.size(), "a normalized text", error)) return false;
  if (normalized.empty()) return true;
  if (model_type_ == kUnigram) {
    unigram_.encode_ids(normalized, byte_fallback_, ids);  // straight to ids (as populate() below)
    return true;
  }
  thread_local std::vector<SpmToken> tls_tokens;
  std::vector<SpmToken>& tokens = pinned(tls_tokens);
  TrimOnExit<std::vector<SpmToken>> trim_tokens{tokens};
  tokens.clear();
  // Ids need no per-character <unk> tokens.
  if (model_type_ == kBpe) {
    bpe_.encode(normalized, 0, &tokens, 0.0, nullptr, /*merge_unknown=*/true);
  } else {
    segment(normalized, &tokens);
  }
  append_ids(tokens, normalized, ids);
  return true;
}

void SentencePieceProcessor::append_ids(const std::vector<SpmToken>& tokens, std::string_view normalized,
                                        std::vector<int32_t>* ids) const {
  // Geometric growth: callers append many texts to one vector (an exact reserve per text
  // would copy it every time).
  if (ids->capacity() < ids->size() + tokens.size()) ids->reserve(std::max(2 * ids->capacity(), ids->size() + tokens.size()));
  const int32_t unk = vocab_.unk_id();
  bool prev_unk = false;
  for (const SpmToken& t : tokens) {
    const bool is_unk = vocab_.is_unknown(t.id);
    if (is_unk && byte_fallback_) {
      for (uint32_t b = t.begin; b < t.end; ++b) ids->push_back(vocab_.byte_id(static_cast<uint8_t>(normalized[b])));
    } else if (!(is_unk && prev_unk)) {
      ids->push_back(is_unk ? unk : t.id);
    }
    prev_unk = is_unk;
  }
}

bool SentencePieceProcessor::nbest(std::string_view text, int nbest_size, std::vector<std::vector<SpmPiece>>* out,
                                   std::vector<float>* scores, std::string* normalized, std::string* error) const {
  if (model_type_ != kUnigram) {
    *error = "NBestEncode is not available for the current model (" + model_name() + ")";
    return false;
  }
  out->clear();
  scores->clear();
  if (!normalize(text, normalized, nullptr, error)) return false;
  if (normalized->empty()) {
    out->emplace_back();
    scores->push_back(0.0f);
    return true;
  }
  UnigramLattice lattice;
  if (!lattice.build(unigram_, *normalized, error)) return false;
  std::vector<SpmToken> tokens;
  for (auto& nb : lattice.nbest(static_cast<size_t>(std::max(1, std::min(nbest_size, 1024))))) {
    tokens.clear();
    for (int32_t i : nb.first) {
      const auto& nd = lattice.node(i);
      tokens.push_back({nd.id, nd.begin, nd.end});
    }
    out->emplace_back();
    populate(tokens, *normalized, &out->back());
    scores->push_back(nb.second);
  }
  return true;
}

bool SentencePieceProcessor::sample_encode_and_score(std::string_view text, int num_samples, float alpha, bool wor,
                                                     bool include_best, uint64_t seed,
                                                     std::vector<std::vector<SpmPiece>>* out, std::vector<float>* scores,
                                                     std::string* normalized, std::string* error) const {
  out->clear();
  scores->clear();
  if (model_type_ != kUnigram) {
    *error = "SampleEncodeAndScore is not available for the current model (" + model_name() + ")";
    return false;
  }
  if (num_samples < 1) {
    *error = "num_samples must be positive";
    return false;
  }
  if (include_best && !wor) {
    *error = "include_best is only supported with wor (sampling without replacement)";
    return false;
  }
  if (!normalize(text, normalized, nullptr, error)) return false;
  std::vector<std::pair<UnigramLattice::Path, float>> results;  // path, score
  UnigramLattice lattice;
  if (!normalized->empty()) {
    if (!lattice.build(unigram_, *normalized, error)) return false;
    std::mt19937_64 rng(seed);
    const float marginal = lattice.log_partition(alpha);
    UnigramLattice::Path best;
    if (include_best) {
      best = lattice.viterbi();
      results.emplace_back(best, 0.0f);  // always included: probability 1
    }
    auto score_of = [&](const UnigramLattice::Path& path) {
      float score = 0.0f;  // summed in float, as sentencepiece
      for (int32_t i : path) score += alpha * lattice.node(i).score;
      return score - marginal;
    };
    if (wor) {
      // One draw more than asked: its perturbed score is the threshold kappa.
      auto drawn = lattice.sample_nbest(static_cast<size_t>(num_samples) + 1, alpha, rng);
      if (include_best) {
        auto it = std::find_if(drawn.begin(), drawn.end(), [&](const auto& d) { return d.first == best; });
        if (it != drawn.end()) {
          drawn.erase(it);
        } else if (!drawn.empty()) {
          drawn.pop_back();
        }
      }
      if (!drawn.empty()) {
        const double kappa = drawn.back().second;
        drawn.pop_back();
        for (auto& d : drawn) {
          const float score = score_of(d.first);
          results.emplace_back(std::move(d.first), score);
        }
        // log P(included) = log(1 - exp(-exp(score - kappa))), with a series where it underflows.
        for (auto& r : results) {
          if (r.second == 0.0f) continue;  // the best path (as sentencepiece, by its score)
          const double x = r.second - kappa;
          const double y = std::exp(x);
          const double log_inclusion = x <= -10 ? x - y / 2 + y * y / 24 - y * y * y * y / 2880
                                                : std::log(-std::expm1(-y));
          r.second = static_cast<float>(log_inclusion);
        }
      }
    } else {
      for (int i = 0; i < num_samples; ++i) {
        UnigramLattice::Path path = lattice.sample(alpha, rng);
        const float score = score_of(path);
        results.emplace_back(std::move(path), score);
      }
    }
  }
  if (results.empty()) {
    *error = "SampleEncodeAndScore returns empty result.";
    return false;
  }
  std::vector<SpmToken> tokens;
  for (auto& r : results) {
    tokens.clear();
    for (int32_t i : r.first) {
      const auto& nd = lattice.node(i);
      tokens.push_back({nd.id, nd.begin, nd.end});
    }
    out->emplace_back();
    populate(tokens, *normalized, &out->back());
    scores->push_back(r.second);
  }
  return true;
}

bool SentencePieceProcessor::entropy(std::string_view text, float alpha, float* out, std::string* error) const {
  if (model_type_ != kUnigram) {
    *error = "CalculateEntropy is not available for the current model (" + model_name() + ")";
    return false;
  }
  std::string normalized;
  if (!normalize(text, &normalized, nullptr, error)) return false;
  UnigramLattice lattice;
  if (!lattice.build(unigram_, normalized, error)) return false;
  *out = normalized.empty() ? 0.0f : lattice.entropy(alpha);
  return true;
}

bool SentencePieceProcessor::decode_ids(const int32_t* ids, size_t n, std::string* out, std::string* error,
                                        SpmDecodeSpans* spans) const {
  std::vector<std::pair<std::string_view, int32_t>> pieces;
  pieces.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] < 0 || ids[i] >= vocab_.size()) {
      *error = "piece id is out of range.";
      return false;
    }
    pieces.emplace_back(vocab_.piece(ids[i]), ids[i]);
  }
  return decode_impl(pieces, out, error, spans);
}

bool SentencePieceProcessor::decode_pieces(const std::vector<std::string_view>& pieces, std::string* out,
                                           std::string* error, SpmDecodeSpans* spans) const {
  std::vector<std::pair<std::string_view, int32_t>> pairs;
  pairs.reserve(pieces.size());
  for (std::string_view p : pieces) pairs.emplace_back(p, vocab_.piece_to_id(p));
  return decode_impl(pairs, out, error, spans);
}

bool SentencePieceProcessor::decode_impl(const std::vector<std::pair<std::string_view, int32_t>>& pieces,
                                         std::string* out, std::string* error, SpmDecodeSpans* spans) const {
  out->clear();
  std::vector<uint32_t>* bounds = spans ? &spans->bounds : nullptr;
  if (bounds) bounds->assign(2 * pieces.size(), 0);
  // Piece i covers out[from, out->size()) once its text is appended.
  auto cover = [&](size_t i, size_t from) {
    if (!bounds) return;
    (*bounds)[2 * i] = static_cast<uint32_t>(from);
    (*bounds)[2 * i + 1] = static_cast<uint32_t>(out->size());
  };
  std::string bytes;            // a run of BYTE pieces, decoded together
  size_t bytes_first = 0;       // the index of the run's first piece
  auto flush_bytes = [&]() {
    const uint8_t* s = reinterpret_cast<const uint8_t*>(bytes.data());
    for (size_t i = 0; i < bytes.size();) {
      size_t len = utf8_char_len(s + i, bytes.size() - i);
      const size_t from = out->size();
      if (len == 0) {
        out->append(kReplacement);
        cover(bytes_first + i, from);
        i += 1;
      } else {
        // The last byte piece of a character holds it; the others cover nothing.
        for (size_t j = 0; j + 1 < len; ++j) cover(bytes_first + i + j, from);
        out->append(bytes, i, len);
        cover(bytes_first + i + len - 1, from);
        i += len;
      }
    }
    bytes.clear();
  };
  const bool strip_first = options_.add_dummy_prefix || options_.remove_extra_whitespaces;
  bool is_bos_ws = true;
  bool bos_ws_seen = false;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const auto& [piece, id] = pieces[i];
    if (id >= 0 && vocab_.type(id) == SpmType::kByte) {
      int b = vocab_.byte_value(id);
      if (b < 0) {
        *error = "byte piece \"" + std::string(piece) + "\" is not of the form <0xXX>";
        return false;
      }
      if (bytes.empty()) bytes_first = i;
      bytes.push_back(static_cast<char>(b));
      continue;
    }
    flush_bytes();
    if (bos_ws_seen || !out->empty()) is_bos_ws = false;
    bos_ws_seen = false;
    const size_t from = out->size();
    if (id < 0) {  // a piece that is no piece, in a model without <unk>: kept as written
      out->append(piece);
    } else if (vocab_.type(id) == SpmType::kControl) {
      // no text
    } else if (vocab_.type(id) == SpmType::kUnknown) {
      out->append(piece == vocab_.piece(id) ? std::string_view(unk_surface_) : piece);
    } else {
      std::string_view p = piece;
      if (is_bos_ws && strip_first && p.compare(0, 3, kSpace) == 0) {
        p.remove_prefix(3);
        bos_ws_seen = !options_.remove_extra_whitespaces;
      }
      append_unescaped(p, out);
    }
    cover(i, from);
  }
  flush_bytes();
  if (spans) spans->raw = *out;
  if (denormalizer_) {
    std::string text = std::move(*out);
    denormalizer_->normalize(text, out, nullptr);
  }
  return true;
}

}  // namespace tf::spm
