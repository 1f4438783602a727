// The kernel's hexadecimal CPU mask syntax, used by /proc/irq/*/smp_affinity,
// /proc/irq/default_smp_affinity and the workqueue cpumask: 32-bit groups in
// hex, most significant first, separated by commas ("ff,ffffffff").
#pragma once

#include <string>
#include <vector>

#include "util/result.h"

namespace bb::sys {

// "3" -> {0, 1}; "00000001,00000000" -> {32}. Rejects anything that is not
// hex digits and commas, naming the text.
Result<std::vector<int>> parse_cpu_mask(const std::string& text);

// {0, 1} -> "3"; {32} -> "1,00000000". The shortest form the kernel accepts.
std::string format_cpu_mask(const std::vector<int>& cpus);

// True when the two sorted lists share a CPU.
bool cpus_intersect(const std::vector<int>& a, const std::vector<int>& b);

}  // namespace bb::sys
