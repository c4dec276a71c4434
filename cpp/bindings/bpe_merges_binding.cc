// tokenforge._native.bpe_merge_ids and valid_vocab: the load-time work of a tokenizer.json
// BPE model (models/bpe.py) that is one dict lookup per merge part, done in C++ over a
// table of the vocab's UTF-8 keys.  Both answer only the common case and say None/False
// otherwise, leaving the readable Python path to find what is wrong and name it.
#include <nanobind/stl/string.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "bindings/common.h"
#include "common/byte_hash.h"
#include "training/sentencepiece/utf8_chars.h"

namespace tf::py {

namespace {

// The vocab's keys: open addressing over 64-bit hashes.  A slot holds the hash, and a key
// of up to 16 bytes (most tokens) itself, so a probe reads one cache line; a longer key
// is read where it lies, when the hashes agree.
class VocabTable {
 public:
  static uint64_t hash(std::string_view k) {
    return hash_bytes(reinterpret_cast<const uint8_t*>(k.data()), k.size());
  }
  explicit VocabTable(size_t n) {
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    slots_.resize(cap);  // value-initialized: zeroed, every slot unused
    mask_ = cap - 1;
  }
  void insert(std::string_view k, uint32_t id) {
    const uint64_t h = hash(k);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.used) {
        s.hash = h;
        s.len = static_cast<uint32_t>(k.size());
        s.id = id;
        s.used = true;
        if (k.size() <= kInline) {
          std::memcpy(s.bytes, k.data(), k.size());
        } else {
          s.key = k.data();
        }
        return;
      }
      if (s.hash == h && equal(s, k)) return;  // a key twice: the first kept (dict keys are unique)
    }
  }
  void prefetch(uint64_t h) const { __builtin_prefetch(&slots_[h & mask_]); }
  // The id of key k of hash h (= hash(k)).
  bool find(uint64_t h, std::string_view k, uint32_t* id) const {
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (!s.used) return false;
      if (s.hash == h && equal(s, k)) {
        *id = s.id;
        return true;
      }
    }
  }

 private:
  static constexpr size_t kInline = 16;
  struct alignas(32) Slot {
    uint64_t hash;
    uint32_t len;
    uint32_t id : 31;  // ids past 2^31 are left to the Python path
    uint32_t used : 1;
    union {
      char bytes[kInline];
      const char* key;
    };
  };
  static bool equal(const Slot& s, std::string_view k) {
    return s.len == k.size() && std::memcmp(k.size() <= kInline ? s.bytes : s.key, k.data(), k.size()) == 0;
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0;
};

// The UTF-8 of a str: an ASCII str's own characters, else written to *scratch (nothing is
// cached on the str); false for a lone surrogate.
bool utf8_of(PyObject* s, std::string* scratch, std::string_view* out) {
  const StrView v = str_view(s);
  if (v.ascii) {
    *out = std::string_view(static_cast<const char*>(v.data), v.length);
    return true;
  }
  scratch->clear();
  for (size_t i = 0; i < v.length; ++i) {
    const uint32_t c = PyUnicode_READ(v.kind, v.data, i);
    if (c >= 0xD800 && c < 0xE000) return false;
    spm_train::append_utf8(static_cast<char32_t>(c), scratch);
  }
  *out = *scratch;
  return true;
}

// The id of a vocab value: an exact int in [0, 2^32), or false.
bool id_of(PyObject* v, uint32_t* id) {
  if (!PyLong_CheckExact(v)) return false;
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
  if (overflow != 0 || x < 0 || x > 0xFFFFFFFFLL) {
    PyErr_Clear();
    return false;
  }
  *id = static_cast<uint32_t>(x);
  return true;
}

// The bytes of s past its first `chars` characters.
std::string_view skip_chars(std::string_view s, size_t chars) {
  size_t i = 0;
  for (; i < s.size() && chars > 0; --chars) {
    ++i;
    while (i < s.size() && (static_cast<uint8_t>(s[i]) & 0xC0) == 0x80) ++i;
  }
  return s.substr(i);
}

nb::bytes as_bytes(const std::vector<uint32_t>& v) {
  return nb::bytes(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(uint32_t));
}

}  // namespace

