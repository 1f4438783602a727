#include "runnerd_fixture.h"

#include <sys/stat.h>

#include <fstream>
#include <stdexcept>

#include "bus/connect.h"
#include "bus/names.h"
#include "util/file.h"
#include "util/text.h"

namespace bb::test {

namespace {

int last_online_cpu() {
  auto text = read_file("/sys/devices/system/cpu/online");
  if (!text) throw std::runtime_error("cannot read the online CPUs");
  auto t = trim(*text);
  auto pos = t.find_last_of(",-");
  return std::stoi(pos == std::string::npos ? t : t.substr(pos + 1));
}

}  // namespace

std::string fake_google_benchmark(const std::string& before_output, const std::string& per_benchmark) {
  return "#!/bin/sh\n"
         "filter=.\n"
         "for a in \"$@\"; do case $a in --benchmark_filter=*) filter=${a#--benchmark_filter=};; esac; done\n" +
         before_output +
         "printf '{\"context\":{},\"benchmarks\":['\n"
         "sep=\n"
         "for n in BM_a BM_b BM_c BM_d BM_e BM_f BM_g BM_h; do\n"
         "  echo \"$n\" | grep -Eq -- \"$filter\" || continue\n" +
         per_benchmark +
         "  printf '%s{\"name\":\"%s\",\"run_name\":\"%s\",\"run_type\":\"iteration\",\"repetitions\":1,"
         "\"repetition_index\":0,\"threads\":1,\"iterations\":1000,\"real_time\":1.5,\"cpu_time\":1.4,"
         "\"time_unit\":\"ns\"}' \"$sep\" \"$n\" \"$n\"\n"
         "  sep=,\n"
         "done\n"
         "printf ']}\\n'\n";
}

RunnerdFixture::RunnerdFixture(const std::string& runner_yaml) : RunnerdFixture(runner_yaml, "", "test-runner") {}

RunnerdFixture::RunnerdFixture(const std::string& runner_yaml, const std::string& postgres,
                               const std::string& runner_id)
    : queued_("  lease_seconds: 3\n  max_attempts: 5\n") {
  if (!postgres.empty()) queued_.use_postgresql(postgres);  // rewrites the config: first
  // Run as root, runnerd gives every job its own uid (exec/identity.h),
  // which may write nothing of ours. The tests' benchmarks leave marker
  // files (started, builds.log) here, so this one directory is open to
  // them, sticky like /tmp; what runnerd keeps below it has its own modes.
  if (::chmod(dir().path().c_str(), 01777) < 0) throw std::runtime_error("cannot chmod the test directory");
  {
    std::ofstream cfg(queued_.config_path(), std::ios::app);
    cfg << "cache_dir: " << (dir() / "cache") << "\n"
        << "runner:\n"
        << "  runner_id: " << runner_id << "\n"
        << "  heartbeat_seconds: 1\n"
        << "  benchmark_cpus: \"" << last_online_cpu() << "\"\n"
        << runner_yaml;
    if (!cfg) throw std::runtime_error("cannot write the test config");
  }
  git("init -q -b main " + (dir() / "work"));
  commit("README", "upstream\n", "initial");
  git("clone -q --bare " + (dir() / "work") + " " + origin());
  git("-C " + (dir() / "work") + " remote add origin " + origin());
  queued_.start_and_wait();
  client_ = std::make_unique<QueueClient>(address());
  client_->watch_signals();
}

void RunnerdFixture::start_runner(const std::map<std::string, std::string>& extra_env,
                                  const std::vector<std::string>& wrapper) {
  runner_.reset();
  std::map<std::string, std::string> env{{"DBUS_SYSTEM_BUS_ADDRESS", address()}, {"BENCHBOX_LOG", "stderr"}};
  env.insert(extra_env.begin(), extra_env.end());
  std::vector<std::string> argv = wrapper;
  for (const auto& a : {build_path("daemons/runnerd/benchbox-runnerd"), std::string("--config"), queued_.config_path()})
    argv.push_back(a);
  runner_ = std::make_unique<Process>(argv, env, dir() / "runnerd.log");
  if (!wait_until([&] { return !runner_property("State", "s").empty() || !runner_->running(); }) ||
      !runner_->running())
    throw std::runtime_error("benchbox-runnerd did not come up:\n" + runner_log());
}

std::string RunnerdFixture::git(const std::string& args) {
  std::string out;
  std::string cmd = "git -c user.name=t -c user.email=t@example.com " + args + " 2>&1";
  if (run_shell(cmd, &out) != 0) throw std::runtime_error("git failed: " + cmd + "\n" + out);
  return trim(out);
}

std::string RunnerdFixture::commit(const std::string& path, const std::string& content,
                                   const std::string& message) {
  const std::string work = dir() / "work";
  const std::string file = work + "/" + path;
  if (!make_dirs(file.substr(0, file.rfind('/'))) || !write_file_atomic(file, content, 0755))
    throw std::runtime_error("cannot write " + file);
  git("-C " + work + " add -A");
  git("-C " + work + " commit -q -m '" + message + "'");
  if (path_exists(origin())) git("-C " + work + " push -q -f origin HEAD");
  return git("-C " + work + " rev-parse HEAD");
}

void RunnerdFixture::make_pr_ref(int n, const std::string& sha) {
  // The PR's objects reach origin on a scratch branch that is deleted again.
  git("-C " + (dir() / "work") + " push -q -f origin " + sha + ":refs/heads/scratch");
  git("-C " + origin() + " update-ref refs/pull/" + std::to_string(n) + "/head " + sha);
  git("-C " + origin() + " update-ref -d refs/heads/scratch");
}

int64_t RunnerdFixture::enqueue(const nlohmann::json& spec) {
  int64_t id = 0;
  bool created = false;
  if (auto e = client_->enqueue(spec, &id, &created)) throw std::runtime_error("enqueue: " + e.message);
  return id;
}

nlohmann::json RunnerdFixture::wait_finished(int64_t id, int seconds) {
  nlohmann::json job;
  bool done = wait_until(
      [&] {
        if (client_->get(id, &job)) return false;
        std::string s = job.value("state", "");
        return s == "done" || s == "failed" || s == "cancelled";
      },
      std::chrono::seconds(seconds));
  if (!done) throw std::runtime_error("job " + std::to_string(id) + " did not finish: " + job.dump() +
                                      "\nrunnerd log:\n" + runner_log());
  return job;
}

nlohmann::json RunnerdFixture::result_of(const nlohmann::json& job) {
  auto text = read_file(job.at("result_path").get<std::string>());
  if (!text) throw std::runtime_error("no result file: " + text.error().message);
  return nlohmann::json::parse(*text);
}

std::string RunnerdFixture::runner_property(const char* name, const char* type) {
  auto bus = bus::open_address(address());
  if (!bus) return "";
  bus::BusError error;
  sd_bus_message* raw = nullptr;
  if (sd_bus_get_property(bus->get(), bus::kRunnerName, bus::kRunnerPath, bus::kRunnerInterface, name,
                          error.get(), &raw, type) < 0)
    return "";
  bus::MessagePtr reply(raw);
  if (type[0] == 's') {
    const char* s = nullptr;
    if (sd_bus_message_read(raw, "s", &s) < 0) return "";
    return s;
  }
  if (type[0] == 'b') {
    int v = 0;
    if (sd_bus_message_read(raw, "b", &v) < 0) return "";
    return v ? "true" : "false";
  }
  if (type[0] == 'x') {
    int64_t v = 0;
    if (sd_bus_message_read(raw, "x", &v) < 0) return "";
    return std::to_string(v);
  }
  uint64_t v = 0;
  if (sd_bus_message_read(raw, "t", &v) < 0) return "";
  return std::to_string(v);
}

}  // namespace bb::test
