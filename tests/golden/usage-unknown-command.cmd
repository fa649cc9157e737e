frobnicate x
