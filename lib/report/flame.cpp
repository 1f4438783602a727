#include "report/flame.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace bb::report {

namespace {

class Unfolder {
 public:
  Unfolder(const formats::CallGraph& graph, const FoldOptions& options, double total)
      : graph_(graph), options_(options), min_value_(total * options.min_share) {}

  // Unfolds `fn` reached with `scale` of its whole cost; returns what the
  // path holds: its own code, the calls left with it, and the calls
  // unfolded below it.
  double unfold(const std::string& fn, double scale) {
    const auto f = graph_.functions.find(fn);
    double own = f == graph_.functions.end() ? 0 : f->second.self * scale;
    double below = 0;
    path_.push_back(fn);
    on_path_.insert(fn);
    if (auto calls = graph_.calls.find(fn); calls != graph_.calls.end())
      for (const auto& [callee, cost] : calls->second) {
        if (on_path_.count(callee)) continue;  // recursion: callgrind counted it already
        const double value = cost * scale;
        const auto c = graph_.functions.find(callee);
        const double whole = c == graph_.functions.end() ? 0 : c->second.inclusive;
        // Too small or too deep to draw: it stays with the caller.
        if (value < min_value_ || whole <= 0 || path_.size() >= options_.max_depth) {
          own += std::max(0.0, value);
          continue;
        }
        below += unfold(callee, scale * cost / whole);
      }
    if (own > 0) folded_[path_] += own;
    on_path_.erase(fn);
    path_.pop_back();
    return own + below;
  }

  Folded take() { return std::move(folded_); }

 private:
  const formats::CallGraph& graph_;
  const FoldOptions& options_;
  const double min_value_;
  std::vector<std::string> path_;
  std::set<std::string> on_path_;
  Folded folded_;
};

}  // namespace

Folded fold_calls(const formats::CallGraph& graph, const FoldOptions& options) {
  std::set<std::string> called;
  for (const auto& [caller, callees] : graph.calls)
    for (const auto& [callee, cost] : callees)
      if (callee != caller) called.insert(callee);
  std::vector<std::string> roots;
  double total = 0;
  for (const auto& [fn, cost] : graph.functions)
    if (!called.count(fn)) {
      roots.push_back(fn);
      total += cost.inclusive;
    }
  // Everything called by something (a cycle at the top): the costliest.
  if (roots.empty() && !graph.functions.empty()) {
    auto top = std::max_element(graph.functions.begin(), graph.functions.end(),
                                [](const auto& a, const auto& b) { return a.second.inclusive < b.second.inclusive; });
    roots.push_back(top->first);
    total = top->second.inclusive;
  }
  Unfolder unfolder(graph, options, total);
  for (const auto& root : roots) unfolder.unfold(root, 1);
  return unfolder.take();
}

std::string folded_text(const Folded& folded) {
  std::string out;
  for (const auto& [path, own] : folded) {
    for (size_t i = 0; i < path.size(); ++i) {
      if (i) out += ';';
      std::string name = path[i];
      std::replace(name.begin(), name.end(), ';', ':');
      out += name;
    }
    char count[32];
    std::snprintf(count, sizeof count, " %.0f\n", own);
    out += count;
  }
  return out;
}

namespace {

void add_path(FlameNode& root, const std::vector<std::string>& path, double own, bool head) {
  FlameNode* node = &root;
  (head ? node->head : node->base) += own;
  for (const auto& name : path) {
    auto it = std::lower_bound(node->children.begin(), node->children.end(), name,
                               [](const FlameNode& n, const std::string& k) { return n.name < k; });
    if (it == node->children.end() || it->name != name) {
      it = node->children.insert(it, FlameNode{});
      it->name = name;
    }
    node = &*it;
    (head ? node->head : node->base) += own;
  }
  (head ? node->head_self : node->base_self) += own;
}

}  // namespace

FlameNode merge_folded(const Folded& base, const Folded& head) {
  FlameNode root;
  root.name = "all";
  for (const auto& [path, own] : base) add_path(root, path, own, false);
  for (const auto& [path, own] : head) add_path(root, path, own, true);
  return root;
}

nlohmann::json flame_json(const FlameNode& node) {
  nlohmann::json out = {{"n", node.name}};
  auto put = [&](const char* key, double v) {
    if (v != 0) out[key] = std::round(v);
  };
  put("b", node.base);
  put("h", node.head);
  put("bs", node.base_self);
  put("hs", node.head_self);
  if (!node.children.empty()) {
    nlohmann::json children = nlohmann::json::array();
    for (const auto& c : node.children) children.push_back(flame_json(c));
    out["c"] = std::move(children);
  }
  return out;
}

namespace {

void fold_json(const nlohmann::json& node, const char* own_key, std::vector<std::string>& path, Folded& out) {
  auto c = node.find("c");
  if (c == node.end() || !c->is_array()) return;
  for (const auto& child : *c) {
    if (!child.is_object() || !child.contains("n") || !child["n"].is_string()) continue;
    path.push_back(child["n"].get<std::string>());
    if (auto own = child.find(own_key); own != child.end() && own->is_number() && own->get<double>() > 0)
      out[path] += own->get<double>();
    fold_json(child, own_key, path, out);
    path.pop_back();
  }
}

}  // namespace

std::string folded_of(const nlohmann::json& flame, bool head) {
  Folded folded;
  std::vector<std::string> path;
  fold_json(flame, head ? "hs" : "bs", path, folded);
  return folded_text(folded);
}

}  // namespace bb::report
