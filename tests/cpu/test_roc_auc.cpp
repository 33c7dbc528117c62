// ROC-AUC against a naive O(n²) count over (positive, negative) pairs, ties counting one half.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "algorithms/roc_auc.hpp"
#include "ringblas/error.hpp"

namespace {

using namespace ringblas;
const float kNaN = std::numeric_limits<float>::quiet_NaN();

double naive_auc(const std::vector<float>& s, const std::vector<float>& l) {
  double num = 0, pairs = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    for (std::size_t j = 0; j < s.size(); ++j)
      if (l[i] == 1.0f && l[j] == 0.0f) {
        pairs += 1;
        num += s[i] > s[j] ? 1.0 : s[i] == s[j] ? 0.5 : 0.0;
      }
  return num / pairs;
}

TEST(RocAuc, KnownValues) {
  EXPECT_DOUBLE_EQ(metrics::roc_auc({0.1f, 0.4f, 0.35f, 0.8f}, {0, 0, 1, 1}), 0.75);  // sklearn doc
  EXPECT_DOUBLE_EQ(metrics::roc_auc({1, 2, 3}, {0, 1, 1}), 1.0);
  EXPECT_DOUBLE_EQ(metrics::roc_auc({3, 2, 1}, {0, 1, 1}), 0.0);
  EXPECT_DOUBLE_EQ(metrics::roc_auc({5, 5, 5, 5}, {0, 1, 0, 1}), 0.5);  // all tied
}

TEST(RocAuc, MissingLabelsAreLeftOut) {
  // The NaN-labelled entry would make the ranking perfect-but-one if it counted.
  EXPECT_DOUBLE_EQ(metrics::roc_auc({0.9f, 0.1f, 0.8f}, {kNaN, 0, 1}), 1.0);
  EXPECT_TRUE(std::isnan(metrics::roc_auc({0.1f, 0.2f}, {1, 1})));  // no negative
  EXPECT_TRUE(std::isnan(metrics::roc_auc({0.1f, 0.2f}, {kNaN, 0})));
}

TEST(RocAuc, MatchesPairCountWithTies) {
  std::mt19937 gen(7);
  for (int trial = 0; trial < 50; ++trial) {
    const int n = 2 + trial * 3;
    std::vector<float> s(n), l(n);
    std::uniform_int_distribution<int> level(0, 1 + trial % 5);  // few levels: many ties
    std::uniform_int_distribution<int> lab(0, 2);
    bool pos = false, neg = false;
    for (int i = 0; i < n; ++i) {
      s[i] = static_cast<float>(level(gen)) * 0.25f;
      const int c = lab(gen);
      l[i] = c == 2 ? kNaN : static_cast<float>(c);
      pos |= l[i] == 1.0f;
      neg |= l[i] == 0.0f;
    }
    if (!pos || !neg) continue;
    EXPECT_NEAR(metrics::roc_auc(s, l), naive_auc(s, l), 1e-12) << "trial " << trial;
  }
}

TEST(RocAuc, PerTaskAndMean) {
  // Two tasks, row-major: task 0 perfect, task 1 reversed, one missing label.
  const std::vector<float> s{0.1f, 0.9f, 0.8f, 0.2f, 0.5f, 0.5f};
  const std::vector<float> l{0, 1, 1, 0, kNaN, 1};
  const auto auc = metrics::roc_auc_per_task(s, l, 2);
  ASSERT_EQ(auc.size(), 2u);
  EXPECT_DOUBLE_EQ(auc[0], 1.0);
  EXPECT_DOUBLE_EQ(auc[1], naive_auc({0.9f, 0.2f, 0.5f}, {1, 0, 1}));
  EXPECT_DOUBLE_EQ(metrics::mean_ignoring_nan({0.5, std::nan(""), 1.0}), 0.75);
}

TEST(RocAuc, RejectsBadInput) {
  EXPECT_THROW(metrics::roc_auc({0.1f}, {0.0f, 1.0f}), InvalidValue);
  EXPECT_THROW(metrics::roc_auc({0.1f, 0.2f}, {0.0f, 2.0f}), InvalidValue);
  EXPECT_THROW(metrics::roc_auc({kNaN, 0.2f}, {0.0f, 1.0f}), InvalidValue);
}

}  // namespace
