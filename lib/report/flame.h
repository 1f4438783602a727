// Differential flame graphs of callgrind profiles: each side's call tree
// as folded stacks (the text flamegraph.pl, speedscope and inferno read),
// and both sides merged into one tree, each frame with its base and head
// instructions, for the run page to draw head's tree coloured by the change
// against base.
//
// callgrind keeps who-called-whom with the cost of those calls, not whole
// stacks. The tree is unfolded from the functions nobody calls: a call's
// cost is the callee's share on that path, and the callee's own calls are
// split in the same proportion (as KCachegrind's call graph does). A
// recursive call is not unfolded again (callgrind's inclusive cost counts
// it twice), and a path below min_share of the whole is left in its
// caller's own cost, so the tree stays small whatever the program.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/callgrind.h"

namespace bb::report {

// A call path from a root and the instructions spent in its last
// function's own code on that path.
using Folded = std::map<std::vector<std::string>, double>;

struct FoldOptions {
  double min_share = 0.001;  // of the whole program's instructions
  size_t max_depth = 128;
};
Folded fold_calls(const formats::CallGraph& graph, const FoldOptions& options = {});

// "a;b;c 123" lines, one per path, counts rounded to whole instructions;
// a ';' in a function's name is written as ':'.
std::string folded_text(const Folded& folded);

// One frame of the merged tree: the same path on both sides.
struct FlameNode {
  std::string name;
  double base = 0, head = 0;            // inclusive: this frame and its callees
  double base_self = 0, head_self = 0;  // this frame's own code
  std::vector<FlameNode> children;      // by name
};
// Both sides' paths in one tree under a root named "all".
FlameNode merge_folded(const Folded& base, const Folded& head);

// The tree as the run page reads it: {"n": name, "b": base, "h": head,
// "bs": base self, "hs": head self, "c": [children]}, members that are 0
// or empty left out.
nlohmann::json flame_json(const FlameNode& root);
// One side's folded stacks (folded_text) back from such a tree: every frame
// with own instructions on that side, the root left out.
std::string folded_of(const nlohmann::json& flame, bool head);

}  // namespace bb::report
