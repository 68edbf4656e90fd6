"""Cross-validation for time-ordered data: h-block splits and sliding windows.

:class:`HBlockSplit` splits time-ordered samples into contiguous blocks with contiguous
validation and test blocks per split (Ahmadian et al., Algorithm 4); it is a scikit-learn
splitter. :func:`sliding_windows` cuts the samples into windows of fixed length and overlap
that never cross a block boundary.
"""

from ordmetrics.model_selection._hblock import (
    BlockSplit,
    HBlockSplit,
)
from ordmetrics.model_selection._windows import (
    Windows,
    sliding_windows,
)

__all__ = ["BlockSplit", "HBlockSplit", "Windows", "sliding_windows"]
