"""What people look at: the command line, the HTML report and the plots.

* the command line: :mod:`~ordmetrics.report.cli` (parser, ``main``), ``cli_evaluate``,
  ``cli_compare``, ``cli_input`` (files and options), ``cli_output`` (text, JSON, CSV);
* the HTML report: :mod:`~ordmetrics.report.html` (the page), ``tables`` (the metric table with
  intervals, the paired differences), ``sections`` (the figure sections), ``markup``;
* the plots (public as :mod:`ordmetrics.plot`): :mod:`~ordmetrics.report.plot` and one module
  per figure family, ``plot_retention``, ``plot_calibration``, ``plot_scores``,
  ``plot_confusion``.
"""
