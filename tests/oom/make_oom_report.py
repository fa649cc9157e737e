#!/usr/bin/env python3
"""Writes testdata/oom/tpu-hbm-compile.log: a synthetic XLA:TPU compile-time
out-of-memory report (the layout of ../shared/docs/oom-facts.md, "TPU,
compile time") inside a few lines of a training log, so that `tpuprof oom`
has an input in the repository. Every figure is made up and consistent:
used = program + arguments, over = used - capacity, entries' shapes give
their sizes exactly. Run from the project root; the file is committed.
"""
import os

G, M, K = 1 << 30, 1 << 20, 1 << 10


def size(n):
    for unit, scale in (("G", G), ("M", M), ("K", K)):
        if n >= scale:
            return "%.2f%s" % (n / scale, unit) if unit != "K" else "%.1f%s" % (n / scale, unit)
    return "%dB" % n


def entry(i, nbytes, op, line, shape, label, kind="HLO temp"):
    return ("  %d. Size: %s\n"
            "     Operator: op_name=\"%s\" source_file=\"/workspace/toy_lm.py\" source_line=%d\n"
            "     Shape: %s\n"
            "     Unpadded size: %s\n"
            "     XLA label: %s\n"
            "     Allocation type: %s\n"
            "     ==========================\n\n") % (i, size(nbytes), op, line, shape, size(nbytes), label, kind)


def main():
    capacity = int(15.48 * G)
    program, arguments, reserved = int(12.25 * G), int(6.50 * G), 512 * M
    used = program + arguments
    lines = [
        "I1206 04:00:01.000000 4242 train.py:120] step 0: compiling train_step\n",
        "I1206 04:00:02.000000 4242 train.py:121] batch 8, sequence 2048, 32 heads\n",
        "Traceback (most recent call last):\n",
        "  File \"/workspace/train.py\", line 130, in <module>\n",
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. "
        "Ran out of memory in memory space hbm. Used %s of %s hbm. Exceeded hbm capacity by %s.\n\n"
        % (size(used), size(capacity), size(used - capacity)),
        "Total hbm usage >= %s:\n" % size(used + reserved),
        "    reserved        %s \n" % size(reserved),
        "    program          %s \n" % size(program),
        "    arguments        %s \n\n" % size(arguments),
        "Output size 2.0K; shares 0B with arguments.\n\n",
        "Program hbm requirement %s:\n" % size(program),
        "    global           96.0K\n",
        "    scoped           256.0K\n",
        "    HLO temp         %s (99.9%% utilization: Unpadded (12.00G) Padded (12.01G), 2.0%% fragmentation (250.00M))\n\n"
        % size(program),
        "  Largest program allocations in hbm:\n\n",
        entry(1, 8 * 32 * 2048 * 2048 * 4, "jit(train_step)/jit(main)/toy_lm/layers_3/attn/dot_general", 88,
              "f32[8,32,2048,2048]{3,2,1,0:T(8,128)}",
              "fusion.41 = f32[8,32,2048,2048]{3,2,1,0:T(8,128)} fusion(param.3, copy.7), kind=kOutput, calls=fused_computation.41"),
        entry(2, 8 * 32 * 2048 * 2048 * 2, "jit(train_step)/jit(main)/toy_lm/layers_3/attn/softmax", 91,
              "bf16[8,32,2048,2048]{3,2,1,0:T(8,128)(2,1)}",
              "convert.12 = bf16[8,32,2048,2048]{3,2,1,0:T(8,128)(2,1)} convert(fusion.41)"),
        entry(3, 6 * 8192 * 8192 * 4, "jit(train_step)/jit(main)/toy_lm/mlp/up_proj/dot_general", 104,
              "f32[6,8192,8192]{2,1,0:T(8,128)}",
              "fusion.77 = f32[6,8192,8192]{2,1,0:T(8,128)} fusion(param.9), kind=kLoop, calls=fused_computation.77"),
        "I1206 04:00:09.000000 4242 train.py:140] exiting\n",
    ]
    os.makedirs("testdata/oom", exist_ok=True)
    with open("testdata/oom/tpu-hbm-compile.log", "w") as f:
        f.write("".join(lines))


if __name__ == "__main__":
    main()
