merge
