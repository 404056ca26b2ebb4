"""Experiments: paper configs (data) and the registered functions they name.

``banditrepro.experiments.<paper>`` registers a paper's simulation builders, reference curves,
claim checks, tables and special panels; :func:`spec.load_paper` imports it on demand.
"""
