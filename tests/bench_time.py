#!/usr/bin/env python3
"""bench_time.py OUT COMMAND...: run COMMAND (stdout to /dev/null, stderr
kept) and write "WALL RSS_KIB USER SYS" to OUT as GNU time's
-f "%e %M %U %S" does, with the wall clock to the microsecond: the bench
holds tpuprof to floors of about 0.2 s, where GNU time's centiseconds
are a 5% step. Exits with the command's status (128 + N for a signal).
"""
import os
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.stderr.write("usage: bench_time.py OUT COMMAND...\n")
        return 2
    out, cmd = sys.argv[1], sys.argv[2:]
    start = time.perf_counter()
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    except OSError as e:
        sys.stderr.write("bench_time.py: %s: %s\n" % (cmd[0], e.strerror))
        return 127
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = 0  # reaped above
    with open(out, "w") as f:
        f.write("%.6f %d %.6f %.6f\n" % (wall, usage.ru_maxrss, usage.ru_utime,
                                          usage.ru_stime))
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())
