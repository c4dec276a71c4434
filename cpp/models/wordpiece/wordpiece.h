// WordPiece: greedy longest-match-first over a vocabulary, continuation pieces prefixed.
//
// A word is cut from its first character: the longest vocabulary entry that is a prefix of
// the rest wins (after the first piece, the entry spelled with the continuation prefix,
// "##" in BERT); a word with more than `max_chars` characters, or with a rest that no entry
// starts, becomes the one unknown token.  The vocabulary is a byte trie (common/piece_trie),
// so finding the longest match from one position costs O(its length); the continuation
// entries hang below the prefix's node.  Used by the BERT pipeline (bert_encoder.h) and
// meant for llama.cpp's WPM vocabularies too.  Offsets are bytes of the word.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/piece_trie.h"
#include "models/wordpiece/word_model.h"

namespace tf::wordpiece {

class WordPiece : public WordModel {
 public:
  // vocab: (token, id) pairs, tokens distinct and non-empty; unk_id must be one of the ids.
  WordPiece(std::vector<std::pair<std::string, int32_t>> vocab, int32_t unk_id, std::string prefix,
            size_t max_chars);

  // Appends the pieces of `word` (valid UTF-8, `chars` characters) to `out`.
  void tokenize(std::string_view word, size_t chars, std::vector<SubwordSpan>& out) const override;

  int32_t unk_id() const { return unk_id_; }

 private:
  // The longest entry below `node` that prefixes word[from..]: its end, or 0 if none.
  size_t longest(int32_t node, std::string_view word, size_t from, int32_t* id) const;

  PieceTrie trie_;
  int32_t unk_id_;
  int32_t cont_node_ = -1;  // the trie node of the continuation prefix (-1: no such entries)
  size_t max_chars_;
};

}  // namespace tf::wordpiece
