// The tf-idf weight of a UBPE encoding, added exactly as `ubpe` adds it under CPython 3.12:
// `sum((1 + log n) * idf)` over the distinct tokens in a Counter's order, with `sum()`'s
// Neumaier compensated summation (CPython 3.12's bltinmodule.c).  Equal weights must compare
// equal exactly as in `ubpe`, since its encoders break ties on them.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace tf::ubpe {

// Neumaier's compensated sum, step by step as CPython 3.12's sum() of floats.
class Py312Sum {
 public:
  void add(double x) {
    double t = total_ + x;
    if (std::fabs(total_) >= std::fabs(x)) {
      comp_ += (total_ - t) + x;
    } else {
      comp_ += (x - t) + total_;
    }
    total_ = t;
  }
  double result() const {
    return (comp_ != 0.0 && std::isfinite(comp_)) ? total_ + comp_ : total_;
  }

 private:
  double total_ = 0.0;
  double comp_ = 0.0;
};

// (1 + log n) for small counts, cached; the same libm log Python's math.log calls.
class LogTable {
 public:
  double one_plus_log(uint32_t n) {
    while (table_.size() <= n) table_.push_back(1.0 + std::log(static_cast<double>(table_.size())));
    return table_[n];
  }

 private:
  std::vector<double> table_{0.0};
};

}  // namespace tf::ubpe
