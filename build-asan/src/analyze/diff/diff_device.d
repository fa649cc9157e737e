build-asan/src/analyze/diff/diff_device.o: src/analyze/diff/diff_device.c \
 src/analyze/diff/diff_internal.h
src/analyze/diff/diff_internal.h:
