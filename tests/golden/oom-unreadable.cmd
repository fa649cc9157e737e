oom tests/oom/bfc.log /nonexistent.log
