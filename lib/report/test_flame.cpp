// Flame graphs from callgrind's call graph: the tree unfolded from who
// called whom, and base and head merged frame by frame.
#include <catch2/catch.hpp>

#include <string>

#include "formats/callgrind.h"
#include "report/flame.h"

using namespace bb;
using namespace bb::report;

namespace {

// main -> parse -> hot, main -> other -> hot, in callgrind's compressed
// names: hot's own cost split between its two callers by their calls.
std::string profile(int hot_from_parse, int hot_from_other = 100) {
  const int hot = hot_from_parse + hot_from_other;
  return "version: 1\ncreator: callgrind-3.19.0\npositions: line\nevents: Ir\n\n"
         "fn=(1) main\n5 10\ncfn=(2) parse\ncalls=1 0\n6 " + std::to_string(100 + hot_from_parse) + "\n"
         "cfn=(3) other\ncalls=1 0\n7 " + std::to_string(200 + hot_from_other) + "\n\n"
         "fn=(2)\n10 100\ncfn=(4) hot\ncalls=3 0\n11 " + std::to_string(hot_from_parse) + "\n\n"
         "fn=(3)\n20 200\ncfn=(4)\ncalls=1 0\n21 " + std::to_string(hot_from_other) + "\n\n"
         "fn=(4)\n30 " + std::to_string(hot) + "\n";
}

formats::CallGraph graph_of(const std::string& text) {
  formats::CallGraph g;
  auto st = formats::add_callgrind_calls(text, "callgrind.out.1", g);
  REQUIRE(st);
  return g;
}

const FlameNode* child(const FlameNode& n, const std::string& name) {
  for (const auto& c : n.children)
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("callgrind's calls: who called whom, with the inclusive cost of those calls") {
  auto g = graph_of(profile(900));
  CHECK(g.functions.at("main").self == 10);
  CHECK(g.functions.at("main").inclusive == 10 + 1000 + 300);
  CHECK(g.functions.at("hot").self == 1000);
  CHECK(g.calls.at("main").at("parse") == 1000);
  CHECK(g.calls.at("parse").at("hot") == 900);
  CHECK(g.calls.at("other").at("hot") == 100);  // a name defined once, used by its id
  CHECK(g.calls.count("hot") == 0);
}

TEST_CASE("the call tree unfolds from the roots, a shared callee split by its callers' calls") {
  const Folded f = fold_calls(graph_of(profile(900)));
  CHECK(f.at({"main"}) == 10);
  CHECK(f.at({"main", "parse"}) == 100);
  CHECK(f.at({"main", "parse", "hot"}) == Approx(900));
  CHECK(f.at({"main", "other"}) == 200);
  CHECK(f.at({"main", "other", "hot"}) == Approx(100));
  CHECK(f.size() == 5);
  CHECK(folded_text(f) ==
        "main 10\nmain;other 200\nmain;other;hot 100\nmain;parse 100\nmain;parse;hot 900\n");
}

TEST_CASE("recursion is unfolded once, and paths too small to draw stay with their caller") {
  const std::string text =
      "events: Ir\nfn=(1) main\n1 5\ncfn=(2) walk\ncalls=1 0\n2 1000\ncfn=(3) tiny\ncalls=1 0\n3 1\n"
      "fn=(2)\n4 400\ncfn=(2)\ncalls=9 0\n5 600\nfn=(3)\n6 1\nfn=(4) a;b\n7 3\n";
  FoldOptions o;
  o.min_share = 0.01;
  const Folded f = fold_calls(graph_of(text), o);
  // walk's call to itself is not unfolded: its path holds its own code
  // (of every level: callgrind's 600 for the inner calls counts it again).
  CHECK(f.at({"main", "walk"}) == 400);
  CHECK(f.count({"main", "walk", "walk"}) == 0);
  // tiny (1 of ~1,000) is left in main's own cost.
  CHECK(f.at({"main"}) == 6);
  CHECK(f.count({"main", "tiny"}) == 0);
  // A function nobody calls is a root of its own; ';' in a name is written ':'.
  CHECK(f.at({"a;b"}) == 3);
  CHECK(folded_text(f).find("a:b 3\n") == 0);
}

TEST_CASE("base and head merged frame by frame, each frame with both sides' costs") {
  // A planted 10 % change in hot's own code, on parse's path only.
  const FlameNode root = merge_folded(fold_calls(graph_of(profile(900))), fold_calls(graph_of(profile(990))));
  CHECK(root.name == "all");
  CHECK(root.base == Approx(1310));
  CHECK(root.head == Approx(1400));
  const FlameNode* hot = child(*child(*child(root, "main"), "parse"), "hot");
  REQUIRE(hot);
  CHECK(hot->base_self == Approx(900));
  CHECK(hot->head_self == Approx(990));
  const FlameNode* other_hot = child(*child(*child(root, "main"), "other"), "hot");
  REQUIRE(other_hot);
  CHECK(other_hot->base_self == Approx(100));
  CHECK(other_hot->head_self == Approx(100));
  // A frame only one side has is kept with 0 on the other.
  Folded head = fold_calls(graph_of(profile(900)));
  head[{"main", "new_fn"}] = 50;
  const FlameNode added = merge_folded(fold_calls(graph_of(profile(900))), head);
  const FlameNode* n = child(*child(added, "main"), "new_fn");
  REQUIRE(n);
  CHECK(n->base == 0);
  CHECK(n->head == 50);

  const nlohmann::json j = flame_json(root);
  CHECK(j["n"] == "all");
  CHECK(j["h"] == 1400);
  CHECK(j["c"][0]["n"] == "main");
  CHECK(j["c"][0]["c"][1]["c"][0] == nlohmann::json{{"n", "hot"}, {"b", 900}, {"h", 990}, {"bs", 900}, {"hs", 990}});
}
