// log_softmax and softmax of one row of logits in float32, computed the way torch computes them
// (x - max - log(sum(exp(x - max)))), so that sums of log-probabilities match the reference.
#pragma once

#include <span>

namespace auris {

void log_softmax(std::span<const float> logits, std::span<float> out);
// log_softmax(logits)[index], the same float arithmetic, without writing the row out.
float log_softmax_at(std::span<const float> logits, int index);
// Probability of token `index` under softmax(logits).
double softmax_probability(std::span<const float> logits, int index);
// log(sum(exp(x))) over the span, the exponentials in float and their sum in double; -inf when every
// value is -inf.
double log_sum_exp(std::span<const float> values);

}  // namespace auris
