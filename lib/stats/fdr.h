// Benjamini-Hochberg false-discovery-rate control over the benchmarks of one
// run: with many benchmarks, some p-values are small by chance; BH keeps the
// expected share of false discoveries among those declared at most q.
#pragma once

#include <vector>

namespace bb::stats {

// BH-adjusted p-values, in the input order (R's p.adjust(p, "BH")). NaN
// inputs stay NaN and do not count towards the number of tests.
std::vector<double> benjamini_hochberg(const std::vector<double>& p);

}  // namespace bb::stats
