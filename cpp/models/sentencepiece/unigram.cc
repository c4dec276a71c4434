#include "models/sentencepiece/unigram.h"

#include <algorithm>

#include "common/thread_cache.h"
#include "normalize/spm_normalizer.h"

namespace tf::spm {

bool Unigram::build(const SpmVocab* vocab, std::string* error) {
  vocab_ = vocab;
  std::vector<std::pair<std::string, int32_t>> keys;
  scores_.assign(vocab->size(), Score{0.0f, false});
  for (int32_t id = 0; id < vocab->size(); ++id) {
    scores_[id] = Score{vocab->score(id), vocab->type(id) == SpmType::kUserDefined};
    // UNUSED pieces are never lattice nodes, so they stay out of the trie.
    if (vocab->find_matchable(vocab->piece(id)) == id && vocab->type(id) != SpmType::kUnused) {
      keys.emplace_back(vocab->piece(id), id);
    }
  }
  trie_.build(keys);
  max_edge_bytes_ = 4;
  for (const auto& key : keys) max_edge_bytes_ = std::max(max_edge_bytes_, key.first.size());
  std::vector<float> by_id(vocab->size());
  has_user_defined_ = false;
  for (int32_t id = 0; id < vocab->size(); ++id) {
    by_id[id] = vocab->score(id);
    has_user_defined_ |= scores_[id].user_defined;
  }
  trie_.set_payloads(by_id);
  // A ▁ after a piece's first byte would let an edge cross the point before a ▁.
  splits_words_ = true;
  for (const auto& key : keys) {
    if (key.first.find("\xE2\x96\x81", 1) != std::string::npos) splits_words_ = false;
  }
  // The BMP characters some piece contains.
  in_piece_.assign(0x110000 / 64, 0);
  cuts_at_unknown_ = true;
  for (const auto& key : keys) {
    const uint8_t* k = reinterpret_cast<const uint8_t*>(key.first.data());
    for (size_t i = 0; i < key.first.size();) {
      const size_t len = utf8_char_len(k + i, key.first.size() - i);
      if (len == 0) {
        cuts_at_unknown_ = false;
        break;
      }
      uint32_t cp = k[i];
      if (len == 2) cp = ((k[i] & 0x1Fu) << 6) | (k[i + 1] & 0x3Fu);
      if (len == 3) cp = ((k[i] & 0x0Fu) << 12) | ((k[i + 1] & 0x3Fu) << 6) | (k[i + 2] & 0x3Fu);
      if (len == 4) {
        cp = ((k[i] & 0x07u) << 18) | ((k[i + 1] & 0x3Fu) << 12) | ((k[i + 2] & 0x3Fu) << 6) | (k[i + 3] & 0x3Fu);
      }
      in_piece_[cp >> 6] |= uint64_t{1} << (cp & 63);
      i += len;
    }
  }
  unknown3_.assign(1024, 0);
  for (uint64_t& w : unknown2_) w = 0;
  unknown_ascii_[0] = unknown_ascii_[1] = 0;
  if (cuts_at_unknown_) {
    unknown_ascii_[0] = ~in_piece_[0];
    unknown_ascii_[1] = ~in_piece_[1];
    for (uint32_t w = 0x800 >> 6; w < 1024; ++w) {
      if (w < (0xD800 >> 6) || w >= (0xE000 >> 6)) unknown3_[w] = ~in_piece_[w];
    }
    for (uint32_t w = 0x80 >> 6; w < 32; ++w) unknown2_[w] = ~in_piece_[w];
  }
  ascii_stops_.assign(unknown_ascii_);
  cache_owner_ = new_cache_owner();
  // A cached piece is (id | length << 24): ids must fit 24 bits, and <unk> must have one
  // (a byte-fallback model may have no <unk> piece, unk_id() == -1).
  cache_words_ = vocab->size() < (1 << 24) && vocab->unk_id() >= 0;
  (void)error;
  return true;
}

float Unigram::encode_span(const uint8_t* s, size_t n, float initial, uint32_t base,
                          std::vector<SpmToken>* out) const {
  struct Best {
    int32_t id = -1;
    float score = 0.0f;
    int32_t start = -1;  // where the last piece of the best path ending here starts
  };
  if (n == 0) return initial;
  thread_local std::vector<Best> tls_best;
  std::vector<Best>& best = pinned(tls_best);
  best.assign(n + 1, Best());
  best[0].score = initial;
  const PieceTrie::View trie = trie_.view();
  for (size_t start = 0; start < n;) {
    float here = best[start].score;
    if (here < -kScoreReset || here > kScoreReset) {
      // As sentencepiece 0.2.3: rebase the scores reached so far so they stay small (no
      // edge from before start reaches past start + max_edge_bytes_).
      const float offset = here;
      const size_t frontier = std::min(n, start + max_edge_bytes_);
      for (size_t i = start; i <= frontier; ++i) {
        if (i == start || best[i].start >= 0) best[i].score -= offset;
      }
      here = 0.0f;
    }
    const size_t mblen = std::min(spm_char_len(s[start]), n - start);
    // Float arithmetic throughout, as sentencepiece: near-ties then resolve alike.
    for_each_edge(trie, s, n, start, mblen, [&](size_t end, int32_t id, float score) {
      const float candidate = score + here;
      Best& target = best[end];
      if (target.start < 0 || candidate > target.score) {
        target.score = candidate;
        target.start = static_cast<int32_t>(start);
        target.id = id;
      }
    });
    start += mblen;
  }
  size_t first = out->size();
  for (size_t end = n; end > 0;) {
    const Best& b = best[end];
    push_token(out, b.id, base + static_cast<uint32_t>(b.start), base + static_cast<uint32_t>(end));
    end = static_cast<size_t>(b.start);
  }
  std::reverse(out->begin() + first, out->end());
  return best[n].score;
}

}  // namespace tf::spm
