// Unigram: SentencePiece's unigram language-model segmentation (Kudo 2018).
//
// The best segmentation maximizes the sum of piece scores (log probabilities).  Viterbi
// runs over byte positions: from each character start, the piece trie yields every piece
// beginning there, and best[end] keeps the highest total ending at each position (the
// first found on ties).  A character no piece covers becomes one <unk> scored
// min_score - 10; USER_DEFINED pieces score length * max_score - 0.1 so they always win.
// O(n * longest piece).  Scores are summed in float as in sentencepiece's optimized
// encoder, so near-ties resolve the same way.
//
// When no piece holds a ▁ after its first character, no lattice edge crosses the point
// before a ▁, so the best path is the concatenation of the best paths of the "words"
// between those points, each started from the float total reached before it.  A word's
// segmentation is then cached per thread (unigram_words.cc) with the largest |total|
// at which float rounding cannot change any of its decisions; otherwise it is segmented
// in place exactly as the whole text would be.  Same result, one hash lookup per word.
// A character in no piece is cut out the same way, as one <unk>.
//
// A long text is encoded on several threads in two steps (unigram_parts.cc): each part,
// cut where no edge crosses (spm_cuts.h), is cut into words and segmented ahead of time
// (encode_part: the cached or computed word segmentations with the bound on the starting
// total each holds for); then, in order, the true float total is carried through every
// word's scores (settle_part), and a word whose bound does not hold for it is segmented
// again in place.  The result is encode()'s on the whole text.
//
// The full lattice (n-best, sampling, entropy) is in unigram_lattice.h.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/piece_trie.h"
#include "models/sentencepiece/sentencepiece_bpe.h"
#include "models/sentencepiece/spm_vocab.h"
#include "common/ascii_stops.h"

namespace tf::spm {

class UnigramWordCache;

// One part of a long text as Unigram::encode_part leaves it for settle_part.
struct UnigramPart {
  struct Word {
    uint32_t tokens_end;     // its tokens are tokens[previous word's tokens_end, tokens_end)
    uint32_t scores_end;     // ... and their scores scores[previous scores_end, scores_end)
    uint32_t begin, end;     // its bytes in the part
    float bound;             // the tokens hold for a starting total of at most this magnitude
    uint32_t unknown_chars;  // > 0: a run of characters in no piece (no scores, no bound)
  };
  std::vector<SpmToken> tokens;  // offsets in the whole text
  std::vector<float> scores;
  std::vector<Word> words;
};

class Unigram {
 public:
  // `vocab` must outlive this object.
  bool build(const SpmVocab* vocab, std::string* error);

  // Appends the best segmentation of `normalized` (offsets plus `base`).  With
  // merge_unknown, a run of characters in no piece comes out as one <unk> token spanning
  // them all (what ids need: one <unk>, or the same byte-fallback bytes) instead of one
  // per character (what offsets need).
  void encode(std::string_view normalized, uint32_t base, std::vector<SpmToken>* out,
              bool merge_unknown = false) const;
  // Appends the ids of the best segmentation of `normalized` as SentencePieceProcessor
  // reports them: a run of unknown text as one <unk>, or as its bytes with byte_fallback.
  // The same segmentation as encode(), without the tokens in between.
  void encode_ids(std::string_view normalized, bool byte_fallback, std::vector<int32_t>* ids) const;

  // Whether a long text may be encoded in parts (the text is cut into words, and their
  // segmentations can be recorded as the word cache records them).
  bool encodes_parts() const { return (splits_words_ || cuts_at_unknown_) && cache_words_ && max_edge_bytes_ < 256; }
  // Segments the part `text` (at byte `base` of the whole) word by word ahead of its
  // starting total (see the class comment); merge_unknown as in encode().
  void encode_part(std::string_view text, uint32_t base, bool merge_unknown, UnigramPart* out) const;
  // Appends the part's final tokens, starting from `total`, the float total the whole
  // text's Viterbi reaches at the part's start; returns the total at its end.
  float settle_part(std::string_view text, uint32_t base, const UnigramPart& part, float total,
                    std::vector<SpmToken>* out) const;

  const SpmVocab& vocab() const { return *vocab_; }
  const PieceTrie& trie() const { return trie_; }
  float unk_score() const { return vocab_->min_score() - 10.0f; }
  static float user_defined_score(size_t length) { return static_cast<float>(0.1 * (static_cast<double>(length) - 1)); }
  // The lattice score of a matched piece of `length` characters.
  float piece_score(int32_t id, size_t length) const {
    if (vocab_->type(id) == SpmType::kUserDefined) return user_defined_score(length);
    return vocab_->score(id);
  }
  static constexpr float kScoreReset = 100000.0f;
  // Whether encode() segments words separately (see the class comment).
  bool splits_words() const { return splits_words_; }

