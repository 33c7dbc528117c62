// ROC-AUC from ranks with ties (see roc_auc.hpp).
#include "algorithms/roc_auc.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "ringblas/error.hpp"

namespace ringblas::metrics {

double roc_auc(const std::vector<float>& scores, const std::vector<float>& labels) {
  if (scores.size() != labels.size())
    throw InvalidValue("roc_auc: " + std::to_string(scores.size()) + " scores but " +
                       std::to_string(labels.size()) + " labels");
  std::vector<std::pair<float, bool>> s;  // (score, positive) of the labelled entries
  s.reserve(scores.size());
  for (std::size_t i = 0; i < scores.size(); ++i) {
    if (std::isnan(labels[i])) continue;
    if (labels[i] != 0.0f && labels[i] != 1.0f)
      throw InvalidValue("roc_auc: label " + std::to_string(labels[i]) + " at " +
                         std::to_string(i) + " is not 0, 1 or NaN");
    if (std::isnan(scores[i]))
      throw InvalidValue("roc_auc: score at " + std::to_string(i) + " is NaN");
    s.emplace_back(scores[i], labels[i] == 1.0f);
  }
  std::sort(s.begin(), s.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double positives = 0, rank_sum = 0;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t j = i;
    while (j < s.size() && s[j].first == s[i].first) ++j;
    const double mean_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (std::size_t k = i; k < j; ++k)
      if (s[k].second) positives += 1, rank_sum += mean_rank;
    i = j;
  }
  const double negatives = static_cast<double>(s.size()) - positives;
  if (positives == 0 || negatives == 0) return std::numeric_limits<double>::quiet_NaN();
  return (rank_sum - positives * (positives + 1) / 2.0) / (positives * negatives);
}

std::vector<double> roc_auc_per_task(const std::vector<float>& scores,
                                     const std::vector<float>& labels, Index tasks) {
  if (tasks <= 0 || scores.size() != labels.size() || scores.size() % tasks != 0)
    throw InvalidValue("roc_auc_per_task: " + std::to_string(scores.size()) + " scores, " +
                       std::to_string(labels.size()) + " labels, " + std::to_string(tasks) +
                       " tasks");
  const std::size_t n = scores.size() / static_cast<std::size_t>(tasks);
  std::vector<double> out;
  std::vector<float> s(n), l(n);
  for (Index t = 0; t < tasks; ++t) {
    for (std::size_t i = 0; i < n; ++i) {
      s[i] = scores[i * tasks + t];
      l[i] = labels[i * tasks + t];
    }
    out.push_back(roc_auc(s, l));
  }
  return out;
}

double mean_ignoring_nan(const std::vector<double>& values) {
  double sum = 0;
  int count = 0;
  for (double v : values)
    if (!std::isnan(v)) sum += v, ++count;
  return count ? sum / count : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace ringblas::metrics
