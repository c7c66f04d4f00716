"""How good an estimated cycle figure is, and how a printed figure shows it: the labels the estimator
(mcucomp/perf/estimate.py) gives each layer and model, shared with every stage and service that prints estimates."""

from __future__ import annotations

#: estimate_quality: every term inside the range the path's fit saw / a term outside it / a path the fit never saw.
CALIBRATED, EXTRAPOLATED, UNCALIBRATED = "calibrated", "extrapolated", "uncalibrated"
#: How a printed estimate that is not CALIBRATED is marked (ahead of the figure).
OUTSIDE_MARK = "~"


def marked(figure: str, quality: str) -> str:
    """A printed estimate, marked OUTSIDE_MARK when its quality is not CALIBRATED."""
    return figure if quality == CALIBRATED else OUTSIDE_MARK + figure
