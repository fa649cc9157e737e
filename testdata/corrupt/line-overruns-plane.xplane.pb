
/device:TPU:0d