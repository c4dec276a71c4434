// tokenforge._native.normalize_unicode: tokenizers' NFD/NFKD/NFC/NFKC with its alignment
// (normalize/unicode_forms.h), for the native path of a tokenizer.json whose normalizer is
// one of them (tokenizer/native.py).  The readable twin is tokenforge.normalizers.unicode.
#include <nanobind/stl/string.h>

#include <string>

#include "bindings/common.h"
#include "normalize/unicode_forms.h"

namespace tf::py {

namespace {

UnicodeForm form_named(const std::string& name) {
  if (name == "NFC") return UnicodeForm::kNFC;
  if (name == "NFD") return UnicodeForm::kNFD;
  if (name == "NFKC") return UnicodeForm::kNFKC;
  if (name == "NFKD") return UnicodeForm::kNFKD;
  throw nb::value_error(("unknown normalization form " + name + " (NFC, NFD, NFKC or NFKD)").c_str());
}

nb::bytes u32_bytes(const std::vector<uint32_t>& v) {
  return nb::bytes(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(uint32_t));
}

}  // namespace

void bind_unicode_forms(nb::module_& m) {
  m.def(
      "normalize_unicode",
      [](nb::str text, const std::string& name) -> nb::object {
        const UnicodeForm form = form_named(name);
        PyObject* s = text.ptr();
        const Py_ssize_t n = PyUnicode_GET_LENGTH(s);
        const int kind = PyUnicode_KIND(s);
        const void* data = PyUnicode_DATA(s);
        if (kind == PyUnicode_1BYTE_KIND) {  // Latin-1: only a few characters change
          const auto* p = static_cast<const uint8_t*>(data);
          bool any = false;
          for (Py_ssize_t i = 0; i < n && !any; ++i) any = p[i] >= 0xA0;
          if (!any) return nb::none();
        }
        std::vector<uint32_t> wide;
        const uint32_t* cps;
        if (kind == PyUnicode_4BYTE_KIND) {
          cps = static_cast<const uint32_t*>(data);
        } else {
          wide.resize(static_cast<size_t>(n));
          for (Py_ssize_t i = 0; i < n; ++i) wide[i] = PyUnicode_READ(kind, data, i);
          cps = wide.data();
        }
        std::vector<uint32_t> out, starts, ends;
        if (!normalize_unicode(cps, static_cast<size_t>(n), form, &out, &starts, &ends)) return nb::none();
        PyObject* normalized = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out.data(),
                                                         static_cast<Py_ssize_t>(out.size()));
        if (normalized == nullptr) throw nb::python_error();
        return nb::make_tuple(nb::steal(normalized), u32_bytes(starts), u32_bytes(ends));
      },
      nb::arg("text"), nb::arg("form"),
      "text under tokenizers' normalization form (NFC, NFD, NFKC, NFKD; Unicode 11.0) as "
      "(normalized text, each of its characters' original start and end as native uint32 bytes), "
      "or None when the form leaves text as it is.");
}

}  // namespace tf::py
