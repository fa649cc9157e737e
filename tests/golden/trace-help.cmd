help trace
