# Target rules: `all` (default) builds every configured paper and the overall report; each paper
# has a target named after it.


rule all:
    default_target: True
    input:
        [paper_targets(p) for p in available_papers()],
        "results/report.md",


for _paper in available_papers():

    rule:
        name:
            _paper
        input:
            paper_targets(_paper),
