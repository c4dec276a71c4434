// WordPiece's greedy longest match (wordpiece.h).
#include "models/wordpiece/wordpiece.h"

namespace tf::wordpiece {

WordPiece::WordPiece(std::vector<std::pair<std::string, int32_t>> vocab, int32_t unk_id, std::string prefix,
                     size_t max_chars)
    : unk_id_(unk_id), max_chars_(max_chars) {
  trie_.build(std::move(vocab));
  int32_t node = 0;
  for (unsigned char c : prefix) {
    if (trie_.empty()) break;
    node = trie_.child(node, c);
    if (node < 0) break;
  }
  cont_node_ = trie_.empty() ? -1 : node;
}

size_t WordPiece::longest(int32_t node, std::string_view word, size_t from, int32_t* id) const {
  size_t best = 0;
  for (size_t i = from; i < word.size(); ++i) {
    node = trie_.child(node, static_cast<uint8_t>(word[i]));
    if (node < 0) break;
    const int32_t v = trie_.value(node);
    if (v >= 0) {
      best = i + 1;
      *id = v;
    }
  }
  return best;
}

void WordPiece::tokenize(std::string_view word, size_t chars, std::vector<SubwordSpan>& out) const {
  const size_t mark = out.size();
  const uint32_t n = static_cast<uint32_t>(word.size());
  if (chars > max_chars_ || trie_.empty()) {
    out.push_back(SubwordSpan{unk_id_, 0, n});
    return;
  }
  size_t start = 0;
  while (start < word.size()) {
    const int32_t node = start == 0 ? 0 : cont_node_;
    int32_t id = -1;
    const size_t end = node < 0 ? 0 : longest(node, word, start, &id);
    if (end == 0) {
      out.resize(mark);
      out.push_back(SubwordSpan{unk_id_, 0, n});
      return;
    }
    out.push_back(SubwordSpan{id, static_cast<uint32_t>(start), static_cast<uint32_t>(end)});
    start = end;
  }
}

}  // namespace tf::wordpiece
