#include "models/sentencepiece/unigram_word_cache.h"

#include "common/byte_hash.h"

namespace tf::spm {

uint64_t UnigramWordCache::rehash(const uint32_t* record) {
  return hash_bytes(reinterpret_cast<const uint8_t*>(record + 2), record[0] & 0xFFFF) | 1;  // as Unigram::encode
}

}  // namespace tf::spm
