info /nonexistent/capture.xplane.pb
