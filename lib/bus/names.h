// Every bus name, object path and interface benchbox owns, in one place.
// The contract is documented in docs/ARCHITECTURE.md ("Bus interfaces").
#pragma once

namespace bb::bus {

inline constexpr const char* kQueueName = "org.benchbox.Queue1";
inline constexpr const char* kQueuePath = "/org/benchbox/Queue1";
inline constexpr const char* kQueueInterface = "org.benchbox.Queue1";
inline constexpr const char* kQueueJobPathPrefix = "/org/benchbox/Queue1/job";
inline constexpr const char* kQueueJobInterface = "org.benchbox.Queue1.Job";

inline constexpr const char* kTunerName = "org.benchbox.Tuner1";
inline constexpr const char* kTunerPath = "/org/benchbox/Tuner1";
inline constexpr const char* kTunerInterface = "org.benchbox.Tuner1";

inline constexpr const char* kRunnerName = "org.benchbox.Runner1";
inline constexpr const char* kRunnerPath = "/org/benchbox/Runner1";
inline constexpr const char* kRunnerInterface = "org.benchbox.Runner1";

inline constexpr const char* kReporterName = "org.benchbox.Reporter1";
inline constexpr const char* kReporterPath = "/org/benchbox/Reporter1";
inline constexpr const char* kReporterInterface = "org.benchbox.Reporter1";

}  // namespace bb::bus
