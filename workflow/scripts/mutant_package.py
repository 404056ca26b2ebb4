"""Make a mutant's scratch copy of the project: the package and the workflow scripts copied with the mutant's one
line substituted, links to the configs, the data and the paper's precomputed inputs."""

from banditrepro.mutation import Mutant, write_scratch_tree
from banditrepro.workflow_io import repo_root, run


def main(snakemake) -> None:
    mutant = Mutant.from_patch(snakemake.params.patch)
    write_scratch_tree(mutant, snakemake.output[0], repo_root(snakemake), snakemake.params.links)
    print(f"mutant {mutant.id} ({mutant.paper}): {mutant.file} patched in {snakemake.output[0]}")


run(main, snakemake)  # noqa: F821 - injected by Snakemake
