"""Make a mutant's scratch copy of the package: src/banditrepro copied, the mutant's one line substituted."""

from banditrepro.mutation import Mutant, write_scratch_copy
from banditrepro.workflow_io import repo_root, run


def main(snakemake) -> None:
    mutant = Mutant.from_patch(snakemake.params.patch)
    copy = write_scratch_copy(mutant, snakemake.output[0], repo_root(snakemake) / "src" / "banditrepro")
    print(f"mutant {mutant.id} ({mutant.paper}): {mutant.file} patched in {copy}")


run(main, snakemake)  # noqa: F821 - injected by Snakemake
