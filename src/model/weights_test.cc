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

// A deferred tensor is decoded only when its values are needed, and then once.
TEST(WeightMap, DeferredTensorDecodesOnFirstUseOnly) {
  int decodes = 0;
  WeightMap w;
  w.put_deferred("x", {2, 3}, [&decodes] {
    ++decodes;
    Tensor t({2, 3});
    t.data[4] = 7.0f;
    return t;
  });
  EXPECT_EQ(w.shape("x"), (std::vector<int64_t>{2, 3}));
  EXPECT_NO_THROW(w.expect_shape("x", {2, 3}));
  EXPECT_THROW(w.expect_shape("x", {3, 2}), Error);
  EXPECT_EQ(w.names(), std::vector<std::string>{"x"});
  EXPECT_EQ(decodes, 0);
  EXPECT_EQ(w.get("x").data[4], 7.0f);
  EXPECT_EQ(w.get("x").data[4], 7.0f);
  EXPECT_EQ(decodes, 1);
  const Tensor taken = w.take("x");
  EXPECT_EQ(taken.data[4], 7.0f);
  EXPECT_EQ(decodes, 1);
  EXPECT_FALSE(w.has("x"));
}

TEST(WeightMap, TakeDecodesADeferredTensorAndRemovesIt) {
  int decodes = 0;
  WeightMap w;
  w.put_deferred("x", {4}, [&decodes] {
    ++decodes;
    return Tensor({4});
  });
  EXPECT_EQ(w.take("x").shape, (std::vector<int64_t>{4}));
  EXPECT_EQ(decodes, 1);
  EXPECT_EQ(w.size(), 0u);
  EXPECT_THROW(w.take("x"), Error);
}

TEST(WeightMap, DecodeOfAnotherShapeIsAnError) {
  WeightMap w;
  w.put_deferred("x", {2, 3}, [] { return Tensor({3, 2}); });
  EXPECT_THROW(w.get("x"), Error);
}

TEST(WeightMap, EqualityComparesDecodedValues) {
  WeightMap eager, deferred;
  Tensor t({3});
  t.data = {1.0f, 2.0f, 3.0f};
  eager.put("x", t);
  deferred.put_deferred("x", {3}, [t] { return t; });
  EXPECT_TRUE(eager == deferred);
  deferred.put_deferred("x", {3}, [] { return Tensor({3}); });
  EXPECT_FALSE(eager == deferred);
}

}  // namespace
}  // namespace auris
