help fusions
