fetch --tools trace_viewer gs://b
