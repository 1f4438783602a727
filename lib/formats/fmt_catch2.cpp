// Catch2's XML reporter (-r xml) with benchmarks. v2 writes
// <Catch><Group><TestCase>..., v3 <Catch2TestRun><TestCase>...; both put
//   <BenchmarkResults name samples resamples iterations clockResolution estimatedDuration>
//     <mean value lowerBound upperBound ci/> <standardDeviation .../> <outliers .../>
//   </BenchmarkResults>
// inside TestCase (and Section) elements, values in nanoseconds, or
// <failed message="..."/> when the benchmark threw. Catch2 reports only
// these estimates, not its samples, so every benchmark is summary_only with
// the mean as its one value. Names are TestCase/Section.../benchmark.
#include <libxml/parser.h>
#include <libxml/tree.h>

#include <climits>
#include <memory>

#include "formats/parsers.h"
#include "formats/text_lines.h"

namespace bb::formats::detail {

namespace {

struct DocFree {
  void operator()(xmlDoc* d) const { xmlFreeDoc(d); }
};
struct CtxtFree {
  void operator()(xmlParserCtxt* c) const { xmlFreeParserCtxt(c); }
};
using DocPtr = std::unique_ptr<xmlDoc, DocFree>;
using CtxtPtr = std::unique_ptr<xmlParserCtxt, CtxtFree>;

bool is(const xmlNode* n, const char* name) {
  return n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, reinterpret_cast<const xmlChar*>(name)) == 0;
}

std::optional<std::string> attr(const xmlNode* n, const char* name) {
  xmlChar* v = xmlGetProp(n, reinterpret_cast<const xmlChar*>(name));
  if (!v) return std::nullopt;
  std::string out(reinterpret_cast<const char*>(v));
  xmlFree(v);
  return out;
}

std::string node_place(const xmlNode* n) { return std::to_string(xmlGetLineNo(n)) + ":1"; }

class Walker {
 public:
  explicit Walker(const Input& in) : in_(in) {}

  Status walk(const xmlNode* n, const std::string& path) {
    for (const xmlNode* c = n->children; c; c = c->next) {
      if (c->type != XML_ELEMENT_NODE) continue;
      if (is(c, "TestCase") || is(c, "Section")) {
        auto name = attr(c, "name");
        if (!name) return bad(c, "<" + std::string(reinterpret_cast<const char*>(c->name)) + "> has no name attribute");
        if (auto st = walk(c, path.empty() ? *name : path + "/" + *name); !st) return st;
      } else if (is(c, "BenchmarkResults")) {
        if (auto st = benchmark(c, path); !st) return st;
      } else {
        if (auto st = walk(c, path); !st) return st;
      }
    }
    return {};
  }

  ParsedList take() { return std::move(out_); }

 private:
  Error bad(const xmlNode* n, const std::string& what) const { return error_at(in_.source, node_place(n), what); }

  Result<double> number_attr(const xmlNode* n, const char* name) const {
    auto v = attr(n, name);
    std::string el(reinterpret_cast<const char*>(n->name));
    if (!v) return bad(n, "<" + el + "> has no " + name + " attribute, expected a number");
    auto d = parse_decimal(*v);
    if (!d) return bad(n, "<" + el + "> " + name + "=\"" + v->substr(0, 40) + "\" is not a finite number");
    return *d;
  }

  Status benchmark(const xmlNode* n, const std::string& path) {
    auto name = attr(n, "name");
    if (!name) return bad(n, "<BenchmarkResults> has no name attribute");
    Parsed p;
    p.place = node_place(n);
    auto& b = p.bench;
    b.key.name = path.empty() ? *name : path + "/" + *name;
    b.key.metric = "wall_time";
    b.unit = "s";
    for (const char* a : {"samples", "resamples", "iterations", "clockResolution", "estimatedDuration"})
      if (auto v = attr(n, a))
        if (auto d = parse_decimal(*v)) b.extra[a] = *d;
    const xmlNode* mean = nullptr;
    for (const xmlNode* c = n->children; c; c = c->next) {
      if (is(c, "failed")) {
        b.status = model::BenchmarkStatus::failed;
        b.reason = attr(c, "message").value_or("benchmark failed");
      } else if (is(c, "mean")) {
        mean = c;
      } else if (is(c, "standardDeviation")) {
        auto v = number_attr(c, "value");
        if (!v) return v.error();
        b.summary["stddev"] = *v * 1e-9;
      } else if (is(c, "outliers")) {
        if (auto v = attr(c, "variance"))
          if (auto d = parse_decimal(*v)) b.extra["outlier_variance"] = *d;
      }
    }
    if (b.status == model::BenchmarkStatus::ok) {
      if (!mean) return bad(n, "<BenchmarkResults name=\"" + *name + "\"> has no <mean> or <failed> element");
      auto v = number_attr(mean, "value");
      if (!v) return v.error();
      b.summary["mean"] = *v * 1e-9;
      for (const char* bound : {"lowerBound", "upperBound"}) {
        auto d = number_attr(mean, bound);
        if (!d) return d.error();
        b.summary[std::string("mean_") + bound] = *d * 1e-9;
      }
      b.summary_only = true;
      b.samples = {*v * 1e-9};
    }
    out_.push_back(std::move(p));
    return {};
  }

  const Input& in_;
  ParsedList out_;
};

}  // namespace

Result<ParsedList> parse_catch2_xml(const Input& in) {
  if (in.text.size() > size_t(INT_MAX))
    return error_at(in.source, "", "is larger than the XML parser accepts (2 GiB)");
  xmlInitParser();
  CtxtPtr ctxt(xmlNewParserCtxt());
  if (!ctxt) return make_error(Errc::internal, in.source + ": out of memory creating the XML parser");
  DocPtr doc(xmlCtxtReadMemory(ctxt.get(), in.text.data(), int(in.text.size()), in.source.c_str(), nullptr,
                               XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING));
  if (!doc) {
    const xmlError* e = xmlCtxtGetLastError(ctxt.get());
    std::string msg = e && e->message ? e->message : "not well-formed XML";
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    return error_at(in.source, e ? place(size_t(e->line), size_t(e->int2 > 0 ? e->int2 : 1)) : "",
                    "XML error: " + msg);
  }
  const xmlNode* root = xmlDocGetRootElement(doc.get());
  if (!root || !(is(root, "Catch") || is(root, "Catch2TestRun")))
    return error_at(in.source, root ? node_place(root) : "",
                    "expected a Catch2 XML report (root element <Catch> or <Catch2TestRun>)");
  Walker w(in);
  if (auto st = w.walk(root, ""); !st) return st.error();
  return w.take();
}

}  // namespace bb::formats::detail