void bind_bpe_merges(nb::module_& m) {
  m.def(
      "valid_vocab",
      [](nb::dict vocab) {
        PyObject *key, *value;
        Py_ssize_t pos = 0;
        uint32_t id;
        while (PyDict_Next(vocab.ptr(), &pos, &key, &value)) {
          if (!PyUnicode_Check(key) || !id_of(value, &id)) return false;
        }
        return true;
      },
      nb::arg("vocab"),
      "Whether every key of vocab is a str and every value an int in [0, 2**32) (False: look closer).");
  m.def(
      "bpe_merge_ids",
      [](nb::dict vocab, nb::list merges, size_t prefix_chars) -> nb::object {
        // Keys are viewed where they are ASCII, else copied (`owned` is not resized later).
        const size_t size = static_cast<size_t>(PyDict_Size(vocab.ptr()));
        VocabTable table(size);
        std::vector<std::string> owned(size);
        size_t copies = 0;
        PyObject *key, *value;
        Py_ssize_t pos = 0;
        while (PyDict_Next(vocab.ptr(), &pos, &key, &value)) {
          std::string_view k;
          uint32_t id;
          if (!PyUnicode_Check(key) || !id_of(value, &id) || id >= 0x80000000u || !utf8_of(key, &owned[copies], &k)) {
            return nb::none();
          }
          if (!k.empty() && k.data() == owned[copies].data()) ++copies;
          table.insert(k, id);
        }
        // First every merge's three strings (left, right, their join) into one buffer with
        // their hashes, then the lookups with the table slots of a few merges ahead already
        // loading: one after another, each lookup was a cache miss or two waited out alone.
        const size_t n = static_cast<size_t>(PyList_GET_SIZE(merges.ptr()));
        std::string text;
        std::vector<uint32_t> ends;  // end in text of each string, 3 per merge
        std::vector<uint64_t> hashes;
        ends.reserve(3 * n);
        hashes.reserve(3 * n);
        std::string scratch_a, scratch_b;
        bool strings = false, pairs = false;
        for (size_t r = 0; r < n; ++r) {
          PyObject* item = PyList_GET_ITEM(merges.ptr(), static_cast<Py_ssize_t>(r));
          std::string_view a, b;
          if (PyUnicode_CheckExact(item)) {  // "a b": exactly one space
            strings = true;
            std::string_view s;
            if (!utf8_of(item, &scratch_a, &s)) return nb::none();
            const size_t sp = s.find(' ');
            if (sp == std::string_view::npos || s.find(' ', sp + 1) != std::string_view::npos) return nb::none();
            a = s.substr(0, sp);
            b = s.substr(sp + 1);
          } else if (PyList_CheckExact(item) || PyTuple_CheckExact(item)) {  // [a, b]
            pairs = true;
            if (PySequence_Fast_GET_SIZE(item) != 2) return nb::none();
            PyObject* x = PySequence_Fast_GET_ITEM(item, 0);
            PyObject* y = PySequence_Fast_GET_ITEM(item, 1);
            if (!PyUnicode_Check(x) || !PyUnicode_Check(y) || !utf8_of(x, &scratch_a, &a) ||
                !utf8_of(y, &scratch_b, &b)) {
              return nb::none();
            }
          } else {
            return nb::none();
          }
          if (strings && pairs) return nb::none();  // mixed forms: the Python path names the bad one
          if (text.size() + 2 * (a.size() + b.size()) >= 0xFFFFFFFFu) return nb::none();
          for (std::string_view part : {a, b}) {
            hashes.push_back(VocabTable::hash(part));
            text.append(part);
            ends.push_back(static_cast<uint32_t>(text.size()));
          }
          const size_t join = text.size();
          text.append(a);
          text.append(skip_chars(b, prefix_chars));
          hashes.push_back(VocabTable::hash(std::string_view(text).substr(join)));
          ends.push_back(static_cast<uint32_t>(text.size()));
        }
        std::vector<uint32_t> left(n), right(n), merged(n);
        uint32_t* out[3] = {left.data(), right.data(), merged.data()};
        constexpr size_t kAhead = 16;
        for (size_t k = 0; k < 3 * n; ++k) {
          if (k + kAhead < 3 * n) table.prefetch(hashes[k + kAhead]);
          const size_t begin = k == 0 ? 0 : ends[k - 1];
          const std::string_view part(text.data() + begin, ends[k] - begin);
          if (!table.find(hashes[k], part, &out[k % 3][k / 3])) return nb::none();
        }
        return nb::make_tuple(as_bytes(left), as_bytes(right), as_bytes(merged));
      },
      nb::arg("vocab"), nb::arg("merges"), nb::arg("prefix_chars"),
      "The (left, right, merged) ids of each merge (\"a b\" strings or [a, b] pairs; merged = a + b without its "
      "first prefix_chars characters) as three bytes of native uint32, or None when a key, id or merge is not "
      "of the common form or names a token not in vocab.");
}

}  // namespace tf::py
