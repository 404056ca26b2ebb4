# Plotting is separate from simulation: restyling a figure never reruns a simulation.


rule plot_figure:
    input:
        summary="results/{paper}/{figure}/summary.csv",
        reference="results/{paper}/{figure}/reference.csv",
    output:
        png=report(
            "figures/{paper}/{figure}.png",
            category="{paper}",
            subcategory="figures",
            labels={"item": "{figure}", "file": "{figure}.png"},
            caption="../../report/figure.rst",
        ),
        pdf="figures/{paper}/{figure}.pdf",
    params:
        scale=config["scale"],
        figure=lambda w: paper_spec(w.paper).figures[w.figure],
        standin=lambda w: w.figure in figure_availability(w.paper).standin,
    log:
        "logs/{paper}/plot/{figure}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/plot_figure.py"
