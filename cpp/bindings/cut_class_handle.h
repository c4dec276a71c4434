// CutClassHandle: a CutClass as Python holds it (_native.CutClass), shared with the
// Encodings it is set on (Encoding.set_cut).
#pragma once

#include <memory>

#include "pretokenize/cut_class.h"

namespace tf::py {

struct CutClassHandle {
  std::shared_ptr<const CutClass> cut;
};

}  // namespace tf::py
