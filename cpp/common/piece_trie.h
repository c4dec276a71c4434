// PieceTrie: a double-array trie (Aoe 1989) over byte strings, built once from a piece
// list.  Node s has the child t = base[s] + c + 1 for byte c iff check[t] == s; a node's
// value is the id of the piece that ends there, or -1.  A step is two array reads, so
// walking every prefix of a text from one position costs O(longest match).
//
// Used for the vocabulary of a Unigram model (the Viterbi lattice visits every piece that
// starts at each position) and for USER_DEFINED pieces (longest match wins).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tf {

class PieceTrie {
 public:
  static constexpr int32_t kNone = -1;

  // Builds from (key, value) pairs; keys must be non-empty and distinct, values >= 0.
  void build(std::vector<std::pair<std::string, int32_t>> keys);
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  // The node reached from `node` by byte c, or -1.  The root is node 0.
  int32_t child(int32_t node, uint8_t c) const {
    uint32_t t = static_cast<uint32_t>(units_[node].base) + c + 1;
    return (t < units_.size() && units_[t].check == node) ? static_cast<int32_t>(t) : -1;
  }
  int32_t value(int32_t node) const { return units_[node].value; }
  // A float kept beside each value (the Unigram score), so a step reads one cache line.
  float payload(int32_t node) const { return units_[node].payload; }
  void set_payloads(const std::vector<float>& by_value) {
    for (Unit& u : units_) {
      if (u.value >= 0 && static_cast<size_t>(u.value) < by_value.size()) u.payload = by_value[u.value];
    }
  }

  // The arrays of a built trie as two registers, for hot loops: child(), value() and
  // payload() as above, without reloading the vector's bounds after every store.
  struct View {
    const void* units;
    uint32_t size;
  };
  View view() const { return View{units_.data(), static_cast<uint32_t>(units_.size())}; }
  static int32_t child(const View& v, int32_t node, uint8_t c) {
    const Unit* u = static_cast<const Unit*>(v.units);
    const uint32_t t = static_cast<uint32_t>(u[node].base) + c + 1;
    return (t < v.size && u[t].check == node) ? static_cast<int32_t>(t) : -1;
  }
  static int32_t value(const View& v, int32_t node) { return static_cast<const Unit*>(v.units)[node].value; }
  static float payload(const View& v, int32_t node) { return static_cast<const Unit*>(v.units)[node].payload; }

  // The raw double array, for a caller that keeps it in its own layout (TokenTrie):
  // units() slots, each with its base and check (-1 when free).
  size_t units() const { return units_.size(); }
  int32_t base(int32_t node) const { return units_[node].base; }
  int32_t check(int32_t node) const { return units_[node].check; }

  // Length of the longest key that prefixes s[0, n), or 0; sets *value.
  size_t longest_prefix(const uint8_t* s, size_t n, int32_t* value) const {
    size_t best = 0;
    int32_t node = 0;
    for (size_t i = 0; i < n && !units_.empty(); ++i) {
      node = child(node, s[i]);
      if (node < 0) break;
      if (units_[node].value >= 0) {
        best = i + 1;
        *value = units_[node].value;
      }
    }
    return best;
  }

 private:
  // One unit per slot, interleaved so a step touches one cache line.
  struct Unit {
    int32_t base;
    int32_t check;
    int32_t value;
    float payload;
  };
  std::vector<Unit> units_;
  size_t size_ = 0;
};

}  // namespace tf
