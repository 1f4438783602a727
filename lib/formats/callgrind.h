// callgrind's output files (valgrind --tool=callgrind): the event totals a
// run counted, per file (one per process with --trace-children=yes).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace bb::formats {

// Event name ("Ir", "Bcm", ...) -> count, from the file's "events:" and
// "summary:" (else "totals:") lines.
Result<std::map<std::string, double>> parse_callgrind_totals(std::string_view text, const std::string& source);

// Instructions (Ir) per function of one or more profiles: self (in the
// function's own code) and inclusive (self plus the calls it made).
struct FunctionCost {
  double self = 0, inclusive = 0;
};
// Adds one callgrind output file's functions into `into` (so the files of
// every process of a run sum up). Names are as callgrind writes them.
Status add_callgrind_functions(std::string_view text, const std::string& source,
                               std::map<std::string, FunctionCost>& into);

// The functions and who called whom: what a call tree (a flame graph) is
// drawn from. callgrind keeps call edges, not whole stacks.
struct CallGraph {
  std::map<std::string, FunctionCost> functions;
  // caller -> callee -> instructions of those calls, inclusive (the
  // callee's own and everything below it), summed over the call sites.
  std::map<std::string, std::map<std::string, double>> calls;
};
// As add_callgrind_functions, the calls as well.
Status add_callgrind_calls(std::string_view text, const std::string& source, CallGraph& into);

// A differential profile: the functions whose instruction counts changed
// most from base to head, by |change in self| (then inclusive), at most
// `limit`. `share` is the function's self change over the total change.
struct FunctionChange {
  std::string function;
  FunctionCost base, head;
  double share = 0;
};
std::vector<FunctionChange> profile_diff(const std::map<std::string, FunctionCost>& base,
                                         const std::map<std::string, FunctionCost>& head, size_t limit = 15);

// The metric benchbox records a callgrind event as: "Ir" -> "instructions",
// "D1mr" -> "l1d_read_misses", ..., and iai-callgrind's derived events
// "L1hits" -> "l1_hits", "EstimatedCycles" -> "estimated_cycles", ...;
// "" for an event it does not know.
std::string callgrind_metric(const std::string& event);

}  // namespace bb::formats