 private:
  // The float Viterbi over s[0, n) starting from the total `initial`, exactly as over a
  // whole text: appends the tokens (offsets plus `base`), returns the total at the end.
  float encode_span(const uint8_t* s, size_t n, float initial, uint32_t base, std::vector<SpmToken>* out) const;
  // This thread's word cache for this model, through the memo emit() uses (so a cache
  // this call makes the thread drop is never left in that memo).
  UnigramWordCache& thread_word_cache() const;
  // The total after `count` <unk> edges from `total`, each preceded by sentencepiece's
  // rebase check (unigram_words.cc).
  __attribute__((noinline)) static float add_unknowns(float total, float unk, uint32_t count);
  // A word (hash != 0) or a run of unknown characters (hash 0) of the text encode() splits.
 public:
  struct Segment {
    uint32_t begin, end;
    uint64_t hash;   // 0 for a run of unknown characters
    uint32_t chars;  // characters in a run of unknown ones
  };

 private:
  // Cuts s[0, n) into words and runs of unknown characters, hashing the words (the scan
  // of unigram_words.cc).
  void cut_segments(const uint8_t* s, size_t n, std::vector<Segment>* out) const;
  // encode() and encode_ids() after the scan: each segment from the cache, as unknown, or
  // by encode_span; the sink receives the pieces (offsets relative to s).  `scratch` is the
  // thread's buffers (unigram_words.cc).
  template <typename Sink>
  void emit(const uint8_t* s, size_t n, Sink& sink, void* scratch) const;
  template <typename Sink>
  float span(const uint8_t* s, size_t n, float initial, uint32_t begin, Sink& sink, void* scratch) const;
  // Computes a word's cache entry (unigram_words.cc): header word, then id, length, score.
  void word_entry(const uint8_t* s, size_t n, std::vector<uint32_t>* entry) const;
  // The lattice edges from byte `start` of s[0, n), the character starting there being
  // `mblen` bytes: edge(end, id, score) for every piece the trie finds, then the <unk>
  // edge over the character if no one-character piece covers it.  Both Viterbis take
  // their edges from here, so they see the same lattice.
  template <typename Edge>
  void for_each_edge(const uint8_t* s, size_t n, size_t start, size_t mblen, Edge&& edge) const {
    for_each_edge(trie_.view(), s, n, start, mblen, edge);
  }
  // The same with the trie's arrays passed in (encode_span's loop keeps them in registers).
  template <typename Edge>
  void for_each_edge(const PieceTrie::View& trie, const uint8_t* s, size_t n, size_t start, size_t mblen,
                     Edge&& edge) const {
    bool has_single = false;
    int32_t node = 0;
    for (size_t k = start; k < n; ++k) {
      node = PieceTrie::child(trie, node, s[k]);
      if (node < 0) break;
      const int32_t id = PieceTrie::value(trie, node);
      if (id < 0) continue;
      const size_t length = k + 1 - start;
      float score = PieceTrie::payload(trie, node);
      if (has_user_defined_ && scores_[id].user_defined) score = user_defined_score(length);
      edge(k + 1, id, score);
      if (length == mblen) has_single = true;
    }
    if (!has_single) edge(start + mblen, vocab_->unk_id(), unk_score());
  }

  struct Score {
    float score;
    bool user_defined;
  };
  const SpmVocab* vocab_ = nullptr;
  PieceTrie trie_;             // NORMAL and USER_DEFINED pieces -> id
  std::vector<Score> scores_;  // id -> score and whether USER_DEFINED
  bool has_user_defined_ = false;
  size_t max_edge_bytes_ = 4;  // the longest piece or character: no edge reaches further
  bool splits_words_ = false;
  // A character in no piece (bit clear in in_piece_, one bit per code point) has only the
  // <unk> edge and no edge crosses it, so it is a word of its own; off when some piece is
  // not UTF-8.
  bool cuts_at_unknown_ = false;
  bool cache_words_ = false;  // ids fit the cache's 24 bits and there is an <unk>
  std::vector<uint64_t> in_piece_;
  // The same facts indexed by the bytes, for encode()'s scan: bit b & 63 of word w is set
  // when the character is well formed and in no piece (all clear unless cuts_at_unknown_).
  // ASCII by the byte; 2-byte characters by (lead & 0x1F) << 6 | (b1 & 0x3F); 3-byte ones
  // by (lead & 0x0F) << 6 | (b1 & 0x3F) with bit b2 & 63, which is the code point, so the
  // scan needs no decoding and no range checks (overlongs and surrogates stay clear: a
  // malformed character is assumed to be in some piece).
  uint64_t unknown_ascii_[2] = {};
  AsciiStops ascii_stops_;  // unknown_ascii_, to skip runs of known ASCII characters
  uint64_t unknown2_[32] = {};
  std::vector<uint64_t> unknown3_;
  uint64_t cache_owner_ = 0;  // identifies this model to the per-thread word cache
};

}  // namespace tf::spm
