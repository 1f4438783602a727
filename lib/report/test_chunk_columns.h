// Test helper beside the tests that use it: two chunks' columns compared.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <utility>

#include "report/site_chunk.h"

namespace bb::report::test {

// Every column, the floats compared as float32 keeps them; a NaN (a point
// not measured) matches only a NaN.
inline void check_same(const site::ChunkColumns& a, const site::ChunkColumns& b) {
  CHECK(a.x == b.x);
  CHECK(a.time == b.time);
  CHECK(a.job == b.job);
  CHECK(a.n == b.n);
  CHECK(a.env == b.env);
  CHECK(a.status == b.status);
  CHECK(a.label == b.label);
  for (auto [x, y] : {std::pair{&a.median, &b.median}, {&a.q1, &b.q1}, {&a.q3, &b.q3}}) {
    REQUIRE(x->size() == y->size());
    for (size_t i = 0; i < x->size(); ++i) {
      INFO("point " << i);
      if (std::isnan((*x)[i]) || std::isnan((*y)[i])) CHECK((std::isnan((*x)[i]) && std::isnan((*y)[i])));
      else CHECK(float((*x)[i]) == float((*y)[i]));
    }
  }
}

}  // namespace bb::report::test
