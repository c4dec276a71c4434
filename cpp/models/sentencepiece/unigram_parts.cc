// Unigram::encode_part and settle_part: a long text encoded on several threads, with
// exactly encode()'s result (see unigram.h).
//
// Why two steps: sentencepiece sums the scores in float from the start of the text (and
// rebases the sum to 0 past ±1e5), so a part's segmentation may depend on the total reached
// before it, which is known only once every earlier part is settled.  The expensive work,
// each word's Viterbi (or its cache lookup), does not depend on it within the bound the
// word cache already computes (unigram_words.cc): so encode_part does that work on any
// thread, and settle_part, in text order, only adds each word's scores to the true total,
// as emit() would, and segments in place (encode_span, from the true total) the rare word
// whose bound does not hold.  Cost: the settling is a few float additions per piece.
#include <cmath>

#include "models/sentencepiece/unigram.h"
#include "models/sentencepiece/unigram_word_cache.h"

namespace tf::spm {

namespace {

struct PartScratch {
  std::vector<Unigram::Segment> segments;
  std::vector<uint32_t> entry;
};

}  // namespace

void Unigram::encode_part(std::string_view text, uint32_t base, bool merge_unknown, UnigramPart* out) const {
  thread_local PartScratch tls;
  PartScratch& tmp = pinned(tls);
  const uint8_t* s = reinterpret_cast<const uint8_t*>(text.data());
  cut_segments(s, text.size(), &tmp.segments);
  UnigramWordCache& cache = thread_word_cache();
  const int32_t unk_id = vocab_->unk_id();
  out->tokens.clear();
  out->scores.clear();
  out->words.clear();
  out->tokens.reserve(text.size() / 3);
  out->scores.reserve(text.size() / 3);
  out->words.reserve(tmp.segments.size());
  const std::vector<Segment>& segments = tmp.segments;
  constexpr size_t kAhead = 8;  // as emit(): the cache is fetched a few words ahead
  for (size_t j = 0; j < segments.size(); ++j) {
    if (j + kAhead < segments.size() && (segments[j + kAhead].hash & ~uint64_t{1}) != 0) {
      cache.prefetch_slot(segments[j + kAhead].hash);
    }
    if (j + kAhead / 2 < segments.size() && (segments[j + kAhead / 2].hash & ~uint64_t{1}) != 0) {
      cache.prefetch_record(segments[j + kAhead / 2].hash);
    }
    const Segment& seg = segments[j];
    UnigramPart::Word word{0, 0, seg.begin, seg.end, 0.0f, 0};
    if (seg.hash == 0) {  // a run of unknown characters: no total involved but its length
      if (merge_unknown) {
        push_token(&out->tokens, unk_id, base + seg.begin, base + seg.end);
      } else {
        for (uint32_t i = seg.begin; i < seg.end;) {
          const uint32_t len = static_cast<uint32_t>(std::min<size_t>(spm_char_len(s[i]), seg.end - i));
          push_token(&out->tokens, unk_id, base + i, base + i + len);
          i += len;
        }
      }
      word.unknown_chars = seg.chars;
    } else {
      const uint8_t* w = s + seg.begin;
      const size_t wn = seg.end - seg.begin;
      const uint32_t* pieces;
      size_t count;
      if (wn <= UnigramWordCache::kMaxWord) {
        const uint32_t* record = cache.find(w, wn, seg.hash);
        if (record == nullptr) {
          word_entry(w, wn, &tmp.entry);
          record = cache.insert(w, wn, seg.hash, tmp.entry[0], tmp.entry.data() + 1, (tmp.entry.size() - 1) / 2);
        }
        word.bound = float_from_bits(record[1]);
        pieces = UnigramWordCache::pieces(record);
        count = UnigramWordCache::pieces_of(record);
      } else {  // too long for the cache: the same entry, kept only here
        word_entry(w, wn, &tmp.entry);
        word.bound = float_from_bits(tmp.entry[0]);
        pieces = tmp.entry.data() + 1;
        count = (tmp.entry.size() - 1) / 2;
      }
      uint32_t at = base + seg.begin;
      for (size_t i = 0; i < count; ++i) {
        const uint32_t length = pieces[2 * i] >> 24;
        push_token(&out->tokens, static_cast<int32_t>(pieces[2 * i] & 0xFFFFFF), at, at + length);
        out->scores.push_back(float_from_bits(pieces[2 * i + 1]));
        at += length;
      }
    }
    word.tokens_end = static_cast<uint32_t>(out->tokens.size());
    word.scores_end = static_cast<uint32_t>(out->scores.size());
    out->words.push_back(word);
  }
}

float Unigram::settle_part(std::string_view text, uint32_t base, const UnigramPart& part, float total,
                           std::vector<SpmToken>* out) const {
  const uint8_t* s = reinterpret_cast<const uint8_t*>(text.data());
  const float unk = unk_score();
  uint32_t token = 0, score = 0;
  for (const UnigramPart::Word& word : part.words) {
    if (word.unknown_chars > 0) {
      out->insert(out->end(), part.tokens.begin() + token, part.tokens.begin() + word.tokens_end);
      total = add_unknowns(total, unk, word.unknown_chars);
    } else {
      if (total < -kScoreReset || total > kScoreReset) total = 0.0f;  // sentencepiece's rebase, as in emit()
      if (std::fabs(total) <= word.bound) {
        out->insert(out->end(), part.tokens.begin() + token, part.tokens.begin() + word.tokens_end);
        for (uint32_t i = score; i < word.scores_end; ++i) total = total + part.scores[i];
      } else {
        total = encode_span(s + word.begin, word.end - word.begin, total, base + word.begin, out);
      }
    }
    token = word.tokens_end;
    score = word.scores_end;
  }
  return total;
}

}  // namespace tf::spm
