"""Evaluation methods of the source papers: retention curves and AURSC, bootstrap intervals,
paired comparisons, worst predictions and checkpoint selection."""
