oom
