# The builds branch's build (tests/system/lib.sh, check_real_builds): real
# toolchains inside a job's sandbox (lib/exec/job_sandbox.h), each one the
# box has. Prints "BUILT <tool>: ..." per toolchain, "NOT HERE <tool>" for
# one the box lacks; any failure fails the build, and the job.
set -eu
# cmake and a C compiler: configure, compile, link (make), run.
if command -v cmake >/dev/null && command -v gcc >/dev/null && command -v make >/dev/null; then
  cmake -S cmake -B _cmake -DCMAKE_C_COMPILER=gcc -G "Unix Makefiles" >_cmake.log 2>&1 || { cat _cmake.log; exit 1; }
  cmake --build _cmake -j 2 >>_cmake.log 2>&1 || { cat _cmake.log; exit 1; }
  echo "BUILT cmake: $(./_cmake/hello)"
else
  echo "NOT HERE cmake"
fi
# pip: a local package built with setuptools and installed, offline.
if python3 -c 'import setuptools' 2>/dev/null && python3 -m pip --version >/dev/null 2>&1; then
  python3 -m pip install --quiet --no-index --no-build-isolation --no-deps --target _py ./pypkg
  echo "BUILT pip: $(PYTHONPATH=_py python3 -c 'import bbpkg; print(bbpkg.hello())')"
else
  echo "NOT HERE pip"
fi
# node: worker threads, a child process, the file system.
if command -v node >/dev/null; then
  echo "BUILT node: $(node node/check.js)"
else
  echo "NOT HERE node"
fi
# Python's multiprocessing: POSIX semaphores in the command's own /dev/shm.
echo "BUILT multiprocessing: $(python3 -c 'import multiprocessing as m
with m.Pool(2) as p: print(sum(p.map(abs, [-1, -2, -3])))')"
