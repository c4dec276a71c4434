#include "training/sentencepiece/word_table.h"

#include <cstring>
#include <functional>

namespace tf::spm_train {

namespace {

uint32_t hash_word(std::string_view word) {
  const uint64_t h = std::hash<std::string_view>()(word);
  return static_cast<uint32_t>(h ^ (h >> 32));
}

}  // namespace

void WordTable::add(std::string_view word, int64_t freq, WordEnds ends) {
  if ((counts_.size() + 1) * 4 > slots_.size() * 3) grow();
  const uint32_t h = hash_word(word);
  for (size_t i = h & mask_;; i = (i + 1) & mask_) {
    const uint64_t slot = slots_[i];
    if (slot == 0) {
      slots_[i] = (uint64_t{h} << 32) | (counts_.size() + 1);
      bytes_.append(word.data(), word.size());
      starts_.push_back(bytes_.size());
      counts_.push_back(freq);
      ends_.push_back(ends);
      return;
    }
    if (static_cast<uint32_t>(slot >> 32) != h) continue;
    const size_t index = static_cast<uint32_t>(slot) - 1;
    if (this->word(index) == word) {
      counts_[index] += freq;
      ends_[index] = merge_ends(ends_[index], ends);
      return;
    }
  }
}

void WordTable::grow() {
  const size_t capacity = slots_.empty() ? 1024 : slots_.size() * 2;
  std::vector<uint64_t> old(capacity, 0);
  old.swap(slots_);
  mask_ = capacity - 1;
  for (uint64_t slot : old) {
    if (slot == 0) continue;
    size_t i = (slot >> 32) & mask_;
    while (slots_[i] != 0) i = (i + 1) & mask_;
    slots_[i] = slot;
  }
}

void WordTable::clear() {
  std::string().swap(bytes_);
  std::vector<uint64_t>{0}.swap(starts_);
  std::vector<int64_t>().swap(counts_);
  std::vector<WordEnds>().swap(ends_);
  std::vector<uint64_t>().swap(slots_);
  mask_ = 0;
}

}  // namespace tf::spm_train
