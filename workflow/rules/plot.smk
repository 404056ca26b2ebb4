# Plotting is separate from simulation: restyling a figure never reruns a simulation.


rule plot_figure:
    input:
        summary=layout.SUMMARY_PATTERN,
        reference=layout.REFERENCE_PATTERN,
    output:
        png=layout.FIGURE_PNG_PATTERN,
        pdf=layout.FIGURE_PDF_PATTERN,
        # the figure with its caption beneath it, as Snakemake's HTML report shows it (report/html.py)
        html=report(
            layout.FIGURE_HTML_PATTERN,
            category="{paper}",
            subcategory="2. figures",
            labels={"item": "{figure}", "file": "{figure}.html"},
            caption="../../report/figure.rst",
        ),
    params:
        **job_params(),
        figure=lambda w: paper_spec(w.paper).figures[w.figure],
        standin=lambda w: w.figure in figure_availability(w.paper).standin,
    log:
        layout.PLOT_LOG_PATTERN,
    conda:
        "../../environment.yml"
    script:
        "../scripts/plot_figure.py"
