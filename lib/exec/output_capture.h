// A command's stdout and stderr, read from pipes with poll(): captured up
// to Command::max_output_bytes and passed line by line to Command::on_line.
// Shared by the runners that read a command's output themselves (the
// pinned child, and the transient service whose output PID 1 connects to
// our pipes).
#pragma once

#include <chrono>
#include <string>

#include "exec/command_runner.h"
#include "util/fd.h"

namespace bb::exec {

struct Stream {
  UniqueFd fd;
  bool is_stderr = false;
  std::string pending;  // bytes after the last newline
  std::string* capture = nullptr;
};

class OutputSink {
 public:
  OutputSink(const Command& c, Outcome& o) : command_(c), outcome_(o) {}
  void add(Stream& s, const char* data, size_t n);
  // At EOF: the last line without a newline.
  void finish(Stream& s);

 private:
  void emit(std::string_view line, bool is_stderr);
  const Command& command_;
  Outcome& outcome_;
  size_t captured_ = 0;
};

// The command's stdout and stderr pipes as the two streams, non-blocking,
// captured into `outcome`.
void open_streams(Stream (&streams)[2], UniqueFd out, UniqueFd err, Outcome& outcome);

// Reads what is available (the fd is non-blocking); returns false at EOF or
// on a hard error, when the stream is finished and its fd closed.
bool read_some(Stream& s, OutputSink& sink);

// Once the command is gone: reads both streams to EOF for at most `limit`
// (only a process that escaped can hold a pipe open longer), then finishes
// them.
void drain(Stream (&streams)[2], OutputSink& sink, std::chrono::milliseconds limit);

}  // namespace bb::exec
