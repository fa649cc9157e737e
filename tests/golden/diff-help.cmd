help diff
