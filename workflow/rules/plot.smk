# Plotting is separate from simulation: restyling a figure never reruns a simulation.


rule plot_figure:
    input:
        summary=layout.SUMMARY_PATTERN,
        reference=layout.REFERENCE_PATTERN,
    output:
        png=report(
            layout.FIGURE_PNG_PATTERN,
            category="{paper}",
            subcategory="2. figures",
            labels={"item": "{figure}", "file": "{figure}.png"},
            caption="../../report/figure.rst",
        ),
        pdf=layout.FIGURE_PDF_PATTERN,
    params:
        scale=config["scale"],
        figure=lambda w: paper_spec(w.paper).figures[w.figure],
        standin=lambda w: w.figure in figure_availability(w.paper).standin,
    log:
        layout.PLOT_LOG_PATTERN,
    conda:
        "../../environment.yml"
    script:
        "../scripts/plot_figure.py"
