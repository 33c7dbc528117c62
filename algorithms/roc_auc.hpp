// ROC-AUC of binary scores, per task with missing labels (MoleculeNet's Tox21 metric).
//
// AUC = P(score of a random positive > score of a random negative) + ½ P(equal), computed from
// ranks (Mann-Whitney U: AUC = (R₊ − n₊(n₊+1)/2) / (n₊ n₋), R₊ the sum of the positives'
// ranks, tied scores sharing their mean rank), the value sklearn.metrics.roc_auc_score gives.
#pragma once
#include <vector>

#include "ringblas/types.hpp"

namespace ringblas::metrics {

/// ROC-AUC of `scores` against 0/1 `labels` (same length); entries whose label is NaN are left
/// out. NaN when the remaining labels lack a positive or a negative. InvalidValue for a label
/// other than 0, 1 or NaN, a NaN score on a labelled entry, or lengths that differ.
double roc_auc(const std::vector<float>& scores, const std::vector<float>& labels);

/// ROC-AUC per task of row-major n x T scores and labels (NaN = missing), as roc_auc per column.
std::vector<double> roc_auc_per_task(const std::vector<float>& scores,
                                     const std::vector<float>& labels, Index tasks);

/// The mean of the values that are not NaN (NaN when all are).
double mean_ignoring_nan(const std::vector<double>& values);

}  // namespace ringblas::metrics
