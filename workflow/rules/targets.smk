# One target rule per paper, named after it (`snakemake --cores 2 satisficing_ucl`).
# The default target `all` is in the Snakefile (a default set in an included file is not kept).


for _paper in available_papers():

    rule:
        name:
            _paper
        input:
            paper_targets(_paper),
