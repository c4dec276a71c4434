#include "models/shared_vocab.h"

#include <algorithm>
#include <mutex>
#include <vector>

namespace tf {

std::shared_ptr<const SharedVocab> share_vocab(TokenTable table) {
  auto fresh = std::make_shared<const SharedVocab>(std::move(table));
  // Never destroyed: models may outlive static destruction at interpreter exit.
  static std::mutex* mu = new std::mutex;
  static auto* live = new std::vector<std::weak_ptr<const SharedVocab>>;
  std::lock_guard<std::mutex> lock(*mu);
  live->erase(std::remove_if(live->begin(), live->end(), [](const auto& w) { return w.expired(); }), live->end());
  for (const auto& w : *live) {
    std::shared_ptr<const SharedVocab> v = w.lock();
    if (v != nullptr && v->digest == fresh->digest && v->table.same_tokens(fresh->table)) return v;
  }
  live->push_back(fresh);
  return fresh;
}

}  // namespace tf
