"""Figures shared by all papers: paper axes and labels, standard-error bands, one colour per
algorithm across a paper's figures, PNG and PDF without timestamps (byte-stable)."""

from .figures import Style, plot_figure, save_figure  # noqa: F401
