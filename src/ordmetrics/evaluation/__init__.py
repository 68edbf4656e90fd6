"""Evaluation methods of the source papers: retention curves and AURSC, bootstrap intervals,
paired comparisons, worst predictions and checkpoint selection."""

from .checkpoints import EpochSelection, select_epoch, trajectory_correlation

__all__ = ["EpochSelection", "select_epoch", "trajectory_correlation"]
