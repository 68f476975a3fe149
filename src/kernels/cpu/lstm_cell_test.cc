#include "kernels/cpu/lstm_cell.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace auris {
namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// PyTorch's LSTM cell in doubles, W_hh given as lstm_cell() takes it ([hidden x 4 hidden]).
void reference_cell(std::vector<double> gates, const std::vector<float>& w, int hidden, std::vector<double>& h,
                    std::vector<double>& c) {
  const int n = 4 * hidden;
  for (int g = 0; g < n; ++g)
    for (int j = 0; j < hidden; ++j) gates[g] += static_cast<double>(w[static_cast<size_t>(j) * n + g]) * h[j];
  for (int k = 0; k < hidden; ++k) {
    c[k] = sigmoid(gates[hidden + k]) * c[k] + sigmoid(gates[k]) * std::tanh(gates[2 * hidden + k]);
    h[k] = sigmoid(gates[3 * hidden + k]) * std::tanh(c[k]);
  }
}

// Silero's width (whole vector blocks) and widths that leave gate and state tails, stepped 50 times
// so that an error carried in the state would grow; pre-activations up to +-12 reach both
// saturated ends of the sigmoid and tanh, and zero.
TEST(LstmCell, MatchesTheCellInDoublesOverManySteps) {
  for (const int hidden : {128, 13, 24}) {
    std::mt19937 rng(hidden);
    std::uniform_real_distribution<float> weight(-0.3f, 0.3f), input(-12.0f, 12.0f);
    const int n = 4 * hidden;
    std::vector<float> w(static_cast<size_t>(hidden) * n);
    for (float& v : w) v = weight(rng);
    std::vector<float> h(hidden, 0.0f), c(hidden, 0.0f);
    std::vector<double> h_ref(hidden, 0.0), c_ref(hidden, 0.0);
    double worst = 0;
    for (int step = 0; step < 50; ++step) {
      std::vector<float> gates(n);
      for (float& v : gates) v = step % 10 == 0 ? 0.0f : input(rng);
      reference_cell(std::vector<double>(gates.begin(), gates.end()), w, hidden, h_ref, c_ref);
      lstm_cell(gates.data(), w.data(), hidden, h.data(), c.data());
      for (int k = 0; k < hidden; ++k) {
        worst = std::max(worst, std::abs(h[k] - h_ref[k]));
        worst = std::max(worst, std::abs(c[k] - c_ref[k]) / std::max(1.0, std::abs(c_ref[k])));
      }
    }
    EXPECT_LT(worst, 2e-6) << "hidden " << hidden;
  }
}

TEST(LstmCell, SaturatedGatesGiveTheLimits) {
  const int hidden = 8;
  std::vector<float> w(static_cast<size_t>(hidden) * 4 * hidden, 0.0f);
  std::vector<float> gates(4 * hidden);
  for (int k = 0; k < hidden; ++k) {
    gates[k] = 100.0f;                 // input gate open
    gates[hidden + k] = -100.0f;       // forget gate shut
    gates[2 * hidden + k] = k % 2 ? 100.0f : -100.0f;
    gates[3 * hidden + k] = 100.0f;    // output gate open
  }
  std::vector<float> h(hidden, 0.5f), c(hidden, 7.0f);
  lstm_cell(gates.data(), w.data(), hidden, h.data(), c.data());
  for (int k = 0; k < hidden; ++k) {
    EXPECT_FLOAT_EQ(c[k], k % 2 ? 1.0f : -1.0f) << k;
    EXPECT_NEAR(h[k], std::tanh(c[k]), 1e-6) << k;
    EXPECT_FALSE(std::isnan(h[k]));
  }
}

}  // namespace
}  // namespace auris
