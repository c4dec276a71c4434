// WordModel: what the BERT pipeline (pipeline/bert_encoder.h) asks of the model that cuts
// one pre-tokenized word into tokens: WordPiece (wordpiece.h), or a BPE over the word's
// characters with a continuing-subword prefix and an end-of-word suffix (word_bpe.h, the
// model of openai-gpt's, HerBERT's and tokenizers' CharBPETokenizer's files).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace tf::wordpiece {

struct SubwordSpan {
  int32_t id;
  uint32_t start;  // bytes of the word
  uint32_t end;
};

class WordModel {
 public:
  virtual ~WordModel() = default;
  // Appends the tokens of `word` (valid UTF-8, `chars` characters) to `out`.
  virtual void tokenize(std::string_view word, size_t chars, std::vector<SubwordSpan>& out) const = 0;
};

}  // namespace tf::wordpiece
