#include "model/weights.h"

#include <gtest/gtest.h>

#include "auris/error.h"

namespace auris {
namespace {

TEST(WeightMap, MissingTensorNamesIt) {
  WeightMap w;
  try {
    w.get("decoder.ln.weight");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("decoder.ln.weight"), std::string::npos);
  }
}

TEST(WeightMap, ShapeMismatchIsReported) {
  WeightMap w;
  w.put("x", Tensor({2, 3}));
  EXPECT_NO_THROW(w.get("x", {2, 3}));
  EXPECT_THROW(w.get("x", {3, 2}), Error);
}

}  // namespace
}  // namespace auris
