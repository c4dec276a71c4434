// WordBpe: BPE over the characters of one pre-tokenized word, as `tokenizers`' models/bpe
// applies it to the files of openai-gpt, HerBERT and its own CharBPETokenizer: every
// character after the first spelled with the continuing-subword prefix, the last with the
// end-of-word suffix ("</w>"), each looked up in the vocabulary (a character without an entry
// becomes the unknown token, consecutive ones fused with fuse_unk; without an unknown token
// it is dropped, though tokenizers then also shifts the offsets after it, which this does not:
// the caller keeps such models on the readable pipeline); then the adjacent pair of lowest merge rank, leftmost on ties, is
// merged until no pair has a merge.  A heap of candidate pairs, checked when taken, keeps a
// word of n characters O(n log n); a word seen before on the thread is answered from a
// per-thread cache (bounded: cleared when full; keyed to the model by a serial number, so a
// model freed and another made at its address never reads the old one's words).  No dropout, byte fallback or ignore_merges (the caller
// leaves those files to the readable pipeline).  Immutable once built: shared by threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/u64_map.h"
#include "models/wordpiece/word_model.h"

namespace tf::wordpiece {

class WordBpe : public WordModel {
 public:
  struct Merge {
    uint32_t left, right, merged;  // token ids, in rank order
  };
  // vocab: (token, id); unk_id < 0 for none.
  WordBpe(const std::vector<std::pair<std::string, int32_t>>& vocab, const std::vector<Merge>& merges, int32_t unk_id,
          bool fuse_unk, std::string prefix, std::string suffix);

  void tokenize(std::string_view word, size_t chars, std::vector<SubwordSpan>& out) const override;

 private:
  int32_t lookup(const std::string& s) const;
  // tokenize() without the cache.
  void merge(std::string_view word, size_t chars, std::vector<SubwordSpan>& out) const;

  std::unordered_map<std::string, int32_t> vocab_;
  U64Map<uint64_t> merges_;  // (left, right) -> (rank << 32) | merged
  int32_t unk_id_;
  bool fuse_unk_;
  std::string prefix_, suffix_;
  uint64_t serial_;  // this model's number, for the per-thread word cache
};

}  // namespace tf::wordpiece
